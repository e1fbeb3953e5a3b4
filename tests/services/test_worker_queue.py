"""The durable queue on the real embedded Postgres: priority, SKIP LOCKED claims, leases, retries, pause, NOTIFY."""

from __future__ import annotations

import threading
import time

import pytest
from worker_kit import query

from conftest import create_database
from ltm_desktop.adapters.postgres.database import Database
from ltm_desktop.adapters.postgres.job_queue import PgJobQueue, PgWakeup
from ltm_desktop.adapters.postgres.migrations import migrate
from ltm_desktop.adapters.process_probe import is_process_alive
from ltm_desktop.core.jobs import PRIORITY_LIVE, PRIORITY_SCAN, PRIORITY_USER, FileSignature, JobRequest

ROOT = "/data/docs"


@pytest.fixture(scope="module")
def uri(pg_uri):
    u = create_database(pg_uri, "q")
    migrate(u)
    return u


@pytest.fixture
def queue(uri):
    query(uri, "TRUNCATE ingest_jobs, ingest_workers")
    query(uri, "UPDATE worker_control SET paused = false")
    db = Database(uri, max_size=8)
    yield PgJobQueue(db)
    db.close()


def req(name: str, priority: int = PRIORITY_SCAN, kind: str = "upsert") -> JobRequest:
    return JobRequest(f"{ROOT}/{name}", ROOT, kind, priority)  # type: ignore[arg-type]


def names(jobs) -> list[str]:
    return [j.path.rsplit("/", 1)[1] for j in jobs]


def test_user_drops_jump_the_queue_and_nothing_is_claimed_twice(queue):
    queue.enqueue([req("a"), req("b"), req("c", PRIORITY_USER), req("d", PRIORITY_LIVE)])
    assert names(queue.claim("w1", 2, 30, 3)) == ["c", "d"]
    assert names(queue.claim("w2", 5, 30, 3)) == ["a", "b"]
    assert queue.claim("w3", 5, 30, 3) == []


def test_enqueueing_a_path_twice_keeps_one_job_at_the_higher_priority(queue, uri):
    assert queue.enqueue([req("a"), req("a", PRIORITY_USER), req("a")]) == 1
    queue.enqueue([req("a")])
    assert query(uri, "SELECT count(*), max(priority) FROM ingest_jobs")[0] == (1, PRIORITY_USER)


def test_concurrent_claimers_share_the_backlog_without_overlap(queue):
    queue.enqueue([req(f"f{i:03d}") for i in range(60)])
    taken: dict[str, list[str]] = {}

    def claimer(worker: str) -> None:
        mine = taken.setdefault(worker, [])
        while jobs := queue.claim(worker, 3, 30, 3):
            mine.extend(j.path for j in jobs)
            for j in jobs:
                queue.finish(j, "ingested", 1, None)

    threads = [threading.Thread(target=claimer, args=(f"w{i}",)) for i in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    every = [p for paths in taken.values() for p in paths]
    assert len(every) == 60 and len(set(every)) == 60
    assert sum(1 for paths in taken.values() if paths) >= 2


def test_a_path_changed_while_running_runs_again_after_the_current_run(queue, uri):
    queue.enqueue([req("a")])
    (first,) = queue.claim("w1", 1, 30, 3)
    queue.enqueue([req("a", PRIORITY_LIVE)])  # the file changed while w1 reads it
    assert queue.claim("w2", 5, 30, 3) == []  # never two workers on one path at once
    queue.finish(first, "ingested", 3, FileSignature(10, 1.0))
    assert query(uri, "SELECT state FROM ingest_jobs")[0][0] == "queued"
    (second,) = queue.claim("w2", 5, 30, 3)
    assert second.generation == first.generation + 1
    queue.finish(second, "ingested", 3, FileSignature(11, 2.0))
    assert query(uri, "SELECT state, outcome, size FROM ingest_jobs")[0] == ("done", "ingested", 11)


def test_retries_back_off_then_the_file_stays_failed_until_it_changes(queue, uri):
    queue.enqueue([req("bad.pdf")])
    (j1,) = queue.claim("w1", 1, 30, 2)
    queue.retry(j1, "cannot read", 0.6)
    assert queue.claim("w1", 1, 30, 2) == []  # backing off
    time.sleep(0.8)
    (j2,) = queue.claim("w1", 1, 30, 2)
    assert j2.attempts == 2
    queue.fail(j2, "cannot read: corrupt", FileSignature(5, 9.0))
    assert query(uri, "SELECT state, error, attempts FROM ingest_jobs")[0] == ("failed", "cannot read: corrupt", 2)
    assert queue.known_under(ROOT) == {f"{ROOT}/bad.pdf": FileSignature(5, 9.0)}
    queue.enqueue([req("bad.pdf", PRIORITY_LIVE)])  # the file changed: it gets a fresh set of attempts
    assert query(uri, "SELECT state, attempts, error FROM ingest_jobs")[0] == ("queued", 0, None)
    assert queue.known_under(ROOT) == {f"{ROOT}/bad.pdf": None}


def test_an_expired_lease_hands_the_job_over_and_the_old_worker_cannot_overwrite(queue, uri):
    queue.enqueue([req("a")])
    (old,) = queue.claim("w1", 1, 0.3, 3)
    time.sleep(0.5)  # w1 stopped renewing (killed)
    (new,) = queue.claim("w2", 1, 30, 3)
    assert new.path == old.path and new.attempts == 2
    queue.finish(old, "ingested", 1, None)  # w1 wakes up late: ignored
    assert query(uri, "SELECT state, worker FROM ingest_jobs")[0] == ("running", "w2")


def test_a_file_that_kills_its_worker_every_time_is_set_aside(queue, uri):
    queue.enqueue([req("poison.pdf")])
    for _ in range(2):
        assert queue.claim("w", 1, 0.2, 2)
        time.sleep(0.3)
    assert queue.claim("w", 1, 0.2, 2) == []
    state, error = query(uri, "SELECT state, error FROM ingest_jobs")[0]
    assert state == "failed" and "worker stopped 2 times" in error


def test_jobs_of_a_dead_worker_on_this_host_return_at_once(queue, uri):
    queue.enqueue([req("a"), req("b")])
    dead = "thishost:999999:abcd"  # no such pid
    queue.register_worker(dead, "thishost", 999999)
    queue.claim(dead, 2, 600, 3)
    queue.enqueue([req("c")])
    queue.claim("thishost:1:live", 1, 600, 3)
    alive = lambda wid: wid.endswith("live") or is_process_alive(int(wid.split(":")[1]))  # noqa: E731
    assert queue.release_dead_workers("thishost", alive, 3) == 2
    assert sorted(names(queue.claim("w2", 5, 30, 3))) == ["a", "b"]
    assert query(uri, "SELECT id FROM ingest_workers") == []


def test_pause_is_shared_and_announced(queue, uri):
    wake = PgWakeup(uri)
    assert wake.wait(0.2) is False
    other_db = Database(uri)
    other = PgJobQueue(other_db)
    other.set_paused(True)
    assert wake.wait(5) is True
    assert queue.is_paused() is True
    queue.enqueue([req("a")])
    assert wake.wait(5) is True
    queue.renew("nobody", 30)  # lease renewals are not news
    assert wake.wait(0.3) is False
    other.set_paused(False)
    assert queue.is_paused() is False
    wake.close()
    other_db.close()


def test_clean_stop_hands_jobs_back_without_spending_an_attempt(queue, uri):
    queue.enqueue([req("a")])
    queue.register_worker("w1", "h", 1)
    queue.claim("w1", 1, 600, 3)
    queue.unregister_worker("w1")
    assert query(uri, "SELECT state, attempts, worker FROM ingest_jobs")[0] == ("queued", 0, None)


def test_dropping_a_folder_forgets_its_waiting_jobs(queue, uri):
    queue.enqueue([req("a"), req("b"), JobRequest("/elsewhere/x", "/elsewhere", "upsert")])
    (running,) = queue.claim("w1", 1, 600, 3)
    assert queue.drop_under(ROOT) == 1
    assert sorted(r[0] for r in query(uri, "SELECT path FROM ingest_jobs")) == [running.path, "/elsewhere/x"]
