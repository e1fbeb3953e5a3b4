"""Numbered, append-only SQL migrations (migrations/NNNN_name.sql), applied in order, each once.

Only writers migrate (the app, the worker, `ltm ingest`, `ltm db migrate`); the read-only search path
checks the version instead and says what to run.
"""

from __future__ import annotations

import re
from importlib import resources

from ltm_desktop.adapters.postgres.database import connect_direct
from ltm_desktop.core.errors import KnownError

_NAME = re.compile(r"^(\d{4})_[a-z0-9_]+\.sql$")
# A fixed key so concurrent migrators (app and worker starting together) take turns.
_LOCK_KEY = 7_311_002


def available_migrations() -> list[tuple[int, str, str]]:
    """(version, file name, SQL) for every migration shipped with the package, in order."""
    folder = resources.files("ltm_desktop.adapters.postgres") / "migrations"
    found = []
    for entry in folder.iterdir():
        m = _NAME.match(entry.name)
        if m:
            found.append((int(m.group(1)), entry.name, entry.read_text(encoding="utf-8")))
    return sorted(found)


def latest_version() -> int:
    return available_migrations()[-1][0]


def applied_version(conninfo: str) -> int:
    with connect_direct(conninfo) as conn:
        exists = conn.execute("SELECT to_regclass('public.schema_migrations') IS NOT NULL").fetchone()[0]
        if not exists:
            return 0
        return conn.execute("SELECT coalesce(max(version), 0) FROM schema_migrations").fetchone()[0]


def migrate(conninfo: str) -> list[str]:
    """Apply pending migrations; returns the names applied (empty when up to date)."""
    applied: list[str] = []
    with connect_direct(conninfo) as conn:
        conn.execute("SELECT pg_advisory_lock(%s)", (_LOCK_KEY,))
        try:
            conn.execute(
                "CREATE TABLE IF NOT EXISTS schema_migrations ("
                " version integer PRIMARY KEY, name text NOT NULL, applied_at timestamptz NOT NULL DEFAULT now())"
            )
            done = {r[0] for r in conn.execute("SELECT version FROM schema_migrations")}
            newest = max(done, default=0)
            if newest > latest_version():
                raise KnownError(
                    f"this database was written by a newer LTM Desktop (schema {newest} > {latest_version()}): "
                    "upgrade the app"
                )
            for version, name, sql in available_migrations():
                if version in done:
                    continue
                with conn.transaction():
                    conn.execute(sql)
                    conn.execute("INSERT INTO schema_migrations (version, name) VALUES (%s, %s)", (version, name))
                applied.append(name)
        finally:
            conn.execute("SELECT pg_advisory_unlock(%s)", (_LOCK_KEY,))
    return applied
