"""Benchmark of shared memory: memory_recall latency at 10k and 100k memories, memory_remember throughput.

One embedded Postgres in a temp folder, the real models. Recall runs the whole service path (query embedding,
HNSW + full-text retrieval, fusion, cross-encoder rerank, visibility/expiry/tombstone filters in SQL), once
with the reranker and once without, side by side. Remember runs the whole write path (validation, chunking,
embedding, the near-duplicate check, the insert). To reach 100k without embedding 100k texts, rows are
synthesised and COPYed: texts from templates, vectors = a real embedding of one of 400 base texts plus
Gaussian noise (so vectors cluster by topic the way real memories do), then the HNSW index is rebuilt.

Usage: .venv/bin/python bench/bench_memory.py [--sizes 10000 100000] [--queries 30] [--remembers 60]
Writes bench/results/bench_memory.json and bench/results/bench_memory.png.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import shutil
import statistics
import sys
import tempfile
import time
from datetime import UTC, datetime, timedelta
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))
RESULTS = REPO / "bench" / "results"

SUBJECTS = ["The user", "Dana", "The billing team", "Our landlord", "The contractor", "Mina", "The accountant",
            "The support team", "Grandma", "The design group"]
FACTS = ["prefers {x} for {y}", "decided to use {x} for {y}", "asked us to check {x} before {y}",
         "keeps the {x} next to the {y}", "wants {x} reviewed every {y}", "scheduled {x} after the {y}"]
XS = ["Postgres", "dark mode", "the blue binder", "weekly invoices", "a French press", "the spare key", "Python 3.12",
      "the roof warranty", "quarterly taxes", "the VPN", "unit tests", "the garden hose", "the boiler filter",
      "Thursday deploys", "a standing desk", "the passport", "solar panels", "the lease renewal"]
YS = ["the billing service", "morning coffee", "the garage", "month end", "the kitchen renovation", "travel",
      "the release checklist", "the winter", "the new hires", "the insurance claim", "the car service",
      "the school run", "the audit", "the anniversary dinner"]
QUERIES = [
    "which database did we pick for billing?", "how does the user like their coffee made?",
    "where is the spare house key kept?", "what happens with the roof warranty?", "when do we deploy?",
    "what should be reviewed before the audit?", "what does Dana prefer for travel?",
    "who checks the boiler filter in winter?", "what is the plan for the kitchen renovation?",
    "what editor theme does the user like?", "when are the quarterly taxes due?", "what about the lease renewal?",
    "where is the passport?", "what did the contractor ask us to check?", "what does grandma want reviewed?",
]


def template_text(rng: random.Random) -> str:
    return f"{rng.choice(SUBJECTS)} {rng.choice(FACTS).format(x=rng.choice(XS), y=rng.choice(YS))}."


def percentile(values: list[float], p: float) -> float:
    s = sorted(values)
    return s[min(len(s) - 1, max(0, round(p / 100 * (len(s) - 1))))]


def synthesise(container, base_texts: list[str], base_vectors, start: int, count: int, rng: random.Random) -> None:
    """COPY `count` memories (one version, one chunk, one vector each) with ids from `start`."""
    import numpy as np

    from ltm_desktop.adapters.postgres.memory_store import VECTORS_TABLE

    authors = [f"bench-{c}" for c in "abcde"]
    t0 = datetime(2025, 1, 1, tzinfo=UTC)
    noise = np.random.default_rng(start).normal(0, 0.03, size=(count, base_vectors.shape[1])).astype(np.float32)
    with container.write_db.connection() as conn:
        # Loading into a live HNSW index inserts one row at a time; rebuild_index() builds it once afterwards.
        conn.execute(f"DROP INDEX IF EXISTS {VECTORS_TABLE}_hnsw")
        first_chunk = conn.execute("SELECT nextval('memory_chunks_id_seq')").fetchone()[0]
        conn.execute("SELECT setval('memory_chunks_id_seq', %s)", (first_chunk + count,))
        rows = []
        for k in range(count):
            i = start + k
            j = rng.randrange(len(base_texts))
            rows.append((f"mem_bench{i:08d}", authors[i % 5], t0 + timedelta(minutes=i), j,
                         "private" if i % 5 == 0 else "shared", f"{base_texts[j]} (entry {i})"))
        with conn.cursor().copy("COPY memories (id, author, created_at, current_version, updated_at) FROM STDIN") as cp:
            for mid, author, at, _, _, _ in rows:
                cp.write_row((mid, author, at, 1, at))
        with conn.cursor().copy(
            "COPY memory_versions (memory_id, version, content, type, project, visibility, confidence, author,"
            " transport, created_at) FROM STDIN"
        ) as cp:
            for n, (mid, author, at, _, vis, text) in enumerate(rows):
                cp.write_row((mid, 1, text, ("fact", "preference", "decision", "note")[n % 4],
                              ("house", "work", None)[n % 3], vis, 0.8, author, "local", at))
        with conn.cursor().copy(
            "COPY memory_chunks (id, memory_id, version, ordinal, text, context, char_start, char_end) FROM STDIN"
        ) as cp:
            for k, (mid, _, _, _, _, text) in enumerate(rows):
                cp.write_row((first_chunk + k, mid, 1, 0, text, "", 0, len(text)))
        with conn.cursor().copy(f"COPY {VECTORS_TABLE} (chunk_id, embedding) FROM STDIN WITH (FORMAT BINARY)") as cp:
            cp.set_types(["int8", "vector"])
            for k, (_, _, _, j, _, _) in enumerate(rows):
                v = base_vectors[j] + noise[k]
                cp.write_row((first_chunk + k, v / np.linalg.norm(v)))


def rebuild_index(container) -> float:
    from ltm_desktop.adapters.postgres.database import connect_direct
    from ltm_desktop.adapters.postgres.memory_store import VECTORS_TABLE

    started = time.perf_counter()
    with connect_direct(container.write_db.conninfo) as conn:
        conn.execute(f"DROP INDEX IF EXISTS {VECTORS_TABLE}_hnsw")
        conn.execute("SET maintenance_work_mem = '512MB'")
        conn.execute(f"CREATE INDEX {VECTORS_TABLE}_hnsw ON {VECTORS_TABLE} USING hnsw (embedding vector_cosine_ops)")
        conn.execute("VACUUM ANALYZE memories, memory_versions, memory_chunks, " + VECTORS_TABLE)
    return time.perf_counter() - started


def time_recall(reader, caller, queries: list[str], rounds: int) -> list[float]:
    for q in queries[:3]:
        reader.recall(caller, q)  # warm caches and the ONNX sessions
    out = []
    for _ in range(rounds):
        for q in queries:
            t = time.perf_counter()
            reader.recall(caller, q, limit=8)
            out.append((time.perf_counter() - t) * 1000)
    return out


def stage_times(service, reader, caller, queries: list[str]) -> dict[str, dict[str, float]]:
    """Where a recall's time goes: query embedding, vector retrieval, full-text retrieval, rerank of 20."""
    now = service.now()
    scope = reader.scope(caller, now, False)
    stages: dict[str, list[float]] = {"embed_query": [], "dense": [], "lexical": [], "rerank": []}
    for q in queries:
        t = time.perf_counter()
        vector = service.embedder.embed_query(q)
        stages["embed_query"].append(time.perf_counter() - t)
        t = time.perf_counter()
        dense = service.store.dense(vector, service.tuning.depth, scope)
        stages["dense"].append(time.perf_counter() - t)
        t = time.perf_counter()
        service.store.lexical(q, service.tuning.depth, scope)
        stages["lexical"].append(time.perf_counter() - t)
        t = time.perf_counter()
        service.reranker.score(q, [m.text for m in dense[: service.tuning.rerank_candidates]])
        stages["rerank"].append(time.perf_counter() - t)
    return {k: {"p50": round(statistics.median(v) * 1000, 1), "p95": round(percentile(v, 95) * 1000, 1)}
            for k, v in stages.items()}


def time_remember(service, caller, texts: list[str]) -> tuple[list[float], float]:
    per = []
    started = time.perf_counter()
    for text in texts:
        t = time.perf_counter()
        r = service.remember(caller, text, type="note", tags=["bench"])
        assert r.status == "created", r
        per.append((time.perf_counter() - t) * 1000)
    return per, len(texts) / (time.perf_counter() - started)


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--sizes", type=int, nargs="+", default=[10_000, 100_000])
    ap.add_argument("--queries", type=int, default=30, help="recall calls per configuration")
    ap.add_argument("--remembers", type=int, default=60)
    args = ap.parse_args()

    import numpy as np

    from ltm_desktop.bootstrap import Container, configure_environment
    from ltm_desktop.core.models import Caller
    from ltm_desktop.services.memory import MemoryService
    from ltm_desktop.services.memory_recall import MemoryReader
    from ltm_desktop.settings import Settings

    configure_environment()
    home = Path(tempfile.mkdtemp(prefix="ltm-mb-"))
    c = Container(Settings(home=home, models_dir=str(REPO / ".models")))
    caller = Caller("bench-a", "http", False)
    rng = random.Random(3)
    queries = (QUERIES * (args.queries // len(QUERIES) + 1))[: args.queries]
    load = os.getloadavg()[0]
    result: dict = {"machine": {"cpus": os.cpu_count(), "load_average_at_start": round(load, 1)}, "sizes": {},
                    "queries": len(queries)}
    try:
        svc = c.memory
        plain = MemoryReader(MemoryService(svc.store, svc.embedder, None, svc.tuning))
        reranked = c.memory_reader

        fresh = [f"{template_text(rng)} Remembered note {i}." for i in range(args.remembers)]
        t = time.perf_counter()
        c.embedder.embed_documents(fresh)
        embed_only = len(fresh) / (time.perf_counter() - t)
        per, rate = time_remember(svc, caller, fresh)
        result["remember_empty"] = {"per_second": round(rate, 1), "p50_ms": round(statistics.median(per), 1),
                                    "p95_ms": round(percentile(per, 95), 1), "embed_only_per_second": round(embed_only, 1)}
        print(f"remember on an empty store: {rate:.1f}/s (p50 {statistics.median(per):.0f} ms); "
              f"embedding alone {embed_only:.1f}/s", flush=True)

        base_texts = sorted({template_text(rng) for _ in range(2000)})[:400]
        base_vectors = np.asarray(c.embedder.embed_documents(base_texts), dtype=np.float32)
        have = svc.store.count()
        for size in sorted(args.sizes):
            t = time.perf_counter()
            synthesise(c, base_texts, base_vectors, have, size - have, rng)
            load_s = time.perf_counter() - t
            index_s = rebuild_index(c)
            have = size
            with_rr = time_recall(reranked, caller, queries, 1)
            without = time_recall(plain, caller, queries, 1)
            stages = stage_times(svc, reranked, caller, queries)
            texts = [f"{template_text(rng)} New note {size}-{i}." for i in range(args.remembers)]
            per, rate = time_remember(svc, caller, texts)
            have += len(texts)
            row = {
                "memories": size, "copy_s": round(load_s, 1), "hnsw_build_s": round(index_s, 1),
                "recall_ms": {"p50": round(statistics.median(with_rr), 1), "p95": round(percentile(with_rr, 95), 1)},
                "recall_no_rerank_ms": {"p50": round(statistics.median(without), 1), "p95": round(percentile(without, 95), 1)},
                "recall_stages_ms": stages,
                "remember": {"per_second": round(rate, 1), "p50_ms": round(statistics.median(per), 1),
                             "p95_ms": round(percentile(per, 95), 1)},
            }
            row["rerank_share_of_p50"] = round(1 - row["recall_no_rerank_ms"]["p50"] / row["recall_ms"]["p50"], 2)
            result["sizes"][str(size)] = row
            print(json.dumps(row), flush=True)
    finally:
        c.close()
        from ltm_desktop.adapters.postgres.embedded_server import stop_embedded

        stop_embedded(c.settings.data_dir)
        shutil.rmtree(home, ignore_errors=True)

    RESULTS.mkdir(parents=True, exist_ok=True)
    (RESULTS / "bench_memory.json").write_text(json.dumps(result, indent=2) + "\n", encoding="utf-8")
    plot(result)
    return 0


def plot(result: dict) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    sizes = list(result["sizes"])
    fig, (a, b) = plt.subplots(1, 2, figsize=(10, 4))
    x = range(len(sizes))
    for off, key, label in ((-0.3, "recall_ms", "recall (reranked)"), (0.1, "recall_no_rerank_ms", "recall, no rerank")):
        rows = [result["sizes"][s][key] for s in sizes]
        a.bar([i + off for i in x], [r["p50"] for r in rows], width=0.2, label=f"{label} p50")
        a.bar([i + off + 0.2 for i in x], [r["p95"] for r in rows], width=0.2, label=f"{label} p95", alpha=0.6)
    a.set_xticks(list(x), [f"{int(s):,} memories" for s in sizes])
    a.set_ylabel("ms per memory_recall")
    a.legend(fontsize=7)
    a.set_title("memory_recall latency")
    labels = ["empty", *[f"{int(s):,}" for s in sizes]]
    rates = [result["remember_empty"]["per_second"], *[result["sizes"][s]["remember"]["per_second"] for s in sizes]]
    b.bar(labels, rates)
    b.axhline(result["remember_empty"]["embed_only_per_second"], color="grey", linestyle="--", label="embedding alone")
    b.set_ylabel("memory_remember per second")
    b.set_title("memory_remember throughput")
    b.legend(fontsize=7)
    fig.tight_layout()
    fig.savefig(RESULTS / "bench_memory.png", dpi=120)


if __name__ == "__main__":
    raise SystemExit(main())
