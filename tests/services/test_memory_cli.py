"""`ltm memory ...` as a person runs it: real child processes on a fresh database, plain text out and in."""

from __future__ import annotations

import json
import subprocess
import sys

from tests.conftest import REPO, create_database


def ltm(env: dict, *args: str, stdin: str | None = None) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "ltm_desktop", "memory", *args], check=False, env=env, cwd=REPO, input=stdin,
                          capture_output=True, text=True, timeout=300)


def test_memory_commands_end_to_end(cli_env, tmp_path, pg_uri):
    added = ltm(cli_env, "add", "--type", "procedure", "--tag", "bikes", "--project", "garage", "--json",
                stdin="To fix a flat: remove the wheel, find the thorn, patch the tube, pump to 60 psi.\n")
    assert added.returncode == 0, added.stderr
    mid = json.loads(added.stdout)["id"]
    assert ltm(cli_env, "update", mid, "To fix a flat: patch the tube and pump to 65 psi.").returncode == 0

    found = ltm(cli_env, "search", "how", "do", "I", "repair", "a", "punctured", "bicycle", "tyre", "--json")
    assert found.returncode == 0, found.stderr
    item = json.loads(found.stdout)["items"][0]
    assert (item["id"], item["version"], item["author"]) == (mid, 2, "local-owner")

    forgot = ltm(cli_env, "forget", mid)
    assert forgot.returncode == 0 and "restore" in forgot.stdout
    shown = ltm(cli_env, "show", mid)
    assert "forgotten" in shown.stdout and "-- version 1" in shown.stdout and "-- version 2" in shown.stdout

    out = tmp_path / "memories.md"
    exported = ltm(cli_env, "export", "-o", str(out))
    assert exported.returncode == 0 and out.read_text(encoding="utf-8").startswith("# LTM memory export")

    other = dict(cli_env, LTM_DATABASE_URL=create_database(pg_uri, "cli_import"), LTM_HOME=str(tmp_path / "h2"))
    imported = ltm(other, "import", str(out), "--json")
    assert imported.returncode == 0, imported.stderr
    assert json.loads(imported.stdout) == {"imported": 1, "versions": 2, "skipped": []}
    restored = ltm(other, "restore", mid)
    assert restored.returncode == 0 and "active" in restored.stdout
    listed = json.loads(ltm(other, "list", "--json").stdout)
    assert [i["id"] for i in listed["items"]] == [mid]

    bad = ltm(cli_env, "add", "--type", "gossip", "text")
    assert bad.returncode == 1 and bad.stderr.strip().startswith("ltm: unknown memory type 'gossip'")
    assert len(bad.stderr.strip().splitlines()) == 1
    missing = ltm(cli_env, "show", "mem_0000000000000000")
    assert missing.returncode == 1 and "no memory with id" in missing.stderr


def test_reindex_to_another_model_re_embeds_memory_too(cli_env):
    """A store whose vectors came from another model: `ltm reindex` moves documents and memory to the configured one."""
    import psycopg

    added = ltm(cli_env, "add", "The septic tank was pumped in April 2024.", "--json")
    assert added.returncode == 0, added.stderr
    mid = json.loads(added.stdout)["id"]
    with psycopg.connect(cli_env["LTM_DATABASE_URL"], autocommit=True) as conn:
        conn.execute("UPDATE model_pin SET model_id = 'some/other-model', files_sha256 = 'x'")
        conn.execute("UPDATE memory_vector_model SET model_id = 'some/other-model', files_sha256 = 'x'")
    refused = ltm(cli_env, "search", "septic")
    assert refused.returncode == 1 and "ltm reindex" in refused.stderr  # never a silent mix of vector spaces
    out = subprocess.run([sys.executable, "-m", "ltm_desktop", "reindex"], check=False, env=cli_env, cwd=REPO,
                         capture_output=True, text=True, timeout=300)
    assert out.returncode == 0, out.stderr
    with psycopg.connect(cli_env["LTM_DATABASE_URL"]) as conn:
        assert conn.execute("SELECT model_id FROM memory_vector_model").fetchone()[0] != "some/other-model"
        assert conn.execute("SELECT count(*) FROM memory_chunk_embeddings").fetchone()[0] == 1
    found = ltm(cli_env, "search", "when", "was", "the", "septic", "tank", "emptied", "--json")
    assert found.returncode == 0 and json.loads(found.stdout)["items"][0]["id"] == mid
