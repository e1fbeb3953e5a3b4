"""Should the verdict's evidence be the best passage that names every detail of the question?

The first detail check capped the verdict when a detail (year, month, unit, amount, street) was named by none of the
best 3 passages. A question about "the radon test at 14 Oak St" escapes it when the best passage is Birch Lane's
radon report (score 4.3) and the third is an Oak Street furnace inspection: Oak Street is named, but not by the
passage that carries the score. The alternative (now shipped): judge on the best-scoring passage among the best 3 that, read with
its path and opening, names every detail (none: low). Only questions with details can change, so only those are
searched. Reported per question set: unanswerable / answerable flagged low under each rule, at the shipped
thresholds. Results: bench/results/study_detail_per_passage.json.

Run:  LTM_MODELS_DIR=$PWD/.models .venv/bin/python bench/study_detail_per_passage.py
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "bench"))

import psycopg  # noqa: E402

from study_verdict import sample_store  # noqa: E402

from ltm_desktop.core.confidence import RERANK_THRESHOLDS  # noqa: E402
from ltm_desktop.core.question_details import details_of, is_mentioned  # noqa: E402
from ltm_desktop.services.search import DETAIL_LEAD_CHARS, DETAIL_PASSAGES  # noqa: E402

RESULTS = ROOT / "bench" / "results"


def rows_for(scratch, dataset, name: str) -> list[dict]:
    rows = []
    for q in dataset.queries:
        details = details_of(q.text)
        if not details:
            continue
        result = scratch.search.search(q.text, k=20)
        top = list(result.hits[:DETAIL_PASSAGES])
        ids = [h.chunk_id for h in top]
        openings = scratch.search_index.leads(ids, DETAIL_LEAD_CHARS)
        with psycopg.connect(scratch.settings.database_url) as conn:
            found = conn.execute("SELECT id, context, text FROM chunks WHERE id = ANY(%s)", (ids,)).fetchall()
        body = {cid: (context, text) for cid, context, text in found}
        passages = [f"{h.path}\n{body[h.chunk_id][0]}\n{openings.get(h.chunk_id, '')}\n{body[h.chunk_id][1]}" for h in top]
        rows.append({
            "id": q.query_id, "set": name, "unanswerable": not q.is_answerable, "question": q.text,
            "details": [d.label for d in details], "shipped": result.confidence,  # the per-passage rule now
            "top_score": max((h.rerank_score for h in result.hits if h.rerank_score is not None), default=None),
            "passages": [{"path": h.path, "score": h.rerank_score,
                          "missing": [d.label for d in details if not is_mentioned(d, p)]} for h, p in zip(top, passages)],
        })
    return rows


def _by_score(score: float | None) -> str:
    t = RERANK_THRESHOLDS
    if score is None or score < t.medium:
        return "low"
    return "high" if score >= t.high else "medium"


def any_passage_verdict(row: dict) -> str:
    """The first rule: the result's best score, made low when a detail is named by none of the best 3 passages."""
    if any(all(d in p["missing"] for p in row["passages"]) for d in row["details"]):
        return "low"
    return _by_score(row["top_score"])


def per_passage_verdict(row: dict) -> str:
    supported = [p["score"] for p in row["passages"] if not p["missing"] and p["score"] is not None]
    return _by_score(max(supported, default=None))


def analyse(rows: list[dict], totals: dict[str, dict[str, int]]) -> dict:
    out = {}
    for name, total in totals.items():
        rs = [r for r in rows if r["set"] == name]
        for rule, verdict_of in (("before (a detail in none of the best 3)", any_passage_verdict),
                                 ("per passage, shipped (best passage naming every detail)", per_passage_verdict)):
            changed = {"unanswerable": sum(verdict_of(r) == "low" for r in rs if r["unanswerable"]),
                       "answerable": sum(verdict_of(r) == "low" for r in rs if not r["unanswerable"])}
            out.setdefault(name, {})[rule] = {
                "low_among_questions_with_details": changed,
                "questions_with_details": {"unanswerable": sum(r["unanswerable"] for r in rs),
                                           "answerable": sum(not r["unanswerable"] for r in rs)},
                "high_among_unanswerable_with_details": sum(verdict_of(r) == "high" for r in rs if r["unanswerable"]),
            }
        out[name]["questions"] = total
        out[name]["changed"] = [
            {"id": r["id"], "question": r["question"], "unanswerable": r["unanswerable"], "before": any_passage_verdict(r),
             "per_passage": per_passage_verdict(r), "passages": r["passages"]}
            for r in rs if (any_passage_verdict(r) == "low") != (per_passage_verdict(r) == "low")]
    return out


def main() -> int:
    rows, totals = [], {}
    with sample_store("ltm-detail-") as (scratch, sets, _):
        for name, questions in sets.items():
            rows += rows_for(scratch, questions, name)
            totals[name] = {"unanswerable": sum(not q.is_answerable for q in questions.queries),
                            "answerable": sum(q.is_answerable for q in questions.queries)}
    report = {"analysis": analyse(rows, totals), "rows": rows}
    RESULTS.mkdir(parents=True, exist_ok=True)
    (RESULTS / "study_detail_per_passage.json").write_text(json.dumps(report, indent=2))
    print(json.dumps(report["analysis"], indent=2))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
