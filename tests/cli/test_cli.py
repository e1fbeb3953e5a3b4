"""The real `ltm` command in child processes: what a person sees, exit codes, and errors that name the fix."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import psycopg
import pytest

from docgen import scanned_pdf, text_pdf
from ltm_desktop import __version__


def ltm(env: dict[str, str], *args: str, timeout: float = 180) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "ltm_desktop", *args], env=env, capture_output=True, text=True, timeout=timeout
    )


def test_version():
    out = ltm(dict(os.environ), "--version")
    assert out.returncode == 0 and out.stdout.strip() == f"ltm {__version__}"


def test_ingest_search_get_stats_end_to_end(cli_env, tmp_path):
    docs = tmp_path / "docs"
    docs.mkdir()
    text_pdf(docs / "Oak lease.pdf", ["Lease for 12 Oak Street", "Renewal\n\nThe lease renews on March 1, 2027 unless notice is given."])
    (docs / "broken.pdf").write_bytes(b"%PDF-1.4 garbage")
    out = ltm(cli_env, "ingest", str(docs), "--json")
    summary = json.loads(out.stdout)
    assert out.returncode == 1  # something failed
    assert summary["ingested"] == 1 and summary["unchanged"] == 0 and summary["skipped"] == 0
    assert summary["failed"][0]["path"].endswith("broken.pdf") and "corrupt" in summary["failed"][0]["error"]

    again = json.loads(ltm(cli_env, "ingest", str(docs / "Oak lease.pdf"), "--json").stdout)
    assert again["unchanged"] == 1 and again["ingested"] == 0

    out = ltm(cli_env, "search", "when does the Oak Street lease renew", "--json", "-k", "2")
    assert out.returncode == 0, out.stderr
    result = json.loads(out.stdout)
    assert set(result) >= {"query", "confidence", "confidence_basis", "hits"}
    hit = result["hits"][0]
    assert hit["path"].endswith("Oak lease.pdf") and hit["page"] == 2 and result["confidence"] == "high"
    assert set(hit) >= {"doc_id", "path", "title", "doc_type", "page", "heading", "snippet", "cosine", "rerank_score", "fused_score"}

    human = ltm(cli_env, "search", "when does the Oak Street lease renew")
    assert "confidence: high" in human.stdout and "Oak lease.pdf, p. 2" in human.stdout

    got = ltm(cli_env, "get", str(hit["doc_id"]), "--pages", "2")
    assert got.returncode == 0 and "March 1, 2027" in got.stdout and "[page 2]" in got.stdout

    stats = json.loads(ltm(cli_env, "stats", "--json").stdout)
    assert stats["documents"] == 1 and stats["failed_files"] == 1
    assert any(i["path"].endswith("broken.pdf") for i in stats["issues"])


def test_search_never_creates_a_store(tmp_path):
    env = dict(os.environ, LTM_HOME=str(tmp_path / "fresh-home"))
    env.pop("LTM_DATABASE_URL", None)
    out = ltm(env, "search", "anything")
    assert out.returncode == 1
    assert "no index yet: run `ltm ingest PATH` or add a watched folder" in out.stderr
    assert not (tmp_path / "fresh-home" / "pgdata").exists()
    assert ltm(env, "stats").returncode == 1


def test_postgres_unavailable_is_one_line_with_a_fix(tmp_path):
    env = dict(os.environ, LTM_HOME=str(tmp_path), LTM_DATABASE_URL="postgresql://nobody@127.0.0.1:9/none?connect_timeout=2")
    out = ltm(env, "search", "rent")
    assert out.returncode == 1
    assert out.stderr.count("\n") == 1 and "cannot reach Postgres" in out.stderr and "ltm doctor" in out.stderr


def test_missing_or_corrupt_model_files_name_the_fix(cli_env, tmp_path):
    models = tmp_path / "models"
    shutil.copytree(cli_env["LTM_MODELS_DIR"], models)
    env = dict(cli_env, LTM_MODELS_DIR=str(models))
    (tmp_path / "a.md").write_text("Gutters were cleaned in May.\n")
    (models / "bge-small-en-v1.5-int8" / "model.onnx").write_bytes(b"truncated")
    out = ltm(env, "ingest", str(tmp_path / "a.md"))
    assert out.returncode == 1 and "corrupt" in out.stderr and "ltm models fetch --force" in out.stderr
    shutil.rmtree(models / "bge-small-en-v1.5-int8")
    out = ltm(env, "ingest", str(tmp_path / "a.md"))
    assert out.returncode == 1 and "missing" in out.stderr and "ltm models fetch" in out.stderr


def test_without_tesseract_scans_fail_with_the_fix_and_born_digital_still_work(cli_env, tmp_path):
    docs = tmp_path / "docs"
    docs.mkdir()
    scanned_pdf(docs / "scan.pdf", ["Scanned letter about the parking permit."])
    text_pdf(docs / "digital.pdf", ["Born-digital letter about the parking permit renewal fee of $40."])
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    os.symlink(sys.executable, bin_dir / "python3")
    env = dict(cli_env, PATH=str(bin_dir))  # no tesseract on PATH
    out = ltm(env, "ingest", str(docs), "--json")
    summary = json.loads(out.stdout)
    assert out.returncode == 1 and summary["ingested"] == 1
    [failed] = summary["failed"]
    assert failed["path"].endswith("scan.pdf") and "tesseract is not installed" in failed["error"] and "apt-get install" in failed["error"]


def test_model_mismatch_is_refused_until_reindex(cli_env, tmp_path):
    (tmp_path / "a.md").write_text("The septic tank was pumped in April 2024.\n")
    assert ltm(cli_env, "ingest", str(tmp_path / "a.md")).returncode == 0
    with psycopg.connect(cli_env["LTM_DATABASE_URL"], autocommit=True) as conn:
        conn.execute("UPDATE model_pin SET model_id = 'some/other-model', files_sha256 = 'x'")
    out = ltm(cli_env, "search", "septic tank")
    assert out.returncode == 1 and "ltm reindex" in out.stderr and "some/other-model" in out.stderr
    out = ltm(cli_env, "ingest", str(tmp_path / "a.md"))
    assert out.returncode == 1 and "ltm reindex" in out.stderr
    out = ltm(cli_env, "reindex")
    assert out.returncode == 0 and "re-embedded 1 chunks" in out.stdout
    out = ltm(cli_env, "search", "when was the septic tank pumped", "--json")
    assert out.returncode == 0 and json.loads(out.stdout)["hits"][0]["path"].endswith("a.md")


def test_doctor_reports_each_dependency(cli_env):
    out = ltm(cli_env, "doctor")
    assert out.returncode == 1 and "FAIL schema" in out.stdout and "run `ltm db migrate`" in out.stdout
    migrated = ltm(cli_env, "db", "migrate")
    assert migrated.returncode == 0 and "applied: 0001_documents.sql" in migrated.stdout
    assert "schema is up to date" in ltm(cli_env, "db", "migrate").stdout
    out = ltm(cli_env, "doctor")
    assert out.returncode == 0, out.stdout + out.stderr
    for name in ("postgres", "schema", "models", "embedder", "tesseract", "qt"):
        assert f"ok   {name}:" in out.stdout


def test_doctor_names_the_fix_for_a_missing_model(cli_env, tmp_path):
    out = ltm(dict(cli_env, LTM_MODELS_DIR=str(tmp_path / "nothing")), "doctor")
    assert out.returncode == 1 and "FAIL models" in out.stdout and "ltm models fetch" in out.stdout


def test_nonexistent_path_and_bad_settings_are_refused(cli_env, tmp_path):
    out = ltm(cli_env, "ingest", str(tmp_path / "nope"))
    assert out.returncode == 1 and "no such file or folder" in out.stderr
    out = ltm(dict(cli_env, LTM_HTTP_PORT="eighty"), "stats")
    assert out.returncode == 1 and "http_port" in out.stderr
    home = Path(cli_env["LTM_HOME"])
    home.mkdir(parents=True, exist_ok=True)
    (home / "config.toml").write_text("colour = 'blue'\n")
    out = ltm(cli_env, "stats")
    assert out.returncode == 1 and "unknown setting 'colour'" in out.stderr


def test_several_processes_share_one_embedded_server(tmp_path):
    """Two writers and a reader start at once on a fresh home: one server is started, the others attach."""
    env = dict(os.environ, LTM_HOME=str(tmp_path / "home"), LTM_INGEST_WORKERS="1")
    env.pop("LTM_DATABASE_URL", None)
    for name, text in (("a", "The gutters on Elm Court were cleaned in May."), ("b", "A plumbing leak under the sink at 7 Pine Road.")):
        (tmp_path / name).mkdir()
        (tmp_path / name / f"{name}.md").write_text(text + "\n")
    cmd = [sys.executable, "-m", "ltm_desktop", "ingest"]
    procs = [subprocess.Popen([*cmd, str(tmp_path / n)], env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True) for n in "ab"]
    outs = [p.communicate(timeout=180) for p in procs]
    assert [p.returncode for p in procs] == [0, 0], outs
    stats = json.loads(ltm(env, "stats", "--json").stdout)
    assert stats["documents"] == 2
    hit = json.loads(ltm(env, "search", "where was there a plumbing leak", "--json").stdout)["hits"][0]
    assert hit["path"].endswith("b.md")
    subprocess.run([*cmd[:-1], "db", "stop"], env=env, check=True, capture_output=True)
