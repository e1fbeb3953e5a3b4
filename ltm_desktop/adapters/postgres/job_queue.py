"""PgJobQueue: the durable ingestion queue, one row per path, claimed with FOR UPDATE SKIP LOCKED.

A claim takes a lease; the worker renews it while it works. A worker killed with `kill -9` stops renewing,
so its jobs become claimable again when the lease runs out (or at once, when a worker on the same host
sees that the process is gone). Finishing is guarded by the worker id and the row's generation: a path
re-queued while it was being processed runs again, and a worker whose lease was taken over cannot
overwrite the newer result.
"""

from __future__ import annotations

import logging
import os
import time
from collections.abc import Callable, Sequence

import psycopg

from ltm_desktop.adapters.postgres.database import Database, translate_errors
from ltm_desktop.core.errors import StoreUnavailable
from ltm_desktop.core.jobs import FileSignature, Job, JobRequest

log = logging.getLogger(__name__)
CHANNEL = "ltm_jobs"


def under(root: str) -> str:
    """The prefix every path strictly below root starts with."""
    return root.rstrip("/\\") + os.sep


class PgJobQueue:
    def __init__(self, db: Database) -> None:
        self._db = db

    def enqueue(self, requests: Sequence[JobRequest]) -> int:
        """Queue (or re-arm) one job per path; the latest request for a path wins, at the highest priority."""
        merged: dict[str, JobRequest] = {}
        for r in requests:
            prev = merged.get(r.path)
            if prev is not None and prev.priority > r.priority:
                r = JobRequest(r.path, r.root, r.kind, prev.priority, r.src_path)
            merged[r.path] = r
        if not merged:
            return 0
        rows = list(merged.values())
        with self._db.connection() as conn:
            conn.execute(
                """INSERT INTO ingest_jobs (path, root, kind, src_path, priority)
                   SELECT * FROM unnest(%s::text[], %s::text[], %s::text[], %s::text[], %s::int[])
                   ON CONFLICT (path) DO UPDATE SET
                     root = excluded.root, kind = excluded.kind, src_path = excluded.src_path,
                     priority = CASE WHEN ingest_jobs.state IN ('queued', 'running')
                                     THEN greatest(ingest_jobs.priority, excluded.priority)
                                     ELSE excluded.priority END,
                     state = 'queued', generation = ingest_jobs.generation + 1, attempts = 0,
                     not_before = now(), enqueued_at = now(), error = NULL, outcome = NULL""",
                (
                    [r.path for r in rows],
                    [r.root for r in rows],
                    [r.kind for r in rows],
                    [r.src_path for r in rows],
                    [r.priority for r in rows],
                ),
            )
        return len(rows)

    def claim(self, worker: str, limit: int, lease_seconds: float, max_attempts: int) -> list[Job]:
        """Take up to `limit` runnable jobs, highest priority first; orphans past max_attempts are failed."""
        if limit <= 0:
            return []
        with self._db.connection() as conn:
            conn.execute(
                """UPDATE ingest_jobs SET state = 'failed', finished_at = now(), worker = NULL, lease_until = NULL,
                     error = format('the worker stopped %%s times while processing this file (crash, kill or power '
                                    'loss); it is set aside until the file changes', attempts)
                   WHERE state = 'running' AND lease_until < now() AND attempts >= %s""",
                (max_attempts,),
            )
            rows = conn.execute(
                """WITH picked AS (
                       SELECT id FROM ingest_jobs
                       WHERE (state = 'queued' AND not_before <= now() AND (lease_until IS NULL OR lease_until < now()))
                          OR (state = 'running' AND lease_until < now())
                       ORDER BY priority DESC, id
                       LIMIT %(n)s FOR UPDATE SKIP LOCKED)
                   UPDATE ingest_jobs j SET state = 'running', worker = %(w)s, attempts = j.attempts + 1,
                       lease_until = now() + make_interval(secs => %(lease)s), started_at = now()
                   FROM picked WHERE j.id = picked.id
                   RETURNING j.id, j.path, j.root, j.kind, j.src_path, j.generation, j.attempts, j.priority""",
                {"n": limit, "w": worker, "lease": float(lease_seconds)},
            ).fetchall()
        rows.sort(key=lambda r: (-r[7], r[0]))
        return [Job(r[0], r[1], r[2], r[3], r[4], r[5], r[6], worker) for r in rows]

    def finish(self, job: Job, outcome: str, pages: int | None, sig: FileSignature | None) -> None:
        with self._db.connection() as conn:
            conn.execute(
                """UPDATE ingest_jobs SET
                     state = CASE WHEN generation = %(g)s THEN 'done' ELSE 'queued' END,
                     outcome = CASE WHEN generation = %(g)s THEN %(o)s ELSE outcome END,
                     error = CASE WHEN generation = %(g)s THEN NULL ELSE error END,
                     pages = %(p)s, size = %(s)s, mtime = %(m)s,
                     finished_at = now(), worker = NULL, lease_until = NULL
                   WHERE id = %(id)s AND worker = %(w)s""",
                {"g": job.generation, "o": outcome, "p": pages, "id": job.id, "w": job.worker,
                 "s": sig.size if sig else None, "m": sig.mtime if sig else None},
            )

    def retry(self, job: Job, error: str, delay_seconds: float) -> None:
        with self._db.connection() as conn:
            conn.execute(
                """UPDATE ingest_jobs SET state = 'queued', error = %(e)s, worker = NULL, lease_until = NULL,
                     not_before = CASE WHEN generation = %(g)s THEN now() + make_interval(secs => %(d)s)
                                       ELSE now() END
                   WHERE id = %(id)s AND worker = %(w)s""",
                {"e": error, "g": job.generation, "d": float(delay_seconds), "id": job.id, "w": job.worker},
            )

    def fail(self, job: Job, error: str, sig: FileSignature | None) -> None:
        with self._db.connection() as conn:
            conn.execute(
                """UPDATE ingest_jobs SET
                     state = CASE WHEN generation = %(g)s THEN 'failed' ELSE 'queued' END,
                     error = %(e)s, size = %(s)s, mtime = %(m)s, outcome = NULL,
                     finished_at = now(), worker = NULL, lease_until = NULL
                   WHERE id = %(id)s AND worker = %(w)s""",
                {"g": job.generation, "e": error, "id": job.id, "w": job.worker,
                 "s": sig.size if sig else None, "m": sig.mtime if sig else None},
            )

    def renew(self, worker: str, lease_seconds: float) -> None:
        """The heartbeat: extend this worker's leases and say it is alive."""
        with self._db.connection() as conn:
            conn.execute(
                "UPDATE ingest_jobs SET lease_until = now() + make_interval(secs => %s)"
                " WHERE worker = %s AND state IN ('queued', 'running')",
                (float(lease_seconds), worker),
            )
            conn.execute("UPDATE ingest_workers SET heartbeat_at = now() WHERE id = %s", (worker,))

    def register_worker(self, worker: str, host: str, pid: int) -> None:
        with self._db.connection() as conn:
            conn.execute(
                "INSERT INTO ingest_workers (id, host, pid) VALUES (%s, %s, %s)"
                " ON CONFLICT (id) DO UPDATE SET heartbeat_at = now()",
                (worker, host, pid),
            )

    def unregister_worker(self, worker: str) -> None:
        """A clean stop: hand unfinished jobs straight back to the queue."""
        with self._db.connection() as conn:
            conn.execute(
                "UPDATE ingest_jobs SET state = 'queued', worker = NULL, lease_until = NULL,"
                " attempts = greatest(attempts - 1, 0) WHERE worker = %s AND state IN ('queued', 'running')",
                (worker,),
            )
            conn.execute("DELETE FROM ingest_workers WHERE id = %s", (worker,))

    def release_dead_workers(self, host: str, is_alive: Callable[[str], bool], max_attempts: int) -> int:
        """Return the jobs of this host's vanished workers to the queue now, without waiting for their leases."""
        with self._db.connection() as conn:
            ids = {
                r[0]
                for r in conn.execute(
                    "SELECT worker FROM ingest_jobs WHERE worker IS NOT NULL AND state IN ('queued', 'running')"
                    " UNION SELECT id FROM ingest_workers WHERE host = %s",
                    (host,),
                )
            }
            dead = [w for w in ids if w.split(":", 1)[0] == host and not is_alive(w)]
            if not dead:
                return 0
            n = conn.execute(
                """UPDATE ingest_jobs SET worker = NULL, lease_until = NULL,
                     state = CASE WHEN state = 'running' AND attempts >= %(max)s THEN 'failed'
                                  WHEN state = 'running' THEN 'queued' ELSE state END,
                     error = CASE WHEN state = 'running' AND attempts >= %(max)s
                                  THEN format('the worker stopped %%s times while processing this file (crash, kill '
                                              'or power loss); it is set aside until the file changes', attempts)
                                  ELSE error END
                   WHERE worker = ANY(%(dead)s) AND state IN ('queued', 'running')""",
                {"max": max_attempts, "dead": dead},
            ).rowcount
            conn.execute("DELETE FROM ingest_workers WHERE id = ANY(%s)", (dead,))
        return n

    def is_paused(self) -> bool:
        with self._db.connection() as conn:
            row = conn.execute("SELECT paused FROM worker_control WHERE id = 1").fetchone()
        return bool(row and row[0])

    def pending_count(self) -> int:
        """Jobs queued (including those backing off) or running, by any worker."""
        with self._db.connection() as conn:
            return conn.execute("SELECT count(*) FROM ingest_jobs WHERE state IN ('queued', 'running')").fetchone()[0]

    def set_paused(self, paused: bool) -> None:
        with self._db.connection() as conn:
            conn.execute("UPDATE worker_control SET paused = %s, changed_at = now() WHERE id = 1", (paused,))

    def known_under(self, root: str) -> dict[str, FileSignature | None]:
        """Paths below root with a job row: pending ones map to None, finished ones to the file they saw."""
        with self._db.connection() as conn:
            rows = conn.execute(
                "SELECT path, state, size, mtime FROM ingest_jobs WHERE starts_with(path, %s)", (under(root),)
            ).fetchall()
        out: dict[str, FileSignature | None] = {}
        for path, state, size, mtime in rows:
            if state in ("queued", "running"):
                out[path] = None
            elif size is not None and mtime is not None:
                out[path] = FileSignature(size, mtime)
        return out

    def drop_under(self, root: str) -> int:
        """Forget the jobs of a folder no longer watched (running ones finish; their rows go later)."""
        with self._db.connection() as conn:
            return conn.execute(
                "DELETE FROM ingest_jobs WHERE (path = %s OR starts_with(path, %s)) AND state <> 'running'",
                (root, under(root)),
            ).rowcount


class PgWakeup:
    """LISTEN ltm_jobs on a dedicated connection: wakes idle workers and the tray when anything changes."""

    def __init__(self, conninfo: str) -> None:
        self._conninfo = conninfo
        self._conn: psycopg.Connection | None = None

    def _connect(self) -> psycopg.Connection:
        if self._conn is None or self._conn.closed:
            with translate_errors("notifications"):
                conn = psycopg.connect(self._conninfo, autocommit=True, connect_timeout=10)
                conn.execute(f"LISTEN {CHANNEL}")
            self._conn = conn
        return self._conn

    def wait(self, timeout: float) -> bool:
        """True when a change was announced within timeout seconds; pending announcements are drained."""
        try:
            conn = self._connect()
            got = False
            for _ in conn.notifies(timeout=max(timeout, 0.0), stop_after=1):
                got = True
            if got:  # fold a burst of announcements into one wake-up
                for _ in conn.notifies(timeout=0.05):
                    pass
            return got
        except (psycopg.Error, StoreUnavailable):
            log.warning("lost the notification connection; polling until it comes back", exc_info=True)
            self.close()
            time.sleep(max(timeout, 0.0))
            return False

    def close(self) -> None:
        if self._conn is not None:
            self._conn.close()
            self._conn = None
