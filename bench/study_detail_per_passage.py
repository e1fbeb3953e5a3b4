"""Should the verdict's evidence be the best passage that names every detail of the question?

The shipped detail check caps the verdict when a detail (year, month, unit, amount, street) is named by none of the
best 3 passages. A question about "the radon test at 14 Oak St" escapes it when the best passage is Birch Lane's
radon report (score 4.3) and the third is an Oak Street furnace inspection: Oak Street is named, but not by the
passage that carries the score. The alternative: judge on the best-scoring passage among the best 3 that, read with
its path and opening, names every detail (none: low). Only questions with details can change, so only those are
searched. Reported per question set: unanswerable / answerable flagged low under each rule, at the shipped
thresholds. Results: bench/results/study_detail_per_passage.json.

Run:  LTM_MODELS_DIR=$PWD/.models .venv/bin/python bench/study_detail_per_passage.py
"""

from __future__ import annotations

import json
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

import psycopg  # noqa: E402

from ltm_desktop.adapters.postgres.scratch_store import analyze_database  # noqa: E402
from ltm_desktop.bootstrap import Container, configure_environment  # noqa: E402
from ltm_desktop.core.confidence import RERANK_THRESHOLDS  # noqa: E402
from ltm_desktop.core.question_details import details_of, is_mentioned  # noqa: E402
from ltm_desktop.sample_corpus import sample_corpus_dir, sample_questions_dir  # noqa: E402
from ltm_desktop.services.eval_dataset import load_beir, with_questions  # noqa: E402
from ltm_desktop.services.evaluation import ingest_dataset  # noqa: E402
from ltm_desktop.services.search import DETAIL_LEAD_CHARS, DETAIL_PASSAGES  # noqa: E402
from ltm_desktop.settings import Settings  # noqa: E402

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
            "details": [d.label for d in details], "shipped": result.confidence,
            "top_score": max((h.rerank_score for h in result.hits if h.rerank_score is not None), default=None),
            "passages": [{"path": h.path, "score": h.rerank_score,
                          "missing": [d.label for d in details if not is_mentioned(d, p)]} for h, p in zip(top, passages)],
        })
    return rows


def per_passage_verdict(row: dict) -> str:
    supported = [p["score"] for p in row["passages"] if not p["missing"] and p["score"] is not None]
    best = max(supported, default=None)
    t = RERANK_THRESHOLDS
    if best is None or best < t.medium:
        return "low"
    return "high" if best >= t.high else "medium"


def analyse(rows: list[dict], totals: dict[str, dict[str, int]]) -> dict:
    out = {}
    for name, total in totals.items():
        rs = [r for r in rows if r["set"] == name]
        for rule, verdict_of in (("shipped (a detail in none of the best 3)", lambda r: r["shipped"]),
                                 ("per passage (best passage naming every detail)", per_passage_verdict)):
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
            {"id": r["id"], "question": r["question"], "unanswerable": r["unanswerable"], "shipped": r["shipped"],
             "per_passage": per_passage_verdict(r), "passages": r["passages"]}
            for r in rs if (r["shipped"] == "low") != (per_passage_verdict(r) == "low")]
    return out


def main() -> int:
    configure_environment()
    home = Path(tempfile.mkdtemp(prefix="ltm-detail-"))
    base = Container(Settings(home=home, models_dir=str(ROOT / ".models"), ingest_workers=1))
    dataset = load_beir(sample_corpus_dir(home / "cache"))
    sets = {"generated": dataset, "hand-written": with_questions(dataset, sample_questions_dir())}
    rows, totals = [], {}
    with base.scratch() as scratch, tempfile.TemporaryDirectory() as work:
        ingest_dataset(dataset, Path(work), scratch.ingest.ingest_paths)
        analyze_database(scratch.settings.database_url)
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
