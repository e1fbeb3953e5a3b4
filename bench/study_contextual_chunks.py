"""Would the first stage find more at scale if each chunk were indexed with its document's opening?

At 100k chunks the first stage decides (docs/retrieval.md, "At scale"): hybrid Recall@10 is 0.44 / 0.50 and neither
the reranker nor a deeper rerank brings back what it missed. The reranker gained most from reading each passage
after its document's opening (who, where, what kind of paper); the retrievers never see it. This study copies the
haystack store of bench/haystack_eval.py, rewrites the sample documents' later chunks so that their context line
carries the first 300 characters of their document (which both the embedding and the full-text vector are made
from), re-embeds them, and compares dense / lexical / hybrid retrieval on both question sets before and after, on the
same store. The synthetic chunks stay as they are: each is its own one-chunk document. Nothing in the app changes;
results: bench/results/study_contextual_chunks.json.

Run (after bench/haystack_eval.py --store /tmp/haystack):
      LTM_MODELS_DIR=.models .venv/bin/python bench/study_contextual_chunks.py --store /tmp/haystack --copy /tmp/haystack-ctx
"""

from __future__ import annotations

import argparse
import json
import shutil
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "bench"))

from bench_search import stop_store  # noqa: E402
from haystack_eval import judged_lookup, open_haystack  # noqa: E402

from ltm_desktop.adapters.postgres.scratch_store import analyze_database  # noqa: E402
from ltm_desktop.bootstrap import configure_environment  # noqa: E402
from ltm_desktop.sample_corpus import sample_corpus_dir, sample_questions_dir  # noqa: E402
from ltm_desktop.services.eval_dataset import load_beir, with_questions  # noqa: E402
from ltm_desktop.services.evaluation import evaluate_queries  # noqa: E402

RESULTS = ROOT / "bench" / "results"
LEAD_CHARS = 300  # as the reranker reads it


def retrieval(store, sets, paths) -> dict:
    service = store.search
    out = {}
    for name, questions in sets.items():
        modes, _, _ = evaluate_queries(questions.queries, service, judged_lookup(paths),
                                       service.tuning.rerank_thresholds, service.tuning.cosine_thresholds,
                                       modes=("dense", "lexical", "hybrid"))
        out[name] = {m.mode: {"ndcg_10": m.ndcg_10, "recall_10": m.recall_10, "recall_50": m.recall_50} for m in modes}
    return out


def add_openings(store) -> int:
    """Put each later chunk's document opening into its context line, and re-embed it as ingestion would."""
    with store.write_db.connection() as conn:
        rows = conn.execute(
            """SELECT c.id, c.context, c.text, left(f.text, %s) FROM chunks c
               JOIN chunks f ON f.sha256 = c.sha256 AND f.ordinal = 0
               WHERE c.ordinal > 0 AND c.sha256 IN (SELECT sha256 FROM documents WHERE path NOT LIKE '/synthetic/%%')""",
            (LEAD_CHARS,),
        ).fetchall()
        contexts = [f"{ctx}\n{' '.join(lead.split())}" for _, ctx, _, lead in rows]
        vectors = store.embedder.embed_documents([f"{ctx}\n{text}" for ctx, (_, _, text, _) in zip(contexts, rows)])
        for (cid, _, _, _), ctx, vec in zip(rows, contexts, vectors):
            conn.execute("UPDATE chunks SET context = %s WHERE id = %s", (ctx, cid))
            conn.execute("UPDATE chunk_embeddings SET embedding = %s::vector WHERE chunk_id = %s", (str(vec), cid))
    return len(rows)


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--store", type=Path, required=True, help="the folder of bench/haystack_eval.py --store")
    parser.add_argument("--copy", type=Path, required=True, help="where to copy it (rewritten by this study)")
    args = parser.parse_args()
    configure_environment()
    if args.copy.exists():
        shutil.rmtree(args.copy)
    # cp -a keeps owners: started by root, the embedded Postgres runs as its own user and owns its data folder
    subprocess.run(["cp", "-a", str(args.store), str(args.copy)], check=True)
    store, paths = open_haystack(args.copy, ROOT / ".models", 0)
    try:
        dataset = load_beir(sample_corpus_dir(args.copy / "cache"))
        sets = {"generated": dataset, "hand-written": with_questions(dataset, sample_questions_dir())}
        report = {"before": retrieval(store, sets, paths)}
        print("before", json.dumps(report["before"]), flush=True)
        report["chunks_rewritten"] = add_openings(store)
        analyze_database(store.write_db.conninfo)
        report["after"] = retrieval(store, sets, paths)
        print("after", json.dumps(report["after"]), flush=True)
        RESULTS.mkdir(parents=True, exist_ok=True)
        (RESULTS / "study_contextual_chunks.json").write_text(json.dumps(report, indent=2))
    finally:
        stop_store(store)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
