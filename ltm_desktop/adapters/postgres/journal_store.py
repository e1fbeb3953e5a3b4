"""PgJournalStore: the append-only journal of MCP tool calls, and the narrow role the server writes it with.

The MCP server reads documents through the SELECT-only `ltm_reader` pool; its one write path (journal rows,
a token's last-used time) goes through `ltm_journal`, which can do nothing else (migration 0003).
"""

from __future__ import annotations

import psycopg
from psycopg.conninfo import make_conninfo

from ltm_desktop.adapters.postgres.database import Database, translate_errors
from ltm_desktop.adapters.postgres.token_store import missing_tables_as_known
from ltm_desktop.core.models import ToolCall

JOURNAL_ROLE = "ltm_journal"
ERROR_CHARS = 500
QUERY_CHARS = 2000


def journal_database(conninfo: str, max_size: int = 2) -> Database:
    """A pool for the server's writes: as `ltm_journal` where that role exists, else as the URI's own user."""
    with translate_errors("journal"), psycopg.connect(conninfo, connect_timeout=10) as conn:
        exists = conn.execute("SELECT 1 FROM pg_roles WHERE rolname = %s", (JOURNAL_ROLE,)).fetchone()
    uri = make_conninfo(conninfo, user=JOURNAL_ROLE) if exists else conninfo
    return Database(uri, read_only=False, max_size=max_size, label="journal")


class PgJournalStore:
    def __init__(self, db: Database) -> None:
        self._db = db

    def record(self, call: ToolCall) -> None:
        with missing_tables_as_known("tool_journal"), self._db.connection() as conn:
            conn.execute(
                "INSERT INTO tool_journal (tool, client, transport, duration_ms, ok, error, query)"
                " VALUES (%s, %s, %s, %s, %s, %s, %s)",
                (
                    call.tool[:200], call.client[:200], call.transport, call.duration_ms, call.ok,
                    None if call.error is None else call.error[:ERROR_CHARS],
                    None if call.query is None else call.query[:QUERY_CHARS],
                ),
            )

    def prune(self, older_than_days: int) -> int:
        with missing_tables_as_known("tool_journal"), self._db.connection() as conn:
            cur = conn.execute("DELETE FROM tool_journal WHERE at < now() - make_interval(days => %s)", (older_than_days,))
            return cur.rowcount

    def recent(self, limit: int) -> list[ToolCall]:
        with missing_tables_as_known("tool_journal"), self._db.connection() as conn:
            rows = conn.execute(
                "SELECT tool, client, transport, duration_ms, ok, error, query,"
                " to_char(at AT TIME ZONE 'UTC', 'YYYY-MM-DD\"T\"HH24:MI:SS\"Z\"')"
                " FROM tool_journal ORDER BY at DESC, id DESC LIMIT %s",
                (limit,),
            ).fetchall()
        return [ToolCall(r[0], r[1], r[2], round(float(r[3]), 1), r[4], r[5], r[6], r[7]) for r in rows]

    def summary(self, since_hours: int) -> list[tuple[str, str, int, int]]:
        with missing_tables_as_known("tool_journal"), self._db.connection() as conn:
            rows = conn.execute(
                "SELECT tool, client, count(*), count(*) FILTER (WHERE NOT ok) FROM tool_journal"
                " WHERE at >= now() - make_interval(hours => %s) GROUP BY 1, 2 ORDER BY 3 DESC, 1, 2",
                (since_hours,),
            ).fetchall()
        return [(r[0], r[1], int(r[2]), int(r[3])) for r in rows]
