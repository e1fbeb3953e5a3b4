"""Does the cross-encoder judge a passage better when it reads it in short windows?

ms-marco-MiniLM was trained on web passages of ~60-100 words; our chunks run to 1,600 characters, so one sentence that
answers the question is diluted by the rest of a statement or a lease page, and its score (the verdict's evidence)
stays low. For every sample question, the shipped search's 20 reranked candidates are re-scored window by window
(each window read, like the chunk, after its document's context and opening) and a chunk's score becomes its best
window's (or the better of chunk and window). Reported per variant and question set: nDCG@10 / MRR@10 of the
re-sorted candidates, the share of unanswerable questions flagged low when at most 10% of answerable ones are, the
verdict at the best threshold, and the scoring cost.

Run:  LTM_MODELS_DIR=$PWD/.models .venv/bin/python bench/study_window_scores.py
      .venv/bin/python bench/study_window_scores.py --rows bench/results/study_window_scores.json  (re-analyse only)
"""

from __future__ import annotations

import json
import re
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "bench"))

import psycopg  # noqa: E402
from study_verdict import caught_at, low_rates, sample_store, threshold_at  # noqa: E402

from ltm_desktop.core.models import Candidate, SearchFilters  # noqa: E402
from ltm_desktop.services.eval_metrics import mrr_at, ndcg_at  # noqa: E402
from ltm_desktop.services.evaluation import doc_id_lookup  # noqa: E402
from ltm_desktop.services.search import rerank_passage  # noqa: E402

RESULTS = ROOT / "bench" / "results"
WINDOWS = (300, 500)  # window sizes in characters, sentence-aligned
_SENTENCE = re.compile(r"(?<=[.!?:;])\s+|\n+")


def windows(text: str, size: int) -> list[str]:
    """Consecutive pieces of about `size` characters cut at sentence or line ends, each overlapping the last by one."""
    parts = [p for p in _SENTENCE.split(text) if p.strip()]
    out: list[str] = []
    i = 0
    while i < len(parts):
        j, length = i, 0
        while j < len(parts) and (j == i or length + len(parts[j]) <= size):
            length += len(parts[j]) + 1
            j += 1
        out.append(" ".join(parts[i:j]))
        if j >= len(parts):
            break
        i = j - 1 if j - 1 > i else j  # repeat the last sentence so an answer split over two is seen whole
    return out or [text]


def question_rows(container, dataset, lookup, name: str) -> list[dict]:
    search, index, reranker = container.search, container.search_index, container.reranker
    lead_chars = search.tuning.lead_chars
    rows = []
    for n, q in enumerate(dataset.queries, start=1):
        result = search.search(q.text, k=20)
        hits = list(result.hits)
        ids = [h.chunk_id for h in hits]
        details = index.chunk_details(ids, SearchFilters())
        leads = index.leads(ids, lead_chars)
        with psycopg.connect(container.settings.database_url) as conn:
            context = dict(conn.execute("SELECT id, context FROM chunks WHERE id = ANY(%s)", (ids,)).fetchall())
        row = {"id": q.query_id, "set": name, "unanswerable": not q.is_answerable, "question": q.text,
               "relevant": dict(q.relevant), "docs": [lookup(h) for h in hits],
               "chunk": [h.rerank_score for h in hits], "unmentioned": list(result.unmentioned_details),
               "seconds": {}}
        for size in WINDOWS:
            start = time.perf_counter()
            best = []
            for h in hits:
                d = details[h.chunk_id]
                pieces = [rerank_passage(Candidate(h.chunk_id, p, context[h.chunk_id], None, None, None),
                                         leads.get(h.chunk_id, ""), lead_chars) for p in windows(d.text, size)]
                best.append(max(reranker.score(q.text, pieces)) if len(pieces) > 1 else None)
            row[f"w{size}"] = best
            row["seconds"][f"w{size}"] = time.perf_counter() - start
        rows.append(row)
        if n % 25 == 0:
            print(f"{name}: {n}/{len(dataset.queries)}", flush=True)
    return rows


def variant_scores(row: dict, variant: str) -> list[float]:
    chunk = row["chunk"]
    if variant == "chunk":
        return chunk
    size, how = variant.split(":")
    win = [w if w is not None else c for w, c in zip(row[size], chunk)]
    if how == "window":
        return win
    if how == "max":
        return [max(w, c) for w, c in zip(win, chunk)]
    if how == "mean":
        return [(w + c) / 2 for w, c in zip(win, chunk)]
    raise ValueError(variant)


def analyse(rows: list[dict]) -> dict:
    variants = ["chunk"] + [f"w{s}:{how}" for s in WINDOWS for how in ("window", "max", "mean")]
    report: dict = {}
    for name in sorted({r["set"] for r in rows}):
        rs = [r for r in rows if r["set"] == name]
        una = [r["unanswerable"] for r in rs]
        out = {}
        for v in variants:
            tops, ndcg, mrr = [], [], []
            for r in rs:
                s = variant_scores(r, v)
                order = sorted(range(len(s)), key=lambda i: -s[i])
                ranked = list(dict.fromkeys(doc for i in order for doc in r["docs"][i]))
                tops.append(max(s) if s else -20.0)
                if r["relevant"]:
                    ndcg.append(ndcg_at(ranked, r["relevant"], 10))
                    mrr.append(mrr_at(ranked, r["relevant"], 10))
            threshold = threshold_at(tops, una)
            out[v] = {
                "ndcg_10": round(sum(ndcg) / len(ndcg), 4), "mrr_10": round(sum(mrr) / len(mrr), 4),
                "caught_at_10pct_answerable_low": caught_at(tops, una),
                "threshold_at_10pct": round(threshold, 2),
                "with_detail_check_at_that_threshold": low_rates(
                    [dict(r, top=t) for r, t in zip(rs, tops)], lambda r, th=threshold: r["top"] < th or bool(r["unmentioned"])),
                "sweep": {str(t): low_rates([dict(r, top=x) for r, x in zip(rs, tops)],
                                            lambda r, t=t: r["top"] < t or bool(r["unmentioned"]))
                          for t in (-2, -1, 0, 1, 2, 3, 4)},
            }
        secs = {k: sorted(r["seconds"][k] for r in rs) for k in rs[0]["seconds"]}
        out["median_extra_seconds_per_question"] = {k: round(v[len(v) // 2], 3) for k, v in secs.items()}
        report[name] = out
    return report


def main() -> int:
    if sys.argv[1:2] == ["--rows"]:
        rows = json.loads(Path(sys.argv[2]).read_text())["rows"]
    else:
        rows = []
        with sample_store("ltm-windows-") as (scratch, sets, paths):
            for name, questions in sets.items():
                rows += question_rows(scratch, questions, doc_id_lookup(paths), name)
    report = {"analysis": analyse(rows), "rows": rows}
    RESULTS.mkdir(parents=True, exist_ok=True)
    (RESULTS / "study_window_scores.json").write_text(json.dumps(report, indent=2))
    print(json.dumps(report["analysis"], indent=2))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
