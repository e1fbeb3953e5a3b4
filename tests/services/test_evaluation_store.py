"""`ltm eval` end to end: a dataset loaded into a scratch store with the real models, and the user's index untouched."""

from __future__ import annotations

import contextlib
import json
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import psycopg
import pytest

from ltm_desktop.adapters.postgres.passage_sampler import PgPassageSampler
from ltm_desktop.adapters.postgres.scratch_store import analyze_database, list_scratch_databases, scratch_database
from ltm_desktop.services.eval_dataset import load_beir
from ltm_desktop.services.eval_questions import build_questions, evaluate_own_documents
from ltm_desktop.services.evaluation import MODES, doc_id_lookup, evaluate_queries, ingest_dataset
from tests.conftest import create_database, make_container
from tests.docgen import eml_file, scanned_pdf, text_pdf

DOCS = {
    "lease": ("Lease 14 Oak Street", "The tenant Maria Lopez pays monthly rent of $1,850, due on the first. "
              "The security deposit of $1,850 is held in escrow at First Harbor Bank."),
    "roof": ("Roof inspection", "The inspector found three missing shingles on the north slope and recommends new "
             "flashing around the chimney before winter."),
    "plumbing": ("Plumbing invoice", "Reliable Plumbing replaced the water heater in unit B. Amount due $1,240.00 "
                 "within 30 days."),
    "policy": ("Insurance policy", "The landlord policy covers fire, wind and hail with a $2,500 deductible per "
               "occurrence. Flood damage is excluded."),
}
QUESTIONS = [
    ("q1", "how much does Maria pay each month?", "lease"),
    ("q2", "what was wrong with the roof", "roof"),
    ("q3", "deductible on the landlord insurance?", "policy"),
    ("q4", "which plumber put in the new water heater", "plumbing"),
    ("q5", "who pays the gas bill at the tax office", "taxbill"),
    ("q6", "what was the mold test result in the basement?", "email"),
    ("u1", "who won the 1998 world cup", None),
    ("u2", "recipe for sourdough bread", None),
]


def make_dataset(root: Path) -> Path:
    """Four documents as text, a born-digital PDF, an image-only scan and an e-mail, with questions."""
    files = root / "files"
    files.mkdir(parents=True)
    scanned_pdf(files / "tax.pdf", ["CITY OF WESTBROOK PROPERTY TAX BILL\n\nThe annual gas utility charge for "
                                    "the tax office is paid by the county, not the city."], skew=0.8, grey=True)
    eml_file(files / "mold.eml", "lab@example.com", "dana@example.com", "Mold test results",
             "The air sample from the basement came back at 1,200 spores per cubic metre, within the normal range.")
    text_pdf(files / "notes.pdf", ["Meeting notes about parking and snow removal for the winter season."])
    rows = [{"_id": k, "title": t, "text": x} for k, (t, x) in DOCS.items()]
    rows += [
        {"_id": "taxbill", "title": "", "file": "files/tax.pdf"},
        {"_id": "email", "title": "Mold test results", "file": "files/mold.eml"},
        {"_id": "notes", "title": "Notes", "text": "snow removal and parking", "file": "files/notes.pdf"},
    ]
    (root / "corpus.jsonl").write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    (root / "queries.jsonl").write_text(
        "".join(json.dumps({"_id": q, "text": t}) + "\n" for q, t, _ in QUESTIONS), encoding="utf-8"
    )
    (root / "qrels").mkdir()
    (root / "qrels" / "test.tsv").write_text(
        "query-id\tcorpus-id\tscore\n" + "".join(f"{q}\t{d}\t1\n" for q, _, d in QUESTIONS if d), encoding="utf-8"
    )
    return root


def _document_count(uri: str) -> int:
    with psycopg.connect(uri) as conn:
        return conn.execute("SELECT count(*) FROM documents").fetchone()[0]


def test_eval_measures_every_mode_in_a_scratch_store_and_leaves_the_index_alone(tmp_path, pg_uri, shared_models):
    user_db = create_database(pg_uri, "user")
    user = make_container(tmp_path / "home", user_db, shared_models, ingest_workers=1)
    own = tmp_path / "own"
    own.mkdir()
    (own / "diary.md").write_text("# Diary\n\nWent sailing in Casco Bay with the kids on Saturday.\n")
    user.ingest.ingest_paths([own])
    before = _document_count(user_db)

    dataset = load_beir(make_dataset(tmp_path / "ds"))
    with user.scratch() as scratch, tempfile.TemporaryDirectory() as work:
        scratch_uri = scratch.settings.database_url
        paths, seconds, failed = ingest_dataset(dataset, Path(work), scratch.ingest.ingest_paths)
        analyze_database(scratch.settings.database_url)
        t = scratch.search.tuning
        modes, verdicts, runs = evaluate_queries(
            dataset.queries, scratch.search, doc_id_lookup(paths), t.rerank_thresholds, t.cosine_thresholds
        )
        assert _document_count(scratch_uri) == len(dataset.docs)

    assert failed == ()
    assert seconds > 0
    assert [m.mode for m in modes] == list(MODES)
    by_mode = {m.mode: m for m in modes}
    # The scan is only findable through OCR, the e-mail only through its extractor: both must be answered.
    answered = {r.query_id: r.ranked["hybrid+rerank"][:3] for r in runs if r.relevant}
    assert "taxbill" in answered["q5"] and "email" in answered["q6"]
    assert by_mode["hybrid+rerank"].mrr_10 >= 0.8
    assert by_mode["hybrid+rerank"].ndcg_10 >= by_mode["dense"].ndcg_10
    assert all(0 <= getattr(m, f) <= 1 for m in modes for f in ("ndcg_10", "recall_10", "recall_50", "mrr_10"))
    rerank = next(v for v in verdicts if v.basis == "rerank")
    assert (rerank.answerable, rerank.unanswerable) == (6, 2)
    assert rerank.unanswerable_flagged_low == 1.0  # off-topic questions must come back "low"
    # The user's index is untouched and the scratch database is gone.
    assert _document_count(user_db) == before
    assert scratch_uri.split("?")[0].rsplit("/", 1)[1] not in list_scratch_databases(pg_uri)
    user.close()


def test_scratch_database_is_dropped_even_when_the_run_fails(pg_uri):
    name = None
    try:
        with scratch_database(pg_uri) as uri:
            name = uri.split("?")[0].rsplit("/", 1)[1]
            assert name in list_scratch_databases(pg_uri)
            raise RuntimeError("the evaluation crashed")
    except RuntimeError:
        pass
    assert name is not None and name not in list_scratch_databases(pg_uri)


def _content_stats(container) -> dict:
    # The database's byte size moves with autovacuum and statistics; everything else must not.
    return {k: v for k, v in container.search_index.stats().items() if k != "database_bytes"}


def test_questions_from_own_documents_are_answerable_and_read_only(tmp_path, container):
    corpus = Path(__file__).resolve().parents[2] / "resources" / "sample_corpus" / "files"
    picked = [corpus / "notes", corpus / "email"]
    container.ingest.ingest_paths(picked)
    stats_before = _content_stats(container)
    sampler = PgPassageSampler(container.read_db)
    queries = build_questions(sampler, 12, seed=3)
    assert queries == build_questions(sampler, 12, seed=3)  # the same seed asks the same questions
    answerable = [q for q in queries if q.relevant]
    unanswerable = [q for q in queries if not q.relevant]
    assert len(answerable) >= 8 and len(unanswerable) >= 3
    for q in unanswerable:  # invented words: nothing in the index may contain them
        words = [w.strip("?").lower() for w in q.text.split() if len(w) > 6]
        assert not any(sampler.document_frequencies(words).values()), q.text
    search = container.search
    report = evaluate_own_documents(
        sampler, search, 12, 3, (search.tuning.rerank_thresholds, search.tuning.cosine_thresholds)
    )
    assert report.dataset == "my-documents" and report.documents == stats_before["documents"]
    assert report.mode("hybrid+rerank").mrr_10 >= 0.5
    assert _content_stats(container) == stats_before


def _ltm(args: list[str], env: dict[str, str]) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "ltm_desktop", *args], env=env, capture_output=True, text=True, timeout=600)


def test_cli_eval_prints_json_and_writes_a_chart(tmp_path, cli_env, pg_uri):
    cli_env["LTM_INGEST_WORKERS"] = "2"  # the scratch store ingests through extraction processes too
    result = _ltm(["eval", str(make_dataset(tmp_path / "ds")), "--json", "--chart", str(tmp_path / "c.png")], cli_env)
    assert result.returncode == 0, result.stderr
    report = json.loads(result.stdout)
    assert [m["mode"] for m in report["modes"]] == list(MODES)
    assert {v["basis"] for v in report["verdicts"]} == {"rerank", "cosine"}
    assert (tmp_path / "c.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    assert Path(report["report_file"]).is_file()
    # Nothing was written to the configured database: the eval used a scratch one, now dropped.
    with psycopg.connect(cli_env["LTM_DATABASE_URL"]) as conn:
        assert conn.execute("SELECT to_regclass('public.documents')").fetchone()[0] is None
    assert list_scratch_databases(pg_uri) == []


def test_cli_eval_names_the_bad_line_of_a_malformed_dataset(tmp_path, cli_env):
    root = make_dataset(tmp_path / "ds")
    with (root / "qrels" / "test.tsv").open("a", encoding="utf-8") as f:
        f.write("q1\tno-such-doc\t1\n")
    result = _ltm(["eval", str(root)], cli_env)
    assert result.returncode == 1
    assert result.stderr.strip() == "ltm: qrels/test.tsv line 8: corpus id 'no-such-doc' is not in corpus.jsonl"


def test_cli_eval_on_my_documents_needs_an_index(cli_env):
    result = _ltm(["eval", "--on-my-documents"], cli_env)
    assert result.returncode == 1
    assert "no index yet" in result.stderr


def test_cli_eval_held_out_questions_belong_to_the_sample_corpus(tmp_path, cli_env):
    result = _ltm(["eval", str(make_dataset(tmp_path / "ds")), "--held-out"], cli_env)
    assert result.returncode == 1
    assert result.stderr.strip() == "ltm: --held-out picks the sample corpus's hand-written questions: use it with --sample"


def _eval_child(tmp_path: Path, cli_env: dict[str, str], **popen) -> tuple[subprocess.Popen, Path]:
    """`ltm eval` in a child process with no configured server (so it starts its own), under a short TMPDIR."""
    env = {k: v for k, v in cli_env.items() if k != "LTM_DATABASE_URL"}
    env["TMPDIR"] = tempfile.mkdtemp(prefix="ltm-t-")  # short: the server's unix socket lives in its folder
    proc = subprocess.Popen([sys.executable, "-m", "ltm_desktop", "eval", str(make_dataset(tmp_path / "ds"))],
                            env=env, **popen)
    return proc, Path(env["TMPDIR"])


def _wait_for_server(proc: subprocess.Popen, tmp: Path, ready: bool) -> int:
    """The pid in the eval's postmaster.pid once it exists (ready=False: initdb's, negated) or says "ready"."""
    deadline = time.monotonic() + 120
    while True:
        text = ""
        for f in tmp.glob("ltm-ev-*/pg/postmaster.pid"):
            with contextlib.suppress(OSError):
                text = f.read_text()
        if text and (not ready or "ready" in text):
            return abs(int(text.split()[0]))
        assert proc.poll() is None and time.monotonic() < deadline, "the eval ended or its server never started"
        time.sleep(0.05)


def _wait_until_gone(pid: int) -> None:
    deadline = time.monotonic() + 30
    while True:  # stopping is asynchronous at the very end
        try:
            os.kill(pid, 0)
        except ProcessLookupError:
            return
        assert time.monotonic() < deadline, f"postgres {pid} still running"
        time.sleep(0.2)


@pytest.mark.parametrize("when", ["starting", "ready"])
def test_a_terminated_eval_stops_and_deletes_its_throwaway_postgres(tmp_path, cli_env, when):
    """Without a configured server the eval starts its own Postgres in a temp folder; SIGTERM (a supervisor, `kill`)
    must unwind like Ctrl-C, or the server keeps running and the folder stays (seen after killing one). Both while
    the server is being created (initdb) and once it serves the eval."""
    proc, tmp = _eval_child(tmp_path, cli_env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        postmaster = _wait_for_server(proc, tmp, ready=when == "ready")
        proc.send_signal(signal.SIGTERM)
        _, stderr = proc.communicate(timeout=120)
    finally:
        if proc.poll() is None:
            proc.kill()
    leftovers = list(tmp.glob("ltm-ev-*"))
    shutil.rmtree(tmp, ignore_errors=True)
    assert proc.returncode == 130, stderr
    assert "ltm: interrupted" in stderr
    assert leftovers == []  # the throwaway store's folder is gone
    _wait_until_gone(postmaster)  # and its server with it


def test_a_killed_evals_throwaway_postgres_is_removed_by_the_next_eval(tmp_path, cli_env, monkeypatch):
    """SIGKILL (or "End task" on Windows) runs no handler: the server and its folder stay. The next eval that starts
    a throwaway server stops and deletes any whose owner process is gone."""
    from ltm_desktop.adapters.postgres.scratch_store import temporary_server

    proc, tmp = _eval_child(tmp_path, cli_env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        postmaster = _wait_for_server(proc, tmp, ready=True)
        proc.send_signal(signal.SIGKILL)
        proc.wait(30)
        (left,) = tmp.glob("ltm-ev-*")
        os.kill(postmaster, 0)  # still running: nothing could stop it
        monkeypatch.setattr(tempfile, "tempdir", str(tmp))
        with temporary_server() as uri:
            with psycopg.connect(uri) as conn:
                assert conn.execute("SELECT 1").fetchone() == (1,)
            assert not left.exists()  # the orphan is gone before the new server is used
            _wait_until_gone(postmaster)
        assert list(tmp.glob("ltm-ev-*")) == []
    finally:
        if proc.poll() is None:
            proc.kill()
        shutil.rmtree(tmp, ignore_errors=True)
