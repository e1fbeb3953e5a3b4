"""Full text's retry when a question's rare words are in no document, measured at scale.

The full-text query ORs a question's rare terms and drops its common ones; a term missing from the statistics counts
as rare. When those rare terms are in no document at all, the query matched nothing, and full text contributed
nothing to the hybrid ranking. The retry asks for the question's known (statistics-listed) terms together instead
(fulltext.tsquery_cte_known_terms; PgSearchIndex(retry_known_terms=True)); it was not kept. Here, on the haystack
store (the sample corpus among 100,000 synthetic chunks, bench/haystack_eval.py), both question sets run with and
without the retry: how many questions full text answered with nothing, and lexical / hybrid / hybrid + rerank
nDCG@10, Recall@10 and MRR@10 (hits on synthetic chunks count as wrong). Results:
bench/results/study_fulltext_retry.json.

Run:  LTM_MODELS_DIR=$PWD/.models .venv/bin/python bench/study_fulltext_retry.py --store /tmp/haystack [--quick]
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "bench"))

from bench_search import stop_store  # noqa: E402
from haystack_eval import lexical_ms, open_haystack, score_sets  # noqa: E402

from ltm_desktop.adapters.postgres.search_index import PgSearchIndex  # noqa: E402
from ltm_desktop.bootstrap import configure_environment  # noqa: E402
from ltm_desktop.core.models import SearchFilters  # noqa: E402
from ltm_desktop.sample_corpus import sample_corpus_dir, sample_questions_dir  # noqa: E402
from ltm_desktop.services.eval_dataset import load_beir, with_questions  # noqa: E402
from ltm_desktop.services.search import SearchService  # noqa: E402

RESULTS = ROOT / "bench" / "results"


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--store", type=Path, required=True, help="a haystack store folder (bench/haystack_eval.py --store)")
    parser.add_argument("--chunks", type=int, default=100_000)
    parser.add_argument("--quick", action="store_true", help="no reranked runs")
    args = parser.parse_args()
    configure_environment()
    store, paths = open_haystack(args.store, ROOT / ".models", args.chunks)
    report: dict = {"chunks": store.search_index.stats()["chunks"], "variants": {}}
    try:
        dataset = load_beir(sample_corpus_dir(args.store / "cache"))
        sets = {"generated": dataset, "hand-written": with_questions(dataset, sample_questions_dir())}
        for label, retry in (("retry", True), ("no retry (shipped)", False)):
            index = PgSearchIndex(store.read_db, retry_known_terms=retry)
            service = SearchService(index, store.embedder, store.reranker)
            modes = ("lexical", "hybrid") if args.quick else ("lexical", "hybrid", "hybrid+rerank")
            result = score_sets(service, sets, paths, modes)
            for name, questions in sets.items():
                result[name]["questions_full_text_found_nothing_for"] = sum(
                    not index.lexical(q.text, 50, SearchFilters()) for q in questions.queries)
                result[name]["questions"] = len(questions.queries)
            result["lexical_sql"] = lexical_ms(index, [q for s in sets.values() for q in s.queries])
            report["variants"][label] = result
            print(label, json.dumps(result, indent=1), flush=True)
    finally:
        stop_store(store)
    RESULTS.mkdir(parents=True, exist_ok=True)
    (RESULTS / "study_fulltext_retry.json").write_text(json.dumps(report, indent=2))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
