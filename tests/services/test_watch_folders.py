"""Adding, listing and removing watched folders: every bad path is refused with a reason a person can act on."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

from conftest import create_database, make_container
from ltm_desktop.core.errors import InvalidInput, NotFound


@pytest.fixture(scope="module")
def container(tmp_path_factory, pg_uri):
    c = make_container(tmp_path_factory.mktemp("home"), create_database(pg_uri, "wf"))
    yield c
    c.close()


def test_a_folder_is_added_listed_updated_and_removed(container, tmp_path):
    folder = tmp_path / "docs"
    folder.mkdir()
    added = container.watch_folders.add(str(folder), ["*.log"])
    assert (added.path, added.ignore, added.state) == (str(folder), ("*.log",), "new")
    container.watch_folders.add(str(folder) + "/", ["drafts/*"])  # same folder: its globs are replaced
    assert [(f.path, f.ignore) for f in container.watch_folders.list()] == [(str(folder), ("drafts/*",))]
    assert container.watch_folders.remove(str(folder)) == 0
    assert container.watch_folders.list() == []


def test_a_missing_path_a_file_and_an_empty_glob_are_refused(container, tmp_path):
    with pytest.raises(InvalidInput, match="does not exist"):
        container.watch_folders.add(str(tmp_path / "nope"))
    f = tmp_path / "a.pdf"
    f.write_bytes(b"%PDF-1.7")
    with pytest.raises(InvalidInput, match="is a file, not a folder.*ltm ingest"):
        container.watch_folders.add(str(f))
    with pytest.raises(InvalidInput, match="glob is empty"):
        container.watch_folders.add(str(tmp_path), [" "])
    with pytest.raises(NotFound, match="not a watched folder"):
        container.watch_folders.remove(str(tmp_path / "never"))
    assert container.watch_folders.list() == []


def test_nested_folders_are_refused_both_ways(container, tmp_path):
    outer, inner = tmp_path / "outer", tmp_path / "outer" / "inner"
    inner.mkdir(parents=True)
    container.watch_folders.add(str(inner))
    try:
        with pytest.raises(InvalidInput, match="contains the watched folder .*ltm watch remove"):
            container.watch_folders.add(str(outer))
        (tmp_path / "alias").symlink_to(inner)  # the same folder under another name
        with pytest.raises(InvalidInput, match="already watched as part of"):
            container.watch_folders.add(str(tmp_path / "alias"))
        (inner / "deeper").mkdir()
        with pytest.raises(InvalidInput, match="already watched as part of"):
            container.watch_folders.add(str(inner / "deeper"))
    finally:
        container.watch_folders.remove(str(inner))


def test_the_cli_reports_bad_input_in_one_line_and_shows_status(cli_env, tmp_path):
    def ltm(*args):
        return subprocess.run([sys.executable, "-m", "ltm_desktop", *args], env=cli_env, capture_output=True,
                              text=True, timeout=120)

    f = tmp_path / "letter.txt"
    f.write_text("hello")
    bad = ltm("watch", "add", str(f))
    assert bad.returncode == 1 and bad.stderr.count("\n") == 1 and "is a file, not a folder" in bad.stderr
    assert ltm("watch", "add", str(tmp_path)).returncode == 0
    listed = json.loads(ltm("watch", "list", "--json").stdout)
    assert [x["path"] for x in listed] == [str(tmp_path)]
    assert ltm("pause").returncode == 0
    status = json.loads(ltm("status", "--json").stdout)
    assert status["paused"] is True and status["summary"].startswith("paused")
    assert [x["path"] for x in status["folders"]] == [str(tmp_path)]
    assert ltm("resume").returncode == 0
    assert json.loads(ltm("status", "--json").stdout)["paused"] is False
    removed = ltm("watch", "remove", str(tmp_path / "other"))
    assert removed.returncode == 1 and "not a watched folder" in removed.stderr


def test_dropped_files_are_queued_ahead_of_a_backlog(container, tmp_path):
    from ltm_desktop.core.jobs import JobRequest

    folder = tmp_path / "backlog"
    folder.mkdir()
    queue = container.job_queue
    queue.enqueue([JobRequest(str(folder / f"old{i}.txt"), str(folder), "upsert") for i in range(5)])
    dropped = tmp_path / "dropped"
    dropped.mkdir()
    (dropped / "urgent.pdf").write_bytes(b"%PDF-1.7")
    (dropped / "also.txt").write_text("now")
    assert container.watch_folders.queue_now([str(dropped)]) == 2
    with pytest.raises(InvalidInput, match="does not exist"):
        container.watch_folders.queue_now([str(tmp_path / "gone.pdf")])
    first = queue.claim("w", 2, 30, 3)
    assert sorted(j.path for j in first) == [str(dropped / "also.txt"), str(dropped / "urgent.pdf")]
    assert {j.root for j in first} == {str(dropped)}
