"""Search latency at 10k and 100k chunks (1M with --million) next to its physical floor, and HNSW recall.

For each size, in one run: the full search (hybrid, with and without the reranker) is timed next to the
floor it cannot beat, the query embedding plus one bare HNSW query at the app's ef_search, per question; target
p95 without rerank <= 2x the floor's p95. Also timed, interleaved: dense-only and lexical-only searches, the app's
vector SQL alone, a hybrid search with a path filter (10 documents: the iterative-scan path) and the hybrid
search with full text ranked by cover density over every matching row, as before the two-step ranking
(search_index.LEXICAL_POOL). HNSW recall@10 against exact search is measured at
ef_search 20..1000 and for the app's own dense query at its own (size-dependent) ef_search.

Synthetic chunks: texts recombine sentences of the sample corpus with fresh names and numbers. The first
10,000 are embedded for real (the 10k size is entirely real vectors); beyond that, each vector mixes two real
ones plus a little noise, so they cluster the way real documents do (pure random vectors would be an
unrealistically hard case for HNSW). Queries are the sample corpus's questions,
embedded for real. Rows load with COPY (through PgDocumentStore); the full-text and HNSW indexes (with
migration 0006's parameters) are built once per size after the load, then the tables are vacuumed and analysed.
Results: bench/results/bench_search.json and .png.

Each size gets its own store (DIR/<size>, an embedded server). With --store DIR they are kept, and a later
run reuses every store already loaded and indexed, so the 1M build (tens of minutes on 2 cores) is paid once
and all sizes are still measured side by side, with the current code, in one run. --build-only loads and
indexes without measuring (to start the long build early).

Run:  .venv/bin/python bench/bench_search.py [--million] [--queries 100] [--store DIR] [--build-only]
"""

from __future__ import annotations

import argparse
import json
import os
import random
import re
import shutil
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

import numpy as np  # noqa: E402
import psutil  # noqa: E402

from ltm_desktop.adapters.postgres.document_store import PgDocumentStore  # noqa: E402
from ltm_desktop.bootstrap import Container, configure_environment  # noqa: E402
from ltm_desktop.core.models import Chunk, Extracted, FileFacts, PageText, SearchFilters  # noqa: E402
from ltm_desktop.sample_corpus.build import assemble  # noqa: E402
from ltm_desktop.services.eval_metrics import percentile  # noqa: E402
from ltm_desktop.services.search import SearchService  # noqa: E402
from ltm_desktop.settings import Settings  # noqa: E402

RESULTS = ROOT / "bench" / "results"
REAL = 10_000  # chunks embedded for real; the 10k size is all real
NOISE = 0.01  # per-dimension noise on mixed vectors (norm ~0.2 on unit vectors)
PER_DOC = 500
NAMES = ("Alvarez", "Kowalski", "Okafor", "Nguyen", "Brennan", "Haddad", "Patel", "Moreau", "Delgado", "Ricci",
         "Novak", "Mensah", "Castillo", "Petrov", "Doucette", "Lindqvist", "Yamamoto", "Thibodeau", "Whitaker")


def stats(values: list[float]) -> dict[str, float]:
    return {"p50_ms": round(percentile(values, 50), 2), "p95_ms": round(percentile(values, 95), 2)}


class SyntheticCorpus:
    """10,000 texts embedded for real, then further chunks mixed from pairs of them."""

    def __init__(self, embedder, cache: Path | None = None, seed: int = 5) -> None:
        self.seed = seed
        self.rng = random.Random(seed)
        docs, _ = assemble(20240601)
        sentences = [s.strip() for d in docs for b in d.blocks if not b.startswith("#")
                     for s in re.split(r"(?<=[.!?])\s+", " ".join(b.split())) if len(s) > 40]
        self.anchor_texts = [self._vary(" ".join(self.rng.sample(sentences, 4))) for _ in range(REAL)]
        self.after_anchors = self.rng.getstate()
        if cache is not None and cache.exists():
            self.anchor_vecs = np.load(cache)
        else:
            start = time.perf_counter()
            self.anchor_vecs = np.asarray(embedder.embed_documents(self.anchor_texts), dtype=np.float32)
            print(f"embedded {REAL} real chunks in {time.perf_counter() - start:.0f}s", flush=True)
            if cache is not None:
                np.save(cache, self.anchor_vecs)
        self.served = 0

    def restart(self) -> None:
        """Serve the same sequence again from the first chunk (each size's store starts from scratch)."""
        self.rng.setstate(self.after_anchors)
        self.served = 0

    def _vary(self, text: str) -> str:
        rng = self.rng
        text = re.sub(r"\$[\d,]+\.\d\d", lambda _: f"${rng.randrange(50, 9000):,}.{rng.randrange(100):02d}", text)
        return f"{text} Ref {rng.choice(NAMES)}-{rng.randrange(10000, 99999)}."

    def batch(self, n: int) -> tuple[list[str], np.ndarray]:
        """The real chunks first; after them, mixtures of two real ones plus a little noise, re-normalised."""
        rng = self.rng
        if self.served + n <= REAL:
            out = self.anchor_texts[self.served : self.served + n], self.anchor_vecs[self.served : self.served + n]
            self.served += n
            return list(out[0]), out[1]
        a = np.array([rng.randrange(REAL) for _ in range(n)])
        b = np.array([rng.randrange(REAL) for _ in range(n)])
        w = np.array([rng.uniform(0.7, 0.95) for _ in range(n)], dtype=np.float32)[:, None]
        noise = np.random.default_rng(rng.randrange(2**32)).normal(0, NOISE, (n, self.anchor_vecs.shape[1]))
        vecs = w * self.anchor_vecs[a] + (1 - w) * self.anchor_vecs[b] + noise.astype(np.float32)
        vecs /= np.linalg.norm(vecs, axis=1, keepdims=True)
        texts = [self._vary(f"{self.anchor_texts[a[i]]} {self.anchor_texts[b[i]].split('. ')[0]}.") for i in range(n)]
        self.served += n
        return texts, vecs


def load(store: PgDocumentStore, corpus: SyntheticCorpus, start: int, count: int) -> None:
    for d in range(start // PER_DOC, (start + count) // PER_DOC):
        texts, vecs = corpus.batch(PER_DOC)
        chunks = [Chunk(i, t, 1, 1, "", 0, len(t)) for i, t in enumerate(texts)]
        extracted = Extracted((PageText(1, "synthetic", "text"),), False, "text/plain")
        facts = FileFacts(f"/synthetic/doc_{d:05d}.txt", "/synthetic", f"doc_{d:05d}.txt", 1, 0.0)
        store.save_new_content(facts, f"synthetic-{d:05d}", extracted, f"Synthetic {d}", "note", chunks, list(vecs), "bench")


def build_index(db) -> float:
    from ltm_desktop.adapters.postgres.database import connect_direct

    start = time.perf_counter()
    with db.connection() as conn:
        # The whole graph must fit in memory or the build slows down many times over: ~2 GB at 1M chunks.
        conn.execute("SET maintenance_work_mem = '8GB'")
        conn.execute("CREATE INDEX IF NOT EXISTS chunks_tsv ON chunks USING gin (tsv)")
        conn.execute("DROP INDEX IF EXISTS chunk_embeddings_hnsw")
        # The parameters of migration 0006 (and model_pin.create_embeddings_table).
        conn.execute("CREATE INDEX chunk_embeddings_hnsw ON chunk_embeddings USING hnsw (embedding vector_cosine_ops)"
                     " WITH (m = 32, ef_construction = 128)")
    seconds = round(time.perf_counter() - start, 1)
    # Settle the tables as autovacuum eventually would, so it does not run in the middle of the timings.
    with connect_direct(db.conninfo) as conn:
        conn.execute("VACUUM (ANALYZE) chunks, chunk_embeddings, contents, documents")
    return seconds


def bare_hnsw(db, vec, ef: int, limit: int, exact: bool = False) -> tuple[list[int], float]:
    from ltm_desktop.adapters.postgres.document_store import as_vector

    with db.connection() as conn:
        if exact:
            conn.execute("SET LOCAL enable_indexscan = off")
        conn.execute(f"SET LOCAL hnsw.ef_search = {ef}")
        start = time.perf_counter()
        rows = conn.execute(
            "SELECT chunk_id FROM chunk_embeddings ORDER BY embedding <=> %s LIMIT %s", (as_vector(vec), limit)
        ).fetchall()
        return [r[0] for r in rows], (time.perf_counter() - start) * 1000


def measure(scratch, embedder, reranker, queries: list[str], rerank_queries: int) -> dict:
    service = SearchService(scratch.search_index, embedder, reranker)
    from ltm_desktop.adapters.postgres.search_index import PgSearchIndex

    before = SearchService(PgSearchIndex(scratch.read_db, lexical_pool=None), embedder, reranker)
    db = scratch.read_db
    app_ef = scratch.search_index.ef_search()  # the floor uses the app's own ef_search (it scales with size)
    # A first pass over every question, timed apart: right after the server starts, the index pages come from
    # disk or the OS cache (at 1M chunks the HNSW graph is ~2 GB), and that pass measures the store, not the search.
    # The timed passes below measure a warm server, the state a running app is in.
    cold = []
    for q in queries:
        start = time.perf_counter()
        service.search(q, k=8, rerank=False)
        cold.append((time.perf_counter() - start) * 1000)
        bare_hnsw(db, embedder.embed_query(q), app_ef, 50)
    embed_ms, hnsw_ms, floor, plain, dense, lexical, dense_sql, full_rank = [], [], [], [], [], [], [], []
    vectors = []
    for i, q in enumerate(queries):
        start = time.perf_counter()
        vec = embedder.embed_query(q)
        e = (time.perf_counter() - start) * 1000
        _, h = bare_hnsw(db, vec, app_ef, 50)
        vectors.append(vec)
        embed_ms.append(e)
        hnsw_ms.append(h)
        floor.append(e + h)
        start = time.perf_counter()  # the app's vector query alone, next to the bare one
        scratch.search_index.dense(vec, service.tuning.depth, SearchFilters())
        dense_sql.append((time.perf_counter() - start) * 1000)
        # The shipped search and the one ranking every matching row take turns going first: whichever runs second
        # finds the question's rows already in shared buffers (seen as a 30-50% difference at 100k when the order
        # was fixed).
        pair = [(service, plain), (before, full_rank)]
        for variant, sink in pair if i % 2 == 0 else reversed(pair):
            start = time.perf_counter()
            variant.search(q, k=8, rerank=False)
            sink.append((time.perf_counter() - start) * 1000)
        for mode, sink in (("dense", dense), ("lexical", lexical)):
            start = time.perf_counter()
            service.search(q, k=8, rerank=False, mode=mode)
            sink.append((time.perf_counter() - start) * 1000)
    reranked = []
    for q in queries[:rerank_queries]:
        start = time.perf_counter()
        service.search(q, k=8, rerank=True)
        reranked.append((time.perf_counter() - start) * 1000)
    filtered = []
    narrow = SearchFilters(path_contains="doc_0000")  # 10 documents, 5,000 chunks: the iterative-scan path
    for q in queries[:rerank_queries]:
        start = time.perf_counter()
        service.search(q, k=8, rerank=False, filters=narrow)
        filtered.append((time.perf_counter() - start) * 1000)
    recall = {}
    exact = [bare_hnsw(db, v, 100, 10, exact=True)[0] for v in vectors[:60]]
    for ef in (20, 40, 100, 200, 400, 800, 1000):  # pgvector's maximum is 1000
        hits, times = [], []
        for v, truth in zip(vectors[:60], exact):
            found, ms = bare_hnsw(db, v, ef, 10)
            hits.append(len(set(found) & set(truth)) / len(truth))
            times.append(ms)
        recall[str(ef)] = {"recall_at_10": round(sum(hits) / len(hits), 4), **stats(times)}
    app_hits = []
    for v, truth in zip(vectors[:60], exact):  # the top 10 of the app's own dense query, called as search calls it
        found = [c.chunk_id for c in scratch.search_index.dense(v, service.tuning.depth, SearchFilters())][:10]
        app_hits.append(len(set(found) & set(truth)) / len(truth))
    recall["app_dense_query"] = {"ef_search": app_ef, "recall_at_10": round(sum(app_hits) / len(app_hits), 4)}
    result = {
        "query_embedding": stats(embed_ms), "bare_hnsw_top50_app_ef": stats(hnsw_ms), "floor": stats(floor),
        "search_hybrid_no_rerank": stats(plain), "search_dense_only": stats(dense),
        "search_lexical_only": stats(lexical), "search_hybrid_rerank": stats(reranked),
        "app_dense_query_top50": stats(dense_sql), "search_hybrid_path_filter": stats(filtered),
        "search_hybrid_full_cover_density_ranking": stats(full_rank),
        "hnsw_recall_vs_exact": recall, "search_hybrid_no_rerank_first_pass_after_start": stats(cold),
    }
    result["no_rerank_p95_over_floor_p95"] = round(result["search_hybrid_no_rerank"]["p95_ms"] / result["floor"]["p95_ms"], 2)
    return result


def postgres_private_mb(marker: str) -> float:
    total = 0.0
    for p in psutil.process_iter(["name", "cmdline"]):
        try:
            if p.info["name"] == "postgres" and marker in " ".join(p.info["cmdline"] or []):
                m = p.memory_info()
                total += (m.rss - m.shared) / 2**20
        except (psutil.NoSuchProcess, psutil.AccessDenied):
            continue
    return round(total, 1)


def open_store(base: Container, folder: Path, corpus: SyntheticCorpus, size: int) -> tuple[Container, dict]:
    """A Container on the store for `size` chunks in `folder`, loaded and indexed unless it already was."""
    marker = folder / "built.json"
    store = Container(Settings(home=folder, models_dir=base.settings.models_dir))
    store.__dict__["embedder"], store.__dict__["reranker"] = base.embedder, base.reranker
    if marker.exists():
        return store, json.loads(marker.read_text())
    corpus.restart()
    start = time.perf_counter()
    documents = store.document_store  # creates the tables (and the HNSW index) first, so the drop below sticks
    with store.write_db.connection() as conn:
        # Bulk load, then build the indexes once: inserting into a growing GIN index slowed the 1M load to
        # ~150 chunks/s. The GIN index is rebuilt exactly as migration 0001 defines it.
        conn.execute("DROP INDEX IF EXISTS chunk_embeddings_hnsw")
        conn.execute("DROP INDEX IF EXISTS chunks_tsv")
    load(documents, corpus, 0, size)
    load_s = round(time.perf_counter() - start, 1)
    print(f"{size} chunks: loaded in {load_s}s", flush=True)
    build_s = build_index(store.write_db)
    print(f"{size} chunks: HNSW build {build_s}s", flush=True)
    built = {"load_seconds": load_s, "hnsw_build_seconds": build_s}
    marker.write_text(json.dumps(built))
    return store, built


def stop_store(store: Container) -> None:
    from ltm_desktop.adapters.postgres.embedded_server import stop_embedded

    store.close()
    stop_embedded(store.settings.data_dir)


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--million", action="store_true", help="also 1M chunks (long: see docs/benchmarks.md)")
    parser.add_argument("--sizes", default="10000,100000", help="comma-separated chunk counts")
    parser.add_argument("--queries", type=int, default=100)
    parser.add_argument("--rerank-queries", type=int, default=30)
    parser.add_argument("--store", type=Path, help="keep (and reuse) the per-size stores in this folder")
    parser.add_argument("--build-only", action="store_true", help="load and index the stores, measure nothing")
    args = parser.parse_args()
    configure_environment()
    folder = args.store or Path(tempfile.mkdtemp(prefix="ltm-bs-"))
    folder.mkdir(parents=True, exist_ok=True)
    base = Container(Settings(home=folder / "base", models_dir=str(ROOT / ".models")))
    embedder, reranker = base.embedder, base.reranker
    _, questions = assemble(20240601)
    queries = [q.text for q in questions][: args.queries]
    corpus = SyntheticCorpus(embedder, cache=folder / "anchors.npy")
    sizes = [int(x) for x in args.sizes.split(",")] + ([1_000_000] if args.million else [])
    report = {"cpu_count": os.cpu_count(), "queries": len(queries), "sizes": {}}
    try:
        for size in sizes:
            store, built = open_store(base, folder / str(size), corpus, size)
            try:
                if args.build_only:
                    continue
                result = measure(store, embedder, reranker, queries, args.rerank_queries)
                result.update(built, postgres_private_mb=postgres_private_mb(str(folder / str(size))),
                              search_process_rss_mb=round(psutil.Process().memory_info().rss / 2**20, 1),
                              load_average_1m=round(os.getloadavg()[0], 2))
                report["sizes"][str(size)] = result
                print(json.dumps(result, indent=2), flush=True)
            finally:
                stop_store(store)
    finally:
        if args.store is None:
            shutil.rmtree(folder, ignore_errors=True)
    if args.build_only:
        return 0
    RESULTS.mkdir(parents=True, exist_ok=True)
    (RESULTS / "bench_search.json").write_text(json.dumps(report, indent=2))
    plot(report)
    return 0


def plot(report: dict) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    sizes = list(report["sizes"])
    fig, (a, b) = plt.subplots(1, 2, figsize=(12, 4.2))
    series = [("floor", "floor: embed + bare HNSW"), ("search_hybrid_no_rerank", "hybrid search"),
              ("search_lexical_only", "lexical only"), ("search_hybrid_rerank", "hybrid + rerank")]
    width = 0.8 / len(series)
    for i, (key, label) in enumerate(series):
        xs = [j + i * width for j in range(len(sizes))]
        a.bar(xs, [report["sizes"][s][key]["p95_ms"] for s in sizes], width, label=label)
    a.set_xticks([j + 0.3 for j in range(len(sizes))], [f"{int(s):,} chunks" for s in sizes])
    a.set_yscale("log")
    a.set_ylabel("p95 latency (ms, log)")
    a.set_title("search latency (no rerank unless said) vs its floor")
    a.legend(fontsize=8)
    for s in sizes:
        rec = {ef: v for ef, v in report["sizes"][s]["hnsw_recall_vs_exact"].items() if ef.isdigit()}
        line = b.plot([int(ef) for ef in rec], [rec[ef]["recall_at_10"] for ef in rec], "o-", label=f"{int(s):,}")
        app = report["sizes"][s]["hnsw_recall_vs_exact"]["app_dense_query"]
        b.plot([app["ef_search"]], [app["recall_at_10"]], "*", markersize=14, color=line[0].get_color())
    b.set_xscale("log")
    b.axhline(0.95, color="grey", linestyle="--")
    b.set_xlabel("hnsw.ef_search")
    b.set_ylabel("recall@10 vs exact")
    b.set_title("HNSW recall (star: the app's own query at its ef_search)")
    b.legend()
    fig.tight_layout()
    fig.savefig(RESULTS / "bench_search.png", dpi=110)


if __name__ == "__main__":
    raise SystemExit(main())
