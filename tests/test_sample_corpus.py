"""The committed sample corpus matches its generator byte for byte, holds what the brief promises, and evaluates."""

from __future__ import annotations

import json
import shutil
import tempfile
from pathlib import Path

import pymupdf
import pytest

from ltm_desktop.adapters.postgres.scratch_store import analyze_database
from ltm_desktop.sample_corpus import SEED, generate_sample_corpus, sample_corpus_dir, sample_questions_dir, stamp
from ltm_desktop.services.eval_dataset import load_beir, with_questions
from ltm_desktop.services.evaluation import doc_id_lookup, evaluate_queries, ingest_dataset

COMMITTED = Path(__file__).resolve().parents[1] / "resources" / "sample_corpus"


@pytest.fixture(scope="module")
def regenerated(tmp_path_factory) -> Path:
    out = tmp_path_factory.mktemp("regen") / "sample_corpus"
    generate_sample_corpus(out, SEED)
    return out


def _tree(root: Path) -> dict[str, bytes]:
    return {p.relative_to(root).as_posix(): p.read_bytes() for p in sorted(root.rglob("*")) if p.is_file()}


def test_committed_corpus_matches_the_generator_byte_for_byte(regenerated):
    committed, fresh = _tree(COMMITTED), _tree(regenerated)
    assert sorted(committed) == sorted(fresh), "files differ: run `python -m ltm_desktop.sample_corpus`"
    changed = [name for name in fresh if committed[name] != fresh[name]]
    assert changed == [], "regenerate with `python -m ltm_desktop.sample_corpus` and commit the result"


def test_corpus_has_the_promised_shape(regenerated):
    ds = load_beir(regenerated)
    formats = [json.loads(line)["format"] for line in (regenerated / "corpus.jsonl").read_text().splitlines()]
    assert 60 <= len(ds.docs) <= 120
    assert {"pdf", "scan", "docx", "md", "eml"} <= set(formats)
    assert len(ds.answerable) >= 100 and len(ds.unanswerable) >= 20
    assert sum(p.stat().st_size for p in regenerated.rglob("*") if p.is_file()) < 5_000_000
    # Every document is judged relevant to at least one question.
    judged = {doc for q in ds.answerable for doc in q.relevant}
    assert judged == {d.doc_id for d in ds.docs}
    # Questions are phrased by a person, not copied: no question appears verbatim in its answer.
    texts = {d.doc_id: d.text.lower() for d in ds.docs}
    copied = [q.text for q in ds.answerable if any(q.text.lower().rstrip("?") in texts[d] for d in q.relevant)]
    assert copied == []


def test_scans_have_no_text_layer_but_ocr_reads_them(regenerated):
    from ltm_desktop.adapters.tesseract_ocr import TesseractOcr

    rows = [json.loads(line) for line in (regenerated / "corpus.jsonl").read_text().splitlines()]
    scans = [r for r in rows if r["format"] == "scan"]
    assert len(scans) >= 8
    for r in scans:
        with pymupdf.open(regenerated / r["file"]) as doc:
            assert all(not page.get_text().strip() for page in doc), r["file"]
    sample = next(r for r in scans if r["_id"] == "invoice-dishwasher")
    with pymupdf.open(regenerated / sample["file"]) as doc:
        png = doc[0].get_pixmap(dpi=300, colorspace="gray").tobytes("png")
    read = TesseractOcr().recognize(png)
    words = {w.strip(".,:;()$").lower() for w in sample["text"].split()} - {""}
    found = {w.strip(".,:;()$").lower() for w in read.text.split()}
    assert len(words & found) / len(words) >= 0.85 and read.confidence >= 80


def test_sample_corpus_dir_prefers_the_committed_copy_and_otherwise_generates_once(tmp_path, monkeypatch):
    assert sample_corpus_dir(tmp_path / "cache") == COMMITTED
    assert (COMMITTED / "GENERATOR").read_text() == stamp()
    monkeypatch.setattr("ltm_desktop.sample_corpus._committed_copies", lambda: [])
    made = sample_corpus_dir(tmp_path / "cache")
    assert made.parent == tmp_path / "cache" and load_beir(made).docs
    assert sample_corpus_dir(tmp_path / "cache") == made  # already there: not generated again


def test_a_slice_of_the_sample_corpus_evaluates_through_the_real_pipeline(tmp_path, pg_uri, shared_models):
    """A handful of the sample documents (scan, docx, e-mail, Markdown, PDF) and their questions, end to end."""
    from tests.conftest import create_database, make_container

    keep = {"invoice-dishwasher", "letter-deposit-maple1", "email-hoa-cedar", "note-emergency", "radon-birch",
            "policy-umbrella"}
    root = tmp_path / "slice"
    rows = [json.loads(line) for line in (COMMITTED / "corpus.jsonl").read_text().splitlines()]
    rows = [r for r in rows if r["_id"] in keep]
    for r in rows:
        (root / r["file"]).parent.mkdir(parents=True, exist_ok=True)
        shutil.copy(COMMITTED / r["file"], root / r["file"])
    (root / "corpus.jsonl").write_text("".join(json.dumps(r) + "\n" for r in rows))
    qrels = [line.split("\t") for line in (COMMITTED / "qrels" / "test.tsv").read_text().splitlines()[1:]]
    wanted = {q for q, d, _ in qrels if d in keep} | {"u01", "u18"}
    queries = [json.loads(line) for line in (COMMITTED / "queries.jsonl").read_text().splitlines()]
    (root / "queries.jsonl").write_text("".join(json.dumps(q) + "\n" for q in queries if q["_id"] in wanted))
    (root / "qrels").mkdir()
    (root / "qrels" / "test.tsv").write_text(
        "".join("\t".join(r) + "\n" for r in qrels if r[0] in wanted and r[1] in keep)
    )
    dataset = load_beir(root)
    c = make_container(tmp_path / "home", create_database(pg_uri), shared_models, ingest_workers=1)
    with c.scratch() as scratch, tempfile.TemporaryDirectory() as work:
        paths, _, failed = ingest_dataset(dataset, Path(work), scratch.ingest.ingest_paths)
        analyze_database(scratch.settings.database_url)
        t = scratch.search.tuning
        modes, verdicts, _ = evaluate_queries(
            dataset.queries, scratch.search, doc_id_lookup(paths), t.rerank_thresholds, t.cosine_thresholds
        )
    c.close()
    assert failed == ()
    by_mode = {m.mode: m for m in modes}
    assert by_mode["hybrid+rerank"].mrr_10 >= 0.8
    assert by_mode["hybrid+rerank"].ndcg_10 >= by_mode["dense"].ndcg_10


def test_the_hand_written_questions_fit_the_committed_corpus():
    """The held-out set loads against the committed corpus, judges most documents, and copies none of them."""
    ds = with_questions(load_beir(COMMITTED), sample_questions_dir())
    assert len(ds.answerable) >= 110 and len(ds.unanswerable) >= 40
    assert all(2 in q.relevant.values() for q in ds.answerable), "every answerable question needs a document that answers it"
    judged = {doc for q in ds.answerable for doc in q.relevant}
    assert len(judged) >= 0.9 * len(ds.docs)
    generated = {q.text.lower() for q in load_beir(COMMITTED).queries}
    assert [q.text for q in ds.queries if q.text.lower() in generated] == []
    texts = {d.doc_id: d.text.lower() for d in ds.docs}
    copied = [q.text for q in ds.answerable if any(q.text.lower().rstrip("?") in texts[d] for d in q.relevant)]
    assert copied == []
