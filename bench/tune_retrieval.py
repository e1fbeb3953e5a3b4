"""Tune the retrieval defaults on the sample corpus and record the evidence (bench/results/tune_retrieval.json + PNG).

Each experiment loads the sample corpus into a throwaway store and runs the `ltm eval` metrics:
  1. chunk size and overlap (re-ingesting; OCR and extraction are cached between runs),
  2. the bge query instruction prefix on and off,
  3. fusion: RRF vs min-max (rank-normalised) fusion and the lexical weight,
  4. how many fused candidates the reranker rescoring (quality vs measured latency),
  5. the verdict thresholds, calibrated on the best configuration's scores.
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


def run_eval(scratch, dataset, paths, tuning: SearchTuning, embedder, reranker, modes=None):
    service = SearchService(scratch.search_index, embedder, reranker, tuning)
    kwargs = {"modes": modes} if modes else {}
    return evaluate_queries(dataset.queries, service, doc_id_lookup(paths),
                            tuning.rerank_thresholds, tuning.cosine_thresholds, **kwargs)


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--quick", action="store_true", help="fewer configurations (for a smoke run)")
    args = parser.parse_args()
    configure_environment()
    home = Path(tempfile.mkdtemp(prefix="ltm-tune-"))
    base = Container(Settings(home=home, models_dir=str(ROOT / ".models"), ingest_workers=1))
    dataset = load_beir(sample_corpus_dir(home / "cache"))
    extractor = CachingExtractor(base.extractor)
    reranker = CachingReranker(base.reranker)
    embedder = base.embedder
    from ltm_desktop.adapters.fastembed_models import FastEmbedEmbedder

    plain = FastEmbedEmbedder(base.settings.embed_model, base.models_dir, "")
    report: dict = {"dataset": dataset.name, "documents": len(dataset.docs), "queries": len(dataset.queries),
                    "answerable": len(dataset.answerable), "chunking": {}, "prefix": {}, "fusion": {},
                    "rerank_candidates": {}}
    chunk_configs = [(1000, 1600, 150), (500, 800, 80), (1500, 2000, 200), (1000, 1600, 0)]
    if args.quick:
        chunk_configs = chunk_configs[:1]
    default = SearchTuning()
    for target, maximum, overlap in chunk_configs:
        key = f"{target}/{maximum}/{overlap}"
        settings = dataclasses.replace(base.settings, chunk_target=target, chunk_max=maximum, chunk_overlap=overlap)
        base.settings = settings
        with base.scratch() as scratch, tempfile.TemporaryDirectory() as work:
            scratch.__dict__["extractor"] = extractor
            scratch.__dict__["reranker"] = reranker
            t0 = time.perf_counter()
            paths, _, failed = ingest_dataset(dataset, Path(work), scratch.ingest.ingest_paths)
            chunks = scratch.search_index.stats()["chunks"]
            print(f"chunking {key}: {chunks} chunks, ingest {time.perf_counter() - t0:.1f}s, failed {len(failed)}")
            result = summarise(*run_eval(scratch, dataset, paths, default, embedder, reranker))
            result["chunks"] = chunks
            report["chunking"][key] = result
            print(json.dumps({m: result[m] for m in ("dense", "hybrid", "hybrid+rerank")}))
            if (target, maximum, overlap) != chunk_configs[0]:
                continue
            # Everything below runs on the shipped chunking, with the store loaded once.
            for name, emb in (("with prefix", embedder), ("no prefix", plain)):
                report["prefix"][name] = summarise(*run_eval(scratch, dataset, paths, default, emb, reranker))
                print(name, json.dumps({m: report["prefix"][name][m] for m in ("dense", "hybrid", "hybrid+rerank")}))
            fusions = [("rrf", 1.0), ("rrf", 0.5), ("rrf", 0.3), ("minmax", 1.0), ("minmax", 0.5), ("minmax", 0.3)]
            for fusion, lexical_weight in fusions[: 2 if args.quick else None]:
                tuning = dataclasses.replace(default, fusion=fusion, lexical_weight=lexical_weight)
                result = summarise(*run_eval(scratch, dataset, paths, tuning, embedder, reranker,
                                             modes=("hybrid", "hybrid+rerank")))
                report["fusion"][f"{fusion} lexical_weight={lexical_weight}"] = result
                print(fusion, lexical_weight, json.dumps({m: result[m] for m in ("hybrid", "hybrid+rerank")}))
            for n in (10, 20, 30, 40, 50):
                tuning = dataclasses.replace(default, rerank_candidates=n)
                result = summarise(*run_eval(scratch, dataset, paths, tuning, embedder, reranker,
                                             modes=("hybrid", "hybrid+rerank")))
                # Latency with the real reranker, uncached, on the first 30 questions.
                service = SearchService(scratch.search_index, embedder, base.reranker, tuning)
                times = []
                for q in dataset.queries[:30]:
                    start = time.perf_counter()
                    service.search(q.text, k=8)
                    times.append((time.perf_counter() - start) * 1000)
                result["latency_p50_ms"] = round(percentile(times, 50), 1)
                result["latency_p95_ms"] = round(percentile(times, 95), 1)
                report["rerank_candidates"][str(n)] = result
                print("rerank", n, result["hybrid+rerank"], result["latency_p50_ms"], result["latency_p95_ms"])
    shipped = report["chunking"][f"{chunk_configs[0][0]}/{chunk_configs[0][1]}/{chunk_configs[0][2]}"]["_scores"]
    report["thresholds"] = calibrate(shipped)
    print(json.dumps(report["thresholds"], indent=2))
    RESULTS.mkdir(parents=True, exist_ok=True)
    (RESULTS / "tune_retrieval.json").write_text(json.dumps(report, indent=2))
    plot(report)
    return 0


def calibrate(scores: dict) -> dict:
    out = {}
    for basis in ("rerank", "cosine"):
        ans, una = scores[f"{basis}_answerable"], scores[f"{basis}_unanswerable"]
        medium = suggest_medium_threshold(ans, una)
        out[basis] = {
            "suggested_medium": medium,
            "answerable_low": share_low(ans, Thresholds(1e9, medium)) if medium is not None else None,
            "unanswerable_low": share_low(una, Thresholds(1e9, medium)) if medium is not None else None,
            "answerable_scores": sorted(s for s in ans if s is not None),
            "unanswerable_scores": sorted(s for s in una if s is not None),
        }
    return out


def plot(report: dict) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, axes = plt.subplots(1, 3, figsize=(15, 4.2))
    ax = axes[0]
    keys = list(report["rerank_candidates"])
    ax.plot([int(k) for k in keys], [report["rerank_candidates"][k]["hybrid+rerank"]["ndcg_10"] for k in keys], "o-")
    ax.set_xlabel("candidates reranked")
    ax.set_ylabel("nDCG@10 (hybrid+rerank)")
    ax2 = ax.twinx()
    ax2.plot([int(k) for k in keys], [report["rerank_candidates"][k]["latency_p50_ms"] for k in keys], "s--", color="grey")
    ax2.set_ylabel("search p50 ms (grey)")
    ax.set_title("rerank depth: quality vs latency")
    ax = axes[1]
    names = list(report["chunking"])
    ax.bar(range(len(names)), [report["chunking"][n]["hybrid+rerank"]["ndcg_10"] for n in names], color="tab:purple")
    ax.bar(range(len(names)), [report["chunking"][n]["dense"]["ndcg_10"] for n in names], width=0.4, color="tab:blue")
    ax.set_xticks(range(len(names)), names, rotation=15)
    ax.set_ylabel("nDCG@10 (purple: hybrid+rerank, blue: dense)")
    ax.set_title("chunk target/max/overlap (chars)")
    ax = axes[2]
    t = report["thresholds"]["rerank"]
    ax.hist([t["answerable_scores"], t["unanswerable_scores"]], bins=30, label=["answerable", "unanswerable"])
    if t["suggested_medium"] is not None:
        ax.axvline(t["suggested_medium"], color="red", label=f"medium = {t['suggested_medium']}")
    ax.set_xlabel("top reranker score")
    ax.legend()
    ax.set_title("verdict calibration")
    fig.tight_layout()
    fig.savefig(RESULTS / "tune_retrieval.png", dpi=110)


if __name__ == "__main__":
    raise SystemExit(main())
