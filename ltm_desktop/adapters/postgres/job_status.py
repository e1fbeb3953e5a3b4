"""PgStatusReader: what the queue is doing, read through the read-only pool (tray, `ltm status`, MCP stats)."""

from __future__ import annotations

from collections.abc import Sequence

from ltm_desktop.adapters.postgres.database import Database
from ltm_desktop.core.jobs import JobRecord, WatchedFolder, WorkerInfo

_TS = "to_char({}, 'YYYY-MM-DD\"T\"HH24:MI:SSOF')"


class PgStatusReader:
    def __init__(self, db: Database) -> None:
        self._db = db

    def has_queue(self) -> bool:
        """False on a database from before the worker existed (nothing has been queued, ever)."""
        with self._db.connection() as conn:
            return bool(conn.execute("SELECT to_regclass('public.ingest_jobs') IS NOT NULL").fetchone()[0])

    def job_counts(self) -> dict[str, int]:
        with self._db.connection() as conn:
            rows = conn.execute(
                "SELECT CASE WHEN state = 'queued' AND lease_until > now() THEN 'running' ELSE state END, count(*)"
                " FROM ingest_jobs GROUP BY 1"
            ).fetchall()
        counts = {"queued": 0, "running": 0, "done": 0, "failed": 0}
        for state, n in rows:
            counts[state] += n
        return counts

    def throughput(self, window_seconds: float) -> tuple[int, int, float]:
        with self._db.connection() as conn:
            row = conn.execute(
                "SELECT count(*), coalesce(sum(pages), 0),"
                " coalesce(extract(epoch FROM max(finished_at) - least(min(started_at), min(finished_at))), 0)"
                " FROM ingest_jobs WHERE state = 'done' AND finished_at > now() - make_interval(secs => %s)",
                (float(window_seconds),),
            ).fetchone()
        return int(row[0]), int(row[1]), float(row[2])

    def workers(self) -> list[WorkerInfo]:
        with self._db.connection() as conn:
            rows = conn.execute(
                f"SELECT id, host, pid, {_TS.format('started_at')}, extract(epoch FROM now() - heartbeat_at)"
                " FROM ingest_workers ORDER BY started_at"
            ).fetchall()
        return [WorkerInfo(r[0], r[1], r[2], r[3], float(r[4])) for r in rows]

    def jobs(self, states: Sequence[str], limit: int) -> list[JobRecord]:
        with self._db.connection() as conn:
            rows = conn.execute(
                f"SELECT path, kind, state, attempts, priority, error, outcome, worker,"
                f" {_TS.format('coalesce(finished_at, started_at, enqueued_at)')}"
                " FROM ingest_jobs WHERE state = ANY(%s)"
                " ORDER BY CASE state WHEN 'running' THEN 0 WHEN 'failed' THEN 1 ELSE 2 END,"
                " priority DESC, coalesce(finished_at, started_at, enqueued_at) DESC LIMIT %s",
                (list(states), limit),
            ).fetchall()
        return [JobRecord(*r) for r in rows]

    def folders(self) -> list[WatchedFolder]:
        with self._db.connection() as conn:
            rows = conn.execute(
                f"SELECT path, ignore, state, reason, {_TS.format('scanned_at')} FROM watched_folders ORDER BY path"
            ).fetchall()
        return [WatchedFolder(r[0], tuple(r[1]), r[2], r[3], r[4]) for r in rows]

    def is_paused(self) -> bool:
        with self._db.connection() as conn:
            row = conn.execute("SELECT paused FROM worker_control WHERE id = 1").fetchone()
        return bool(row and row[0])
