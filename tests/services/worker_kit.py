"""Helpers shared by the worker and watch tests: waiting on real state, and reading it straight from Postgres."""

from __future__ import annotations

import contextlib
import threading
import time
from collections.abc import Callable, Iterator

import psycopg

FAST = dict(
    ingest_workers=1,
    watch_settle_seconds=0.6,
    watch_poll_seconds=0.2,
    job_retry_seconds=0.2,
    worker_lease_seconds=4.0,
    worker_nice=0,
)


def wait_until(predicate: Callable[[], object], timeout: float = 60.0, every: float = 0.2, what: str = "") -> object:
    """Poll until predicate() is truthy; fail with `what` after timeout."""
    deadline = time.monotonic() + timeout
    while True:
        value = predicate()
        if value:
            return value
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out after {timeout:.0f}s waiting for {what or predicate}")
        time.sleep(every)


def query(uri: str, sql: str, params: tuple = ()) -> list[tuple]:
    with psycopg.connect(uri, autocommit=True) as conn:
        cur = conn.execute(sql, params)
        return cur.fetchall() if cur.description else []


def live_docs(uri: str) -> dict[str, tuple[int, str]]:
    """path -> (doc id, sha256) of documents search can see."""
    return {r[0]: (r[1], r[2]) for r in query(uri, "SELECT path, id, sha256 FROM documents WHERE deleted_at IS NULL")}


def tombstones(uri: str) -> set[str]:
    return {r[0] for r in query(uri, "SELECT path FROM documents WHERE deleted_at IS NOT NULL")}


def job(uri: str, path: str) -> dict | None:
    rows = query(uri, "SELECT state, kind, attempts, error, outcome, worker FROM ingest_jobs WHERE path = %s", (str(path),))
    if not rows:
        return None
    keys = ("state", "kind", "attempts", "error", "outcome", "worker")
    return dict(zip(keys, rows[0]))


def job_state(uri: str, path: str) -> str | None:
    j = job(uri, path)
    return j["state"] if j else None


def content_rows(uri: str) -> tuple[int, int]:
    """(contents, chunks): grows only when something is really extracted and embedded."""
    return query(uri, "SELECT (SELECT count(*) FROM contents), (SELECT count(*) FROM chunks)")[0]


def pending(uri: str) -> int:
    return query(uri, "SELECT count(*) FROM ingest_jobs WHERE state IN ('queued', 'running')")[0][0]


@contextlib.contextmanager
def running_daemon(container, watch: bool = True) -> Iterator[object]:
    """The real worker (watchdog, queue, extraction process) on a thread of this test process."""
    daemon = container.worker_daemon(watch=watch)
    stop = threading.Event()
    errors: list[BaseException] = []

    def target() -> None:
        try:
            daemon.run(stop)
        except BaseException as e:  # surfaced to the test below
            errors.append(e)

    thread = threading.Thread(target=target, name="test-worker", daemon=True)
    thread.start()
    try:
        yield daemon
    finally:
        stop.set()
        thread.join(timeout=60)
    assert not thread.is_alive(), "the worker did not stop"
    assert errors == []
