"""Ranking metrics, verdict calibration and the BEIR loader's line-exact errors (pure logic, no store)."""

from __future__ import annotations

import dataclasses
import json
import math
from pathlib import Path

import pytest

from ltm_desktop.core.confidence import Thresholds
from ltm_desktop.services.eval_dataset import DatasetError, load_beir, with_questions
from ltm_desktop.services.eval_metrics import mrr_at, ndcg_at, percentile, recall_at, unique_in_order
from ltm_desktop.services.evaluation import QueryRun, score_modes, share_low, suggest_medium_threshold, verdict_figures


def test_ndcg_rewards_relevant_documents_ranked_higher():
    rel = {"a": 2, "b": 1}
    assert ndcg_at(["a", "b", "x"], rel, 10) == pytest.approx(1.0)
    # a at rank 2, b at rank 3: gains discounted by log2(3) and log2(4), over the ideal 2 + 1/log2(3).
    expected = (2 / math.log2(3) + 1 / math.log2(4)) / (2 + 1 / math.log2(3))
    assert ndcg_at(["x", "a", "b"], rel, 10) == pytest.approx(expected)
    assert ndcg_at(["x", "y"], rel, 10) == 0.0
    assert ndcg_at(["x", "a"], rel, 1) == 0.0  # cut at k


def test_recall_and_mrr_count_within_k():
    rel = {"a": 1, "b": 1}
    assert recall_at(["a", "x", "b"], rel, 2) == 0.5
    assert recall_at(["a", "x", "b"], rel, 3) == 1.0
    assert mrr_at(["x", "y", "b"], rel, 10) == pytest.approx(1 / 3)
    assert mrr_at(["x", "y", "b"], rel, 2) == 0.0


def test_percentile_interpolates_and_documents_count_once():
    assert percentile([10, 20, 30, 40], 50) == 25
    assert percentile([5], 95) == 5
    assert unique_in_order(["a", "b", "a", "c", "b"]) == ["a", "b", "c"]


def _run(qid: str, relevant: dict[str, int], top: float | None, ranked: list[str] | None = None) -> QueryRun:
    ranked = ranked or []
    return QueryRun(qid, qid, relevant, {"hybrid": ranked}, {"hybrid": 5.0}, top, top,
                    rerank_evidence=top, cosine_evidence=top)


def test_scores_average_over_answerable_questions_only():
    runs = [_run("q1", {"a": 1}, 3.0, ["a"]), _run("q2", {"b": 1}, 2.0, ["x", "b"]), _run("u1", {}, -5.0, ["a"])]
    (scores,) = score_modes(runs, ("hybrid",))
    assert scores.mrr_10 == pytest.approx((1 + 0.5) / 2)
    assert scores.recall_10 == 1.0


def test_verdict_figures_split_answerable_from_unanswerable():
    runs = [_run(f"q{i}", {"a": 1}, s) for i, s in enumerate([6.0, 4.0, 2.0, 0.5])]
    runs += [_run(f"u{i}", {}, s) for i, s in enumerate([-6.0, -2.0, 1.5])]
    rerank, _cosine = verdict_figures(runs, Thresholds(5.0, 1.0), Thresholds(0.8, 0.7))
    assert rerank.answerable_flagged_low == 0.25  # 0.5 < 1.0
    assert rerank.unanswerable_flagged_low == pytest.approx(2 / 3, abs=1e-4)  # rounded to 4 places
    assert not rerank.meets_target


def test_suggested_threshold_keeps_answerable_low_within_the_target():
    answerable = [(float(s), float(s)) for s in range(1, 21)]  # 20 scores 1..20: 10% is two of them
    unanswerable = [(-3.0, -3.0), (0.0, 0.0), (2.4, 2.4), (8.0, 8.0)]
    t = suggest_medium_threshold(answerable, unanswerable)
    assert 2 < t < 3
    assert share_low(answerable, Thresholds(99, t)) == 0.10
    assert share_low(unanswerable, Thresholds(99, t)) == 0.75
    # A question with no score at all is always low, so it uses up the allowance first.
    assert suggest_medium_threshold([(None, None), (None, None), *answerable[2:]], unanswerable) < 3
    # So is one with no passage naming the question's details to rest on, whatever its best score.
    assert suggest_medium_threshold([(19.0, None), (20.0, None), *answerable[2:]], unanswerable) < 3
    # The threshold applies to the score the verdict rests on, not to the best score.
    assert suggest_medium_threshold([(19.0, -1.0), (20.0, 0.0), *answerable[2:]], unanswerable) < 3


def test_the_figures_judge_the_score_the_verdict_rests_on():
    runs = [_run(f"q{i}", {"a": 1}, s) for i, s in enumerate([6.0, 4.0, 2.0, 0.5])]
    runs += [_run("u0", {}, -6.0), dataclasses.replace(_run("u1", {}, 8.0), rerank_evidence=None),
             dataclasses.replace(_run("u2", {}, 7.0), rerank_evidence=-2.0)]
    rerank, cosine = verdict_figures(runs, Thresholds(5.0, 1.0), Thresholds(0.8, 0.7))
    # 8.0 and 7.0 would be "high", but no passage naming the details scored (u1), or the one that did scored -2 (u2)
    assert rerank.unanswerable_flagged_low == 1.0
    assert cosine.unanswerable_flagged_low == pytest.approx(1 / 3, abs=1e-4)  # the cosine search's evidence was its best
    assert (rerank.unanswerable_low_by_details, rerank.answerable_low_by_details) == (2, 0)


# ---- the BEIR loader: every malformed input names its file and line ----------------------------------


def _dataset(root: Path, corpus: list[str] | None = None, queries: list[str] | None = None,
             qrels: list[str] | None = None) -> Path:
    (root / "qrels").mkdir(parents=True, exist_ok=True)
    corpus = corpus if corpus is not None else [
        json.dumps({"_id": "d1", "title": "Lease", "text": "rent is due on the first"}),
        json.dumps({"_id": "d2", "title": "Roof", "text": "three shingles missing"}),
    ]
    queries = queries if queries is not None else [
        json.dumps({"_id": "q1", "text": "when is rent due"}), json.dumps({"_id": "q2", "text": "weather tomorrow"}),
    ]
    qrels = qrels if qrels is not None else ["query-id\tcorpus-id\tscore", "q1\td1\t1"]
    (root / "corpus.jsonl").write_text("\n".join(corpus) + "\n", encoding="utf-8")
    (root / "queries.jsonl").write_text("\n".join(queries) + "\n", encoding="utf-8")
    (root / "qrels" / "test.tsv").write_text("\n".join(qrels) + "\n", encoding="utf-8")
    return root


def test_a_valid_dataset_loads_with_unjudged_queries_as_unanswerable(tmp_path):
    ds = load_beir(_dataset(tmp_path / "ds"))
    assert [d.doc_id for d in ds.docs] == ["d1", "d2"]
    assert [q.query_id for q in ds.answerable] == ["q1"]
    assert [q.query_id for q in ds.unanswerable] == ["q2"]


@pytest.mark.parametrize("missing", ["corpus.jsonl", "queries.jsonl", "qrels/test.tsv"])
def test_missing_files_are_named(tmp_path, missing):
    root = _dataset(tmp_path / "ds")
    (root / missing).unlink()
    with pytest.raises(DatasetError, match=missing.replace(".", r"\.") + " is missing"):
        load_beir(root)


def test_not_a_folder(tmp_path):
    with pytest.raises(DatasetError, match="is not a folder"):
        load_beir(tmp_path / "nope")


@pytest.mark.parametrize(
    ("corpus", "message"),
    [
        (['{"_id": "d1", "text": "ok"}', '{"_id": "d2", "text": "broken'], r"corpus\.jsonl line 2: not valid JSON"),
        (['{"_id": "d1", "text": "ok"}', "", '["a list"]'], r"corpus\.jsonl line 3: expected a JSON object"),
        (['{"text": "no id"}'], r"corpus\.jsonl line 1: field '_id' must be a non-empty string"),
        (['{"_id": "d1", "text": "a"}', '{"_id": "d1", "text": "b"}'], r"corpus\.jsonl line 2: duplicate _id 'd1'"),
        (['{"_id": "d1"}'], r"corpus\.jsonl line 1: field 'text' must be a non-empty string"),
        (['{"_id": "d1", "file": "files/none.pdf"}'], r"corpus\.jsonl line 1: file 'files/none.pdf' does not exist"),
        (['{"_id": "d1", "file": "../outside.txt"}'], r"corpus\.jsonl line 1: file '../outside.txt' lies outside"),
    ],
)
def test_bad_corpus_lines_are_reported_by_line(tmp_path, corpus, message):
    (tmp_path / "outside.txt").write_text("x")
    root = _dataset(tmp_path / "ds", corpus=corpus, qrels=["q1\td1\t1"])
    with pytest.raises(DatasetError, match=message):
        load_beir(root)


def test_bad_query_line_is_reported_by_line(tmp_path):
    root = _dataset(tmp_path / "ds", queries=['{"_id": "q1", "text": "fine"}', '{"_id": "q2", "text": 7}'])
    with pytest.raises(DatasetError, match=r"queries\.jsonl line 2: field 'text'"):
        load_beir(root)


@pytest.mark.parametrize(
    ("qrels", "message"),
    [
        (["query-id\tcorpus-id\tscore", "q1\td9\t1"], r"qrels/test\.tsv line 2: corpus id 'd9' is not in corpus\.jsonl"),
        (["q1\td1\t1", "q7\td1\t1"], r"qrels/test\.tsv line 2: query id 'q7' is not in queries\.jsonl"),
        (["query-id\tcorpus-id\tscore", "q1 d1 1"], r"qrels/test\.tsv line 2: expected 3 tab-separated columns"),
        (["q1\td1\thigh"], r"qrels/test\.tsv line 1: score 'high' is not an integer"),
    ],
)
def test_bad_qrels_lines_are_reported_by_line(tmp_path, qrels, message):
    with pytest.raises(DatasetError, match=message):
        load_beir(_dataset(tmp_path / "ds", qrels=qrels))


def test_another_question_set_replaces_the_questions_and_keeps_the_corpus(tmp_path):
    ds = load_beir(_dataset(tmp_path / "ds"))
    other = tmp_path / "other"
    _dataset(other, queries=[json.dumps({"_id": "b1", "text": "shingles?"}), json.dumps({"_id": "b2", "text": "pool"})],
             qrels=["query-id\tcorpus-id\tscore", "b1\td2\t2"])
    (other / "corpus.jsonl").unlink()  # a question set has no corpus of its own
    mixed = with_questions(ds, other)
    assert mixed.docs == ds.docs
    assert [q.query_id for q in mixed.answerable] == ["b1"] and [q.query_id for q in mixed.unanswerable] == ["b2"]


def test_a_question_set_naming_an_unknown_document_says_which_line(tmp_path):
    ds = load_beir(_dataset(tmp_path / "ds"))
    other = _dataset(tmp_path / "other", queries=[json.dumps({"_id": "b1", "text": "x"})],
                     qrels=["query-id\tcorpus-id\tscore", "b1\tnope\t2"])
    with pytest.raises(DatasetError, match=r"qrels/test.tsv line 2: corpus id 'nope' is not in corpus.jsonl"):
        with_questions(ds, other)
    (other / "queries.jsonl").unlink()
    with pytest.raises(DatasetError, match="queries.jsonl is missing"):
        with_questions(ds, other)
