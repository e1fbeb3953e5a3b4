"""The worker as real `ltm worker` child processes: kill -9 and restart, changes made while stopped, two workers."""

from __future__ import annotations

import os
import re
import shutil
import signal
import subprocess
import sys
from pathlib import Path

import pytest
from worker_kit import FAST, content_rows, job, live_docs, query, tombstones, wait_until

from docgen import scanned_pdf, text_pdf
from ltm_desktop.adapters.postgres.database import Database
from ltm_desktop.adapters.postgres.job_queue import PgJobQueue
from ltm_desktop.core.jobs import JobRequest

LTM = [sys.executable, "-m", "ltm_desktop"]


@pytest.fixture
def env(cli_env):
    e = dict(cli_env)
    e.update({f"LTM_{k.upper()}": str(v) for k, v in FAST.items()})
    return e


def ltm(env, *args, timeout=180, prefix=()) -> subprocess.CompletedProcess:
    return subprocess.run([*prefix, *LTM, *args], env=env, capture_output=True, text=True, timeout=timeout)


def start_worker(env, *args) -> subprocess.Popen:
    return subprocess.Popen([*LTM, "worker", *args], env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)


def stop_worker(proc: subprocess.Popen) -> str:
    proc.send_signal(signal.SIGTERM)
    _, err = proc.communicate(timeout=90)
    return err


def test_kill_9_mid_job_then_restart_loses_nothing_and_duplicates_nothing(env, tmp_path):
    folder = tmp_path / "inbox"
    folder.mkdir()
    scan = scanned_pdf(folder / "a-scan.pdf", ["Survey of the northern lighthouse, page one, storm damage noted."] * 2)
    texts = [folder / f"note{i}.txt" for i in range(4)]
    for i, t in enumerate(texts):
        t.write_text(f"Note {i}: the ferry timetable changes in winter, crossing number {i}.\n")
    uri = env["LTM_DATABASE_URL"]
    assert ltm(env, "watch", "add", str(folder)).returncode == 0

    # No pipes: an orphaned extraction process would hold them open after the kill.
    first = subprocess.Popen([*LTM, "worker"], env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        wait_until(lambda: (job(uri, str(scan)) or {}).get("state") == "running", timeout=120, every=0.05,
                   what="the scan's OCR under way")
    finally:
        first.send_signal(signal.SIGKILL)
        first.wait(timeout=30)
    assert job(uri, str(scan))["state"] == "running"  # left mid-job, exactly as a crash leaves it
    killed_worker = job(uri, str(scan))["worker"]

    done = ltm(env, "worker", "--until-idle", timeout=300)
    assert done.returncode == 0, done.stderr
    expected = {str(scan), *map(str, texts)}
    assert set(live_docs(uri)) == expected
    record = job(uri, str(scan))
    assert record["state"] == "done" and record["outcome"] == "ingested" and record["attempts"] == 2
    assert record["worker"] is None and killed_worker.split(":")[1] == str(first.pid)
    contents, chunks = content_rows(uri)
    assert contents == len(expected)
    assert query(uri, "SELECT count(*) FROM (SELECT sha256, ordinal FROM chunks GROUP BY 1, 2 HAVING count(*) > 1) d")[0][0] == 0
    assert query(uri, "SELECT count(*) FROM ingest_jobs WHERE state <> 'done'")[0][0] == 0


def test_changes_made_while_the_worker_was_stopped_are_reconciled(env, tmp_path):
    folder = tmp_path / "papers"
    folder.mkdir()
    for name, text in {"keep.txt": "Kept as is.", "edit.txt": "Old wording of the lease.",
                       "gone.txt": "Deleted while stopped.", "move.txt": "Renamed while stopped, about glaciers."}.items():
        (folder / name).write_text(text + "\n")
    uri = env["LTM_DATABASE_URL"]
    assert ltm(env, "watch", "add", str(folder)).returncode == 0
    assert ltm(env, "worker", "--until-idle", timeout=300).returncode == 0
    assert len(live_docs(uri)) == 4
    ids = {Path(p).name: v[0] for p, v in live_docs(uri).items()}
    before = content_rows(uri)

    (folder / "edit.txt").write_text("New wording of the lease, signed in March.\n")
    (folder / "gone.txt").unlink()
    os.rename(folder / "move.txt", folder / "moved.txt")
    (folder / "added.txt").write_text("Added while stopped.\n")

    run = ltm(env, "worker", "--until-idle", timeout=300)
    assert run.returncode == 0, run.stderr
    docs = {Path(p).name: v[0] for p, v in live_docs(uri).items()}
    assert set(docs) == {"keep.txt", "edit.txt", "moved.txt", "added.txt"}
    assert docs["moved.txt"] == ids["move.txt"] and docs["keep.txt"] == ids["keep.txt"]
    assert str(folder / "gone.txt") in tombstones(uri)
    # Only the new file's content is new; the edit replaced its old content; the move and the tombstone cost nothing.
    assert content_rows(uri)[0] == before[0] + 1
    status = ltm(env, "status", "--json")
    assert status.returncode == 0 and '"queued": 0' in status.stdout and '"failed": 0' in status.stdout


def test_two_workers_share_one_queue_and_no_file_is_done_twice(env, tmp_path):
    folder = tmp_path / "shared"
    folder.mkdir()
    files = [text_pdf(folder / f"doc{i:02d}.pdf", [f"Report {i} on harbour dredging, section {i}."] * 2) for i in range(24)]
    uri = env["LTM_DATABASE_URL"]
    assert ltm(env, "db", "migrate").returncode == 0
    workers = [start_worker(env, "--no-watch"), start_worker(env, "--no-watch")]
    try:
        wait_until(lambda: query(uri, "SELECT count(*) FROM ingest_workers")[0][0] == 2, timeout=120, what="both workers up")
        db = Database(uri)
        PgJobQueue(db).enqueue([JobRequest(str(f), str(folder), "upsert") for f in files])
        db.close()
        wait_until(lambda: query(uri, "SELECT count(*) FROM ingest_jobs WHERE state = 'done'")[0][0] == len(files),
                   timeout=240, what="the shared backlog done")
    finally:
        logs = [stop_worker(w) for w in workers]
    counts = [int(re.search(r"stopped after (\d+) jobs", log).group(1)) for log in logs]
    assert sum(counts) == len(files), counts  # every job exactly once between them
    assert min(counts) > 0, counts  # both took part
    assert set(live_docs(uri)) == {str(f) for f in files}
    assert query(uri, "SELECT count(*) FROM ingest_workers")[0][0] == 0  # clean stops deregister


def _unprivileged_user() -> str | None:
    """The embedded server's own account: it can reach the socket, and file permissions apply to it."""
    import pwd

    try:
        pwd.getpwnam("pgserver")
    except KeyError:
        return None
    return "pgserver" if os.geteuid() == 0 and shutil.which("setpriv") else None


@pytest.mark.skipif(_unprivileged_user() is None, reason="needs root, setpriv and the pgserver account")
def test_an_unreadable_file_is_failed_with_the_reason_and_the_rest_is_indexed(env):
    import tempfile

    base = Path(tempfile.mkdtemp(prefix="ltm-perm-"))
    try:
        base.chmod(0o755)
        home, folder = base / "home", base / "locked"
        for d in (home, folder):
            d.mkdir()
            d.chmod(0o777)
        env = {**env, "LTM_HOME": str(home), "HOME": str(home)}
        secret = folder / "secret.txt"
        secret.write_text("Nobody may read this.\n")
        secret.chmod(0)
        (folder / "open.txt").write_text("Anyone may read this one.\n")
        (folder / "open.txt").chmod(0o644)
        uri = env["LTM_DATABASE_URL"]
        assert ltm(env, "watch", "add", str(folder)).returncode == 0
        # Root reads everything, so the worker runs as an ordinary account that meets file permissions.
        user = _unprivileged_user()
        as_user = ["setpriv", f"--reuid={user}", f"--regid={user}", "--clear-groups", "--"]
        run = ltm(env, "worker", "--until-idle", prefix=as_user, timeout=300)
        assert run.returncode == 0, run.stderr
        assert set(live_docs(uri)) == {str(folder / "open.txt")}
        record = job(uri, str(secret))
        assert record["state"] == "failed" and "permission denied" in record["error"].lower()
        assert record["attempts"] == 3  # retried with backoff first: a permission can be fixed
        assert query(uri, "SELECT count(*) FROM ingest_jobs WHERE state IN ('queued', 'running')")[0][0] == 0
    finally:
        shutil.rmtree(base, ignore_errors=True)


def test_headless_service_runs_the_worker_and_stops_it(env, tmp_path):
    import socket

    folder = tmp_path / "drop"
    folder.mkdir()
    (folder / "memo.txt").write_text("The headless service indexes this memo about salt marshes.\n")
    uri = env["LTM_DATABASE_URL"]
    with socket.socket() as s:  # a free port, in case the service also serves HTTP
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    env = {**env, "LTM_HTTP_PORT": str(port)}
    assert ltm(env, "watch", "add", str(folder)).returncode == 0
    service = subprocess.Popen([*LTM, "run", "--headless"], env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        wait_until(lambda: str(folder / "memo.txt") in live_docs(uri), timeout=180, what="indexed by the headless worker")
        (folder / "later.txt").write_text("Dropped while the service runs.\n")
        wait_until(lambda: str(folder / "later.txt") in live_docs(uri), timeout=60, what="a live change indexed")
    finally:
        service.send_signal(signal.SIGTERM)
        service.communicate(timeout=120)
    assert service.returncode == 0
    wait_until(lambda: query(uri, "SELECT count(*) FROM ingest_workers")[0][0] == 0, timeout=30, what="the worker stopped too")
