"""Tune the retrieval defaults on the sample corpus and record the evidence (bench/results/tune_retrieval.json + PNG).

Each experiment loads the sample corpus into a throwaway store and runs the `ltm eval` metrics:
  1. chunk size and overlap (re-ingesting; OCR and extraction are cached between runs),
  2. the bge query instruction prefix on and off,
  3. fusion: RRF vs min-max (rank-normalised) fusion and the lexical weight,
  4. how many fused candidates the reranker rescoring (quality vs measured latency),
  5. the verdict thresholds, calibrated on the best configuration's scores,
  6. how much of a document's opening the reranker reads before each later passage (`--stage lead`), and
     what it costs in search latency, timed interleaved with and without it (`--stage lead-latency`),
  7. full-text ranking: cover density over every matching row, or over the best N by term frequency
     (`--stage lexical-pool`; its latency at 100k-1M chunks is bench/bench_search.py's).
Reranker scores are cached per (query, passage), so sweeps that only change which passages get reranked
reuse them; latency is measured separately with the real, uncached reranker.

Run:  LTM_MODELS_DIR=.models .venv/bin/python bench/tune_retrieval.py [--quick]
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from ltm_desktop.adapters.postgres.scratch_store import analyze_database  # noqa: E402
from ltm_desktop.bootstrap import Container, configure_environment  # noqa: E402
from ltm_desktop.core.confidence import Thresholds  # noqa: E402
from ltm_desktop.sample_corpus import sample_corpus_dir  # noqa: E402
from ltm_desktop.services.eval_dataset import load_beir  # noqa: E402
from ltm_desktop.services.eval_metrics import percentile  # noqa: E402
from ltm_desktop.services.evaluation import (  # noqa: E402
    doc_id_lookup,
    evaluate_queries,
    ingest_dataset,
    share_low,
    suggest_medium_threshold,
)
from ltm_desktop.services.search import SearchService, SearchTuning  # noqa: E402
from ltm_desktop.settings import Settings  # noqa: E402

RESULTS = ROOT / "bench" / "results"
BGE_PREFIX = "Represent this sentence for searching relevant passages: "


class CachingExtractor:
    """Extraction (and OCR) once per file across experiments that only change chunking."""

    def __init__(self, inner) -> None:
        self._inner, self._cache = inner, {}

    def supports(self, path: Path) -> bool:
        return self._inner.supports(path)

    def extract(self, path: Path):
        if path not in self._cache:
            self._cache[path] = self._inner.extract(path)
        return self._cache[path]


class CachingReranker:
    """Cross-encoder scores once per (query, passage); sweeps over candidates and fusion reuse them."""

    def __init__(self, inner) -> None:
        self._inner, self._cache = inner, {}

    def score(self, query: str, passages):
        todo = [p for p in dict.fromkeys(passages) if (query, p) not in self._cache]
        if todo:
            for p, s in zip(todo, self._inner.score(query, todo), strict=True):
                self._cache[(query, p)] = s
        return [self._cache[(query, p)] for p in passages]


def summarise(modes, verdicts, runs) -> dict:
    out = {m.mode: {"ndcg_10": m.ndcg_10, "recall_10": m.recall_10, "recall_50": m.recall_50, "mrr_10": m.mrr_10}
           for m in modes}
    out["verdicts"] = [dataclasses.asdict(v) for v in verdicts]
    out["_scores"] = {
        "rerank_answerable": [r.top_rerank for r in runs if r.relevant],
        "rerank_unanswerable": [r.top_rerank for r in runs if not r.relevant],
        "cosine_answerable": [r.top_cosine for r in runs if r.relevant],
        "cosine_unanswerable": [r.top_cosine for r in runs if not r.relevant],
    }
    return out


def run_eval(scratch, dataset, paths, tuning: SearchTuning, embedder, reranker, modes=None, index=None):
    service = SearchService(index or scratch.search_index, embedder, reranker, tuning)
    kwargs = {"modes": modes} if modes else {}
    return evaluate_queries(dataset.queries, service, doc_id_lookup(paths),
                            tuning.rerank_thresholds, tuning.cosine_thresholds, **kwargs)


def load_store(base, scratch, dataset, extractor, reranker, work: Path):
    scratch.__dict__["extractor"] = extractor
    scratch.__dict__["reranker"] = reranker
    t0 = time.perf_counter()
    paths, _, failed = ingest_dataset(dataset, work, scratch.ingest.ingest_paths)
    analyze_database(scratch.settings.database_url)  # as autovacuum would: full-text search reads the statistics
    chunks = scratch.search_index.stats()["chunks"]
    print(f"loaded {chunks} chunks in {time.perf_counter() - t0:.1f}s, failed {len(failed)}", flush=True)
    return paths, chunks


def save(report: dict) -> None:
    RESULTS.mkdir(parents=True, exist_ok=True)
    (RESULTS / "tune_retrieval.json").write_text(json.dumps(report, indent=2))


def stage_chunking(base, dataset, extractor, reranker, embedder, report, configs, candidates: int) -> None:
    """Re-ingest per chunking; every mode, with the reranker on `candidates` passages."""
    tuning = dataclasses.replace(SearchTuning(), rerank_candidates=candidates)
    for target, maximum, overlap in configs:
        key = f"{target}/{maximum}/{overlap}"
        base.settings = dataclasses.replace(base.settings, chunk_target=target, chunk_max=maximum, chunk_overlap=overlap)
        with base.scratch() as scratch, tempfile.TemporaryDirectory() as work:
            paths, chunks = load_store(base, scratch, dataset, extractor, reranker, Path(work))
            result = summarise(*run_eval(scratch, dataset, paths, tuning, embedder, reranker))
        result.update(chunks=chunks, rerank_candidates=candidates, thresholds=calibrate(result["_scores"]))
        report["chunking"][key] = result
        print(key, json.dumps({m: result[m] for m in ("dense", "lexical", "hybrid", "hybrid+rerank")}), flush=True)
        print("  verdict", json.dumps({b: {k: v for k, v in t.items() if not k.endswith("scores")}
                                      for b, t in result["thresholds"].items()}), flush=True)
        save(report)


def stage_search(base, dataset, extractor, reranker, embedders, report, chunking, main_embedder: str) -> None:
    """On one chunking, loaded once: query prefix, fusion, rerank depth (with latency), verdict thresholds."""
    target, maximum, overlap = chunking
    base.settings = dataclasses.replace(base.settings, chunk_target=target, chunk_max=maximum, chunk_overlap=overlap)
    embedder = embedders[main_embedder]
    default = SearchTuning()
    with base.scratch() as scratch, tempfile.TemporaryDirectory() as work:
        paths, chunks = load_store(base, scratch, dataset, extractor, reranker, Path(work))
        report["search_stage_chunking"] = f"{target}/{maximum}/{overlap}"
        # Depth first, at 50: it fills the score cache for every smaller depth (a prefix of the same list).
        for n in (50, 40, 30, 20, 10):
            tuning = dataclasses.replace(default, rerank_candidates=n)
            result = summarise(*run_eval(scratch, dataset, paths, tuning, embedder, reranker))
            result["thresholds"] = calibrate(result["_scores"])
            report["rerank_candidates"][str(n)] = result
            print("rerank depth", n, json.dumps(result["hybrid+rerank"]), flush=True)
            save(report)
        for name, emb in (("with prefix", embedders["bge"]), ("no prefix", embedders["none"])):
            result = summarise(*run_eval(scratch, dataset, paths, default, emb, reranker))
            report["prefix"][name] = result
            print(name, json.dumps({m: result[m] for m in ("dense", "hybrid", "hybrid+rerank")}), flush=True)
            save(report)
        for fusion, lexical_weight in (("rrf", 1.0), ("rrf", 0.5), ("rrf", 0.3), ("minmax", 1.0), ("minmax", 0.5),
                                       ("minmax", 0.3)):
            tuning = dataclasses.replace(default, fusion=fusion, lexical_weight=lexical_weight)
            result = summarise(*run_eval(scratch, dataset, paths, tuning, embedder, reranker,
                                         modes=("hybrid", "hybrid+rerank")))
            report["fusion"][f"{fusion} lexical_weight={lexical_weight}"] = result
            print(fusion, lexical_weight, json.dumps({m: result[m] for m in ("hybrid", "hybrid+rerank")}), flush=True)
            save(report)
        # Latency with the real, uncached reranker on the first questions, per depth.
        for n in (10, 20, 30, 40):
            service = SearchService(scratch.search_index, embedder, base.reranker,
                                    dataclasses.replace(default, rerank_candidates=n))
            times = []
            for q in dataset.queries[:15]:
                start = time.perf_counter()
                service.search(q.text, k=8)
                times.append((time.perf_counter() - start) * 1000)
            report["rerank_candidates"][str(n)]["latency_p50_ms"] = round(percentile(times, 50), 1)
            report["rerank_candidates"][str(n)]["latency_p95_ms"] = round(percentile(times, 95), 1)
            print("latency", n, report["rerank_candidates"][str(n)]["latency_p50_ms"], flush=True)
            save(report)


def stage_lead(base, dataset, extractor, reranker, embedder, report, chunking) -> None:
    """How much of a document's opening the reranker reads before each later passage (0: none)."""
    target, maximum, overlap = chunking
    base.settings = dataclasses.replace(base.settings, chunk_target=target, chunk_max=maximum, chunk_overlap=overlap)
    default = SearchTuning()
    with base.scratch() as scratch, tempfile.TemporaryDirectory() as work:
        paths, _ = load_store(base, scratch, dataset, extractor, reranker, Path(work))
        for chars in (0, 150, 300, 500):
            tuning = dataclasses.replace(default, lead_chars=chars)
            modes, verdicts, runs = run_eval(scratch, dataset, paths, tuning, embedder, reranker,
                                             modes=("hybrid", "hybrid+rerank"))
            result = summarise(modes, verdicts, runs)
            result["thresholds"] = calibrate(result["_scores"])
            firsts = [(r.ranked.get("hybrid+rerank") or [None])[0] for r in runs if r.relevant]
            result["top1_correct"] = round(sum(f in r.relevant for f, r in zip(firsts, (r for r in runs if r.relevant)))
                                           / len(firsts), 4)
            service = SearchService(scratch.search_index, embedder, base.reranker, tuning)
            times = []
            for q in dataset.queries[:15]:
                start = time.perf_counter()
                service.search(q.text, k=8)
                times.append((time.perf_counter() - start) * 1000)
            result["latency_p50_ms"] = round(percentile(times, 50), 1)
            result["latency_p95_ms"] = round(percentile(times, 95), 1)
            report["lead_chars"][str(chars)] = result
            print("lead", chars, json.dumps(result["hybrid+rerank"]), "top1", result["top1_correct"],
                  "p50", result["latency_p50_ms"], flush=True)
            save(report)



def stage_lead_latency(base, dataset, extractor, reranker, embedder, report, chunking) -> None:
    """Search latency with and without the lead, interleaved per question so both see the same machine load."""
    target, maximum, overlap = chunking
    base.settings = dataclasses.replace(base.settings, chunk_target=target, chunk_max=maximum, chunk_overlap=overlap)
    with base.scratch() as scratch, tempfile.TemporaryDirectory() as work:
        load_store(base, scratch, dataset, extractor, reranker, Path(work))
        services = {n: SearchService(scratch.search_index, embedder, base.reranker,
                                     dataclasses.replace(SearchTuning(), lead_chars=n)) for n in (0, 300, 500)}
        times: dict[int, list[float]] = {n: [] for n in services}
        for q in dataset.queries[::5]:
            for n, service in services.items():
                start = time.perf_counter()
                service.search(q.text, k=8)
                times[n].append((time.perf_counter() - start) * 1000)
        report["lead_latency"] = {
            "questions": len(times[0]),
            "p50_ms": {str(n): round(percentile(t, 50), 1) for n, t in times.items()},
            "p95_ms": {str(n): round(percentile(t, 95), 1) for n, t in times.items()},
            # per question, time with the lead over time without it, in the same moment of machine load
            "median_ratio_vs_none": {str(n): round(percentile([b / a for a, b in zip(times[0], t)], 50), 3)
                                     for n, t in times.items() if n},
        }
        print("lead latency", json.dumps(report["lead_latency"]), flush=True)
        save(report)


def stage_lexical_pool(base, dataset, extractor, reranker, embedder, report, chunking) -> None:
    """Full-text ranking: ts_rank_cd over every matching row (None) or over ts_rank's best N."""
    from ltm_desktop.adapters.postgres.search_index import PgSearchIndex

    target, maximum, overlap = chunking
    base.settings = dataclasses.replace(base.settings, chunk_target=target, chunk_max=maximum, chunk_overlap=overlap)
    with base.scratch() as scratch, tempfile.TemporaryDirectory() as work:
        paths, _ = load_store(base, scratch, dataset, extractor, reranker, Path(work))
        report["lexical_pool"] = {}
        for pool in (None, 400, 200, 100, 50):
            index = PgSearchIndex(scratch.read_db, lexical_pool=pool)
            result = summarise(*run_eval(scratch, dataset, paths, SearchTuning(), embedder, reranker,
                                         modes=("lexical", "hybrid", "hybrid+rerank"), index=index))
            result.pop("_scores")
            report["lexical_pool"][str(pool)] = result
            print("lexical pool", pool, json.dumps({m: result[m] for m in ("lexical", "hybrid", "hybrid+rerank")}),
                  flush=True)
            save(report)


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--stage", choices=("chunking", "search", "lead", "lead-latency", "lexical-pool", "all"), default="all")
    parser.add_argument("--chunks", action="append", default=[], help="target/max/overlap, e.g. 500/800/80")
    parser.add_argument("--candidates", type=int, default=SearchTuning().rerank_candidates,
                        help="rerank depth during the chunking sweep (default: the shipped one)")
    parser.add_argument("--embed-prefix", choices=("bge", "none"), default="none",
                        help="query embedding for every experiment but the prefix comparison")
    args = parser.parse_args()
    configure_environment()
    home = Path(tempfile.mkdtemp(prefix="ltm-tune-"))
    base = Container(Settings(home=home, models_dir=str(ROOT / ".models"), ingest_workers=1))
    dataset = load_beir(sample_corpus_dir(home / "cache"))
    extractor = CachingExtractor(base.extractor)
    reranker = CachingReranker(base.reranker)
    from ltm_desktop.adapters.fastembed_models import FastEmbedEmbedder

    embedders = {name: FastEmbedEmbedder(base.settings.embed_model, base.models_dir, prefix)
                 for name, prefix in (("bge", BGE_PREFIX), ("none", ""))}
    path = RESULTS / "tune_retrieval.json"
    report = json.loads(path.read_text()) if path.exists() else {}
    report.update(dataset=dataset.name, documents=len(dataset.docs), queries=len(dataset.queries),
                  answerable=len(dataset.answerable))
    for key in ("chunking", "prefix", "fusion", "rerank_candidates", "lead_chars"):
        report.setdefault(key, {})
    configs = [tuple(int(x) for x in c.split("/")) for c in args.chunks] or [
        (1000, 1600, 150), (700, 1100, 100), (500, 800, 80), (350, 600, 60)]
    if args.stage in ("chunking", "all"):
        report["chunking_setup"] = {"rerank_candidates": args.candidates, "query_prefix": args.embed_prefix}
        stage_chunking(base, dataset, extractor, reranker, embedders[args.embed_prefix], report, configs, args.candidates)
    if args.stage in ("search", "all"):
        stage_search(base, dataset, extractor, reranker, embedders, report, configs[0], args.embed_prefix)
    if args.stage in ("lead", "all"):
        stage_lead(base, dataset, extractor, reranker, embedders[args.embed_prefix], report, configs[0])
    if args.stage in ("lead-latency", "all"):
        stage_lead_latency(base, dataset, extractor, reranker, embedders[args.embed_prefix], report, configs[0])
    if args.stage in ("lexical-pool", "all"):
        stage_lexical_pool(base, dataset, extractor, reranker, embedders[args.embed_prefix], report, configs[0])
    save(report)
    plot(report)
    return 0


def calibrate(scores: dict) -> dict:
    out = {}
    for basis in ("rerank", "cosine"):
        ans, una = scores[f"{basis}_answerable"], scores[f"{basis}_unanswerable"]
        # Scores alone, without the detail check: what these stages tune is the score threshold
        judged_ans, judged_una = [(s, ()) for s in ans], [(s, ()) for s in una]
        medium = suggest_medium_threshold(judged_ans, judged_una)
        out[basis] = {
            "suggested_medium": medium,
            "answerable_low": share_low(judged_ans, Thresholds(1e9, medium)) if medium is not None else None,
            "unanswerable_low": share_low(judged_una, Thresholds(1e9, medium)) if medium is not None else None,
            "answerable_scores": sorted(s for s in ans if s is not None),
            "unanswerable_scores": sorted(s for s in una if s is not None),
        }
    return out


def plot(report: dict) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, axes = plt.subplots(1, 4, figsize=(19, 4.2))
    ax = axes[0]
    depth = {int(k): v for k, v in report["rerank_candidates"].items()}
    if depth:
        keys = sorted(depth)
        ax.plot(keys, [depth[k]["hybrid+rerank"]["ndcg_10"] for k in keys], "o-", label="nDCG@10")
        timed = [k for k in keys if "latency_p50_ms" in depth[k]]
        ax2 = ax.twinx()
        ax2.plot(timed, [depth[k]["latency_p50_ms"] for k in timed], "s--", color="grey")
        ax2.set_ylabel("search p50 ms (grey)")
    ax.set_xlabel("candidates reranked")
    ax.set_ylabel("nDCG@10 (hybrid+rerank)")
    ax.set_title("rerank depth: quality vs latency")
    ax = axes[1]
    names = list(report["chunking"])
    ax.bar(range(len(names)), [report["chunking"][n]["hybrid+rerank"]["ndcg_10"] for n in names], color="tab:purple")
    ax.bar(range(len(names)), [report["chunking"][n]["dense"]["ndcg_10"] for n in names], width=0.4, color="tab:blue")
    ax.set_xticks(range(len(names)), names, rotation=15)
    ax.set_ylabel("nDCG@10 (purple: hybrid+rerank, blue: dense)")
    ax.set_title("chunk target/max/overlap (chars)")
    ax = axes[2]
    source = report["chunking"].get(report.get("search_stage_chunking", ""), None) or next(iter(report["chunking"].values()))
    t = source["thresholds"]["rerank"]
    ax.hist([t["answerable_scores"], t["unanswerable_scores"]], bins=30, label=["answerable", "unanswerable"])
    if t["suggested_medium"] is not None:
        ax.axvline(t["suggested_medium"], color="red", label=f"medium = {t['suggested_medium']}")
    ax.set_xlabel("top reranker score")
    ax.legend()
    ax.set_title("verdict calibration")
    ax = axes[3]
    lead = {int(k): v for k, v in report.get("lead_chars", {}).items()}
    if lead:
        keys = sorted(lead)
        ax.plot(keys, [lead[k]["hybrid+rerank"]["ndcg_10"] for k in keys], "o-", label="nDCG@10")
        ax.plot(keys, [lead[k]["hybrid+rerank"]["mrr_10"] for k in keys], "s-", label="MRR@10")
        ax.plot(keys, [lead[k]["top1_correct"] for k in keys], "^-", label="top hit correct")
        ax.legend()
    ax.set_xlabel("characters of the document's opening before each passage")
    ax.set_title("reranker lead")
    fig.tight_layout()
    fig.savefig(RESULTS / "tune_retrieval.png", dpi=110)


if __name__ == "__main__":
    raise SystemExit(main())
