"""PgWatchStore: watched folders, and the document-side changes the worker makes besides ingesting.

Watched folders live in the database, not in config.toml, so the tray, the CLI and every worker (on this
machine or another pointed at the same Postgres) see one list and react to a change through NOTIFY.
A deleted file's document becomes a tombstone (deleted_at set): search ignores it, but its content stays,
so a move seen as delete + create re-points it instead of re-embedding. Tombstones are purged after a grace period.
"""

from __future__ import annotations

from collections.abc import Sequence

import psycopg

from ltm_desktop.adapters.postgres.database import Database
from ltm_desktop.adapters.postgres.job_queue import under
from ltm_desktop.core.jobs import FileSignature, WatchedFolder


class PgWatchStore:
    def __init__(self, db: Database) -> None:
        self._db = db

    # ---- folders -------------------------------------------------------------------------------------

    def folders(self) -> list[WatchedFolder]:
        with self._db.connection() as conn:
            rows = conn.execute(
                "SELECT path, ignore, state, reason, to_char(scanned_at, 'YYYY-MM-DD\"T\"HH24:MI:SSOF')"
                " FROM watched_folders ORDER BY path"
            ).fetchall()
        return [WatchedFolder(r[0], tuple(r[1]), r[2], r[3], r[4]) for r in rows]

    def add_folder(self, path: str, ignore: Sequence[str]) -> None:
        with self._db.connection() as conn:
            conn.execute(
                "INSERT INTO watched_folders (path, ignore) VALUES (%s, %s)"
                " ON CONFLICT (path) DO UPDATE SET ignore = excluded.ignore",
                (path, list(ignore)),
            )

    def remove_folder(self, path: str) -> bool:
        with self._db.connection() as conn:
            return conn.execute("DELETE FROM watched_folders WHERE path = %s", (path,)).rowcount > 0

    def mark_folder(self, path: str, state: str, reason: str | None) -> None:
        with self._db.connection() as conn:
            conn.execute(
                "UPDATE watched_folders SET state = %s, reason = %s,"
                " scanned_at = CASE WHEN %s = 'ok' THEN now() ELSE scanned_at END WHERE path = %s",
                (state, reason, state, path),
            )

    # ---- documents -----------------------------------------------------------------------------------

    def live_documents_under(self, root: str) -> dict[str, FileSignature]:
        with self._db.connection() as conn:
            rows = conn.execute(
                "SELECT path, size, mtime FROM documents WHERE starts_with(path, %s) AND deleted_at IS NULL",
                (under(root),),
            ).fetchall()
        return {r[0]: FileSignature(r[1], r[2]) for r in rows}

    def tombstone(self, path: str) -> int:
        """Hide the document at path, or every document below it when path was a folder."""
        with self._db.connection() as conn:
            n = conn.execute(
                "UPDATE documents SET deleted_at = now(), updated_at = now()"
                " WHERE (path = %s OR starts_with(path, %s)) AND deleted_at IS NULL",
                (path, under(path)),
            ).rowcount
            conn.execute("DELETE FROM ingest_issues WHERE path = %s OR starts_with(path, %s)", (path, under(path)))
        return n

    def purge_tombstones(self, older_than_seconds: float) -> int:
        """Forget tombstones older than the grace period, and content no document holds any more."""
        with self._db.connection() as conn:
            gone = conn.execute(
                "DELETE FROM documents WHERE deleted_at < now() - make_interval(secs => %s) RETURNING sha256",
                (float(older_than_seconds),),
            ).fetchall()
            _drop_orphans(conn, {r[0] for r in gone})
        return len(gone)

    def repoint_folder(self, old_prefix: str, new_prefix: str, root: str) -> int:
        """A renamed or moved folder: every document below it follows, in one statement, nothing re-embedded."""
        old, new = under(old_prefix), under(new_prefix)
        with self._db.connection() as conn:
            # Rows already at the new paths (stale rows, tombstones) give way to the moved documents.
            stale = conn.execute(
                "DELETE FROM documents d USING documents m"
                " WHERE starts_with(m.path, %(old)s) AND d.path = %(new)s || substr(m.path, length(%(old)s) + 1)"
                " AND d.id <> m.id RETURNING d.sha256",
                {"old": old, "new": new},
            ).fetchall()
            n = conn.execute(
                "UPDATE documents SET path = %(new)s || substr(path, length(%(old)s) + 1),"
                " root = %(root)s, rel_path = substr(%(new)s || substr(path, length(%(old)s) + 1), length(%(rootp)s) + 1),"
                " updated_at = now() WHERE starts_with(path, %(old)s)",
                {"old": old, "new": new, "root": root, "rootp": under(root)},
            ).rowcount
            _drop_orphans(conn, {r[0] for r in stale})
            conn.execute("DELETE FROM ingest_issues WHERE starts_with(path, %s)", (old,))
            conn.execute("DELETE FROM ingest_jobs WHERE starts_with(path, %s) AND state IN ('done', 'failed')", (old,))
        return n

    def record_git_state(self, path: str, commit: str, dirty: bool) -> None:
        with self._db.connection() as conn:
            conn.execute("UPDATE documents SET git_commit = %s, git_dirty = %s WHERE path = %s", (commit, dirty, path))


def _drop_orphans(conn: psycopg.Connection, shas: set[str]) -> None:
    if shas:
        conn.execute(
            "DELETE FROM contents c WHERE c.sha256 = ANY(%s)"
            " AND NOT EXISTS (SELECT 1 FROM documents d WHERE d.sha256 = c.sha256)",
            (list(shas),),
        )
