"""The worker end to end in this process: real watchdog events, real files, the real queue, models and store."""

from __future__ import annotations

import os
import shutil
import subprocess
import time

import pytest
from worker_kit import FAST, content_rows, job, job_state, live_docs, query, running_daemon, tombstones, wait_until

from conftest import create_database, make_container
from docgen import corrupt_pdf, text_pdf


@pytest.fixture(scope="module")
def uri(pg_uri):
    return create_database(pg_uri, "watch")


@pytest.fixture(scope="module")
def container(tmp_path_factory, uri, shared_models):
    c = make_container(tmp_path_factory.mktemp("home"), uri, shared_models, **FAST)
    c.document_store  # noqa: B018 (migrate and pin the model once)
    yield c
    c.close()


@pytest.fixture(scope="module")
def daemon(container):
    with running_daemon(container) as d:
        yield d


def watched(container, tmp_path, name="docs", ignore=()):
    folder = tmp_path / name
    folder.mkdir(exist_ok=True)
    return folder, lambda: container.watch_folders.add(str(folder), ignore)


def test_add_modify_delete_and_a_move_seen_as_delete_plus_create(container, daemon, uri, tmp_path):
    folder, add = watched(container, tmp_path)
    (folder / "notes.txt").write_text("The heron nests by the quiet river in early spring.\n")
    report = text_pdf(folder / "report.pdf", ["Quarterly revenue of the lighthouse company grew by nine percent."])
    add()
    notes, pdf = str(folder / "notes.txt"), str(report)
    wait_until(lambda: {notes, pdf} <= set(live_docs(uri)), what="both files indexed after the first scan")
    first_sha = live_docs(uri)[notes][1]

    (folder / "notes.txt").write_text("The heron moved to the northern marsh in late autumn.\n")
    wait_until(lambda: live_docs(uri).get(notes, (0, first_sha))[1] != first_sha, what="the edit re-indexed")

    saved = report.read_bytes()
    pdf_id = live_docs(uri)[pdf][0]
    report.unlink()
    wait_until(lambda: pdf not in live_docs(uri), what="the deleted file leaves search")
    assert pdf in tombstones(uri)
    before = content_rows(uri)

    moved = folder / "archive" / "report-2024.pdf"
    moved.parent.mkdir()
    moved.write_bytes(saved)  # the same bytes reappear elsewhere: the tombstone is re-pointed
    wait_until(lambda: str(moved) in live_docs(uri), what="the re-created file indexed")
    assert live_docs(uri)[str(moved)][0] == pdf_id
    assert content_rows(uri) == before  # nothing extracted or embedded again
    assert job(uri, str(moved))["outcome"].startswith("moved from")


def test_renaming_a_file_and_a_folder_repoints_without_reembedding(container, daemon, uri, tmp_path):
    folder, add = watched(container, tmp_path)
    (folder / "sub").mkdir()
    (folder / "sub" / "alpha.txt").write_text("Alpha centauri is the closest star system to the sun.\n")
    (folder / "sub" / "beta.md").write_text("# Beta\n\nBeta carotene gives carrots their orange colour.\n")
    add()
    alpha, beta = str(folder / "sub" / "alpha.txt"), str(folder / "sub" / "beta.md")
    wait_until(lambda: {alpha, beta} <= set(live_docs(uri)), what="first scan")
    ids = {p: live_docs(uri)[p][0] for p in (alpha, beta)}
    before = content_rows(uri)

    os.rename(alpha, folder / "sub" / "alpha-renamed.txt")
    alpha2 = str(folder / "sub" / "alpha-renamed.txt")
    wait_until(lambda: alpha2 in live_docs(uri) and alpha not in live_docs(uri), what="file rename followed")
    assert live_docs(uri)[alpha2][0] == ids[alpha]

    os.rename(folder / "sub", folder / "renamed")
    alpha3, beta3 = str(folder / "renamed" / "alpha-renamed.txt"), str(folder / "renamed" / "beta.md")
    wait_until(lambda: {alpha3, beta3} <= set(live_docs(uri)), what="folder rename followed")
    docs = live_docs(uri)
    assert (docs[alpha3][0], docs[beta3][0]) == (ids[alpha], ids[beta])
    assert not any(p.startswith(str(folder / "sub") + os.sep) for p in docs)
    assert content_rows(uri) == before
    rel = query(uri, "SELECT rel_path FROM documents WHERE path = %s", (beta3,))[0][0]
    assert rel == os.path.join("renamed", "beta.md")


def test_a_half_written_file_is_taken_only_once_it_settles(container, daemon, uri, tmp_path):
    folder, add = watched(container, tmp_path)
    add()
    wait_until(lambda: query(uri, "SELECT scanned_at IS NOT NULL FROM watched_folders WHERE path = %s", (str(folder),))[0][0])
    source = text_pdf(tmp_path / "scan-source.pdf", ["Invoice 4471 from the harbour master, due in thirty days."] * 3)
    data = source.read_bytes()
    target = folder / "scan.pdf"
    pieces = 6
    with open(target, "wb") as fh:  # a scanner writing in pieces, pausing shorter than the settle delay
        for i in range(pieces):
            fh.write(data[i * len(data) // pieces : (i + 1) * len(data) // pieces])
            fh.flush()
            time.sleep(0.35)
            assert job_state(uri, str(target)) is None, "taken while still being written"
    wait_until(lambda: job_state(uri, str(target)) == "done", what="the finished scan indexed")
    assert job(uri, str(target))["outcome"] == "ingested" and job(uri, str(target))["attempts"] == 1
    assert str(target) in live_docs(uri)


def test_temporary_lock_and_ignored_files_never_reach_the_queue(container, daemon, uri, tmp_path):
    folder, add = watched(container, tmp_path, ignore=("drafts/*", "secret*"))
    add()
    noise = ["~$report.docx", ".~lock.notes.txt#", "movie.part", "paper.pdf.crdownload", "save.tmp", ".DS_Store",
             ".git/notes.txt", "node_modules/readme.md", "drafts/plan.txt", "secret-diary.txt"]
    for name in noise:
        (folder / name).parent.mkdir(parents=True, exist_ok=True)
        (folder / name).write_text("this must never be indexed: ignored by rule\n")
    (folder / "kept.txt").write_text("A sentinel file that is indexed normally.\n")
    wait_until(lambda: job_state(uri, str(folder / "kept.txt")) == "done", what="the sentinel indexed")
    time.sleep(1.0)  # past the settle delay of the noise written before the sentinel
    queued = {r[0] for r in query(uri, "SELECT path FROM ingest_jobs WHERE starts_with(path, %s)", (str(folder) + os.sep,))}
    assert queued == {str(folder / "kept.txt")}


def test_a_bad_file_fails_with_its_reason_and_does_not_block_the_queue(container, daemon, uri, tmp_path):
    folder, add = watched(container, tmp_path)
    corrupt_pdf(folder / "broken.pdf")
    for i in range(3):
        (folder / f"good{i}.txt").write_text(f"Good file number {i} about tidal energy and sea walls.\n")
    add()
    goods = [str(folder / f"good{i}.txt") for i in range(3)]
    wait_until(lambda: set(goods) <= set(live_docs(uri)), what="the good files indexed")
    bad = str(folder / "broken.pdf")
    wait_until(lambda: job_state(uri, bad) == "failed", timeout=30, what="the corrupt PDF marked failed")
    record = job(uri, bad)
    assert record["attempts"] == container.settings.job_max_attempts and "pdf" in record["error"].lower()
    status = container.worker_status()
    assert any(f.path == bad and f.error for f in status.failed_files)


def test_links_that_loop_or_lead_nowhere_get_a_reason(container, daemon, uri, tmp_path):
    folder, add = watched(container, tmp_path)
    (folder / "sub").mkdir()
    os.symlink(folder, folder / "sub" / "back-to-top")  # a directory loop: never followed
    os.symlink(folder / "loop.txt", folder / "loop.txt")  # a link to itself
    (folder / "real.txt").write_text("A real file beside the loops, about granite quarries.\n")
    add()
    wait_until(lambda: job_state(uri, str(folder / "real.txt")) == "done", what="the real file indexed")
    wait_until(lambda: job_state(uri, str(folder / "loop.txt")) == "failed", what="the loop recorded")
    assert "looping" in job(uri, str(folder / "loop.txt"))["error"]
    assert set(p for p in live_docs(uri) if p.startswith(str(folder))) == {str(folder / "real.txt")}


def test_a_file_deleted_while_queued_is_dropped_without_an_error(container, daemon, uri, tmp_path):
    folder, add = watched(container, tmp_path)
    add()
    wait_until(lambda: query(uri, "SELECT scanned_at IS NOT NULL FROM watched_folders WHERE path = %s", (str(folder),))[0][0])
    container.job_queue.set_paused(True)
    try:
        target = folder / "fleeting.txt"
        target.write_text("Written and deleted before the worker got to it.\n")
        wait_until(lambda: job_state(uri, str(target)) == "queued", what="the file queued while paused")
        time.sleep(0.5)
        assert job_state(uri, str(target)) == "queued"  # paused: nothing runs
        target.unlink()
    finally:
        container.job_queue.set_paused(False)
    wait_until(lambda: job_state(uri, str(target)) == "done", what="the job settled after resume")
    assert job(uri, str(target))["outcome"] == "deleted" and job(uri, str(target))["error"] is None


def test_a_watched_folder_that_disappears_keeps_its_documents(container, daemon, uri, tmp_path):
    folder, add = watched(container, tmp_path)
    (folder / "kept.txt").write_text("Documents from a drive that gets unplugged stay searchable.\n")
    add()
    kept = str(folder / "kept.txt")
    wait_until(lambda: kept in live_docs(uri), what="indexed")
    away = tmp_path / "unplugged"
    os.rename(folder, away)
    state = lambda: query(uri, "SELECT state, reason FROM watched_folders WHERE path = %s", (str(folder),))[0]  # noqa: E731
    wait_until(lambda: state()[0] == "missing", what="the folder marked missing")
    assert "not found" in state()[1]
    time.sleep(1.5)
    assert kept in live_docs(uri)  # nothing indexed is lost
    os.rename(away, folder)
    wait_until(lambda: state()[0] == "ok", what="the folder back")
    (folder / "new.txt").write_text("Written after the drive came back.\n")
    wait_until(lambda: str(folder / "new.txt") in live_docs(uri), what="watching resumed")
    assert kept in live_docs(uri)


def test_a_git_folder_records_the_commit_and_dirty_files(container, daemon, uri, tmp_path):
    folder, add = watched(container, tmp_path)
    git = ["git", "-C", str(folder), "-c", "user.name=t", "-c", "user.email=t@example.com"]
    subprocess.run([*git, "init", "-q"], check=True)
    (folder / "committed.md").write_text("# Design\n\nThe bridge uses a cable-stayed design.\n")
    (folder / "changed.md").write_text("# Budget\n\nThe budget is four million.\n")
    subprocess.run([*git, "add", "."], check=True)
    subprocess.run([*git, "commit", "-q", "-m", "first"], check=True)
    (folder / "changed.md").write_text("# Budget\n\nThe budget is now five million.\n")
    (folder / "untracked.md").write_text("# Notes\n\nNot committed yet.\n")
    head = subprocess.run([*git, "rev-parse", "HEAD"], check=True, capture_output=True, text=True).stdout.strip()
    add()
    paths = {n: str(folder / n) for n in ("committed.md", "changed.md", "untracked.md")}
    wait_until(lambda: set(paths.values()) <= set(live_docs(uri)), what="git folder indexed")
    rows = dict((r[0], (r[1], r[2])) for r in query(
        uri, "SELECT path, git_commit, git_dirty FROM documents WHERE path = ANY(%s)", (list(paths.values()),)))
    assert rows[paths["committed.md"]] == (head, False)
    assert rows[paths["changed.md"]] == (head, True)
    assert rows[paths["untracked.md"]] == (head, True)
    assert not any(p.startswith(str(folder / ".git")) for p in live_docs(uri))


def test_a_full_disk_is_recorded_retried_and_loses_nothing(container, daemon, uri, tmp_path):
    folder, add = watched(container, tmp_path)
    (folder / "before.txt").write_text("Indexed before the disk filled up.\n")
    add()
    wait_until(lambda: str(folder / "before.txt") in live_docs(uri), what="indexed")
    # Postgres itself raises its disk_full error (SQLSTATE 53100) on the next content written.
    query(uri, """CREATE FUNCTION full_disk() RETURNS trigger LANGUAGE plpgsql AS $$
                  BEGIN RAISE EXCEPTION 'could not extend file: No space left on device' USING ERRCODE = 'disk_full'; END $$""")
    query(uri, "CREATE TRIGGER full_disk BEFORE INSERT ON contents FOR EACH ROW EXECUTE FUNCTION full_disk()")
    try:
        target = folder / "during.txt"
        target.write_text("Written while the disk was full.\n")
        wait_until(lambda: job_state(uri, str(target)) == "failed", timeout=30, what="the write failure recorded")
        assert "disk" in job(uri, str(target))["error"] and "full" in job(uri, str(target))["error"]
        assert str(folder / "before.txt") in live_docs(uri)
    finally:
        query(uri, "DROP TRIGGER full_disk ON contents")
        query(uri, "DROP FUNCTION full_disk()")
    target.write_text("Written while the disk was full, saved again after space was freed.\n")
    wait_until(lambda: str(target) in live_docs(uri), what="indexed once space is back")


def test_removing_a_folder_takes_its_documents_out_of_search(container, daemon, uri, tmp_path):
    folder, add = watched(container, tmp_path)
    (folder / "a.txt").write_text("A file from a folder the user stops watching.\n")
    add()
    wait_until(lambda: str(folder / "a.txt") in live_docs(uri), what="indexed")
    assert container.watch_folders.remove(str(folder)) == 1
    assert str(folder / "a.txt") in tombstones(uri)
    shutil.rmtree(folder)
