"""Read-only by construction: the pools the server uses cannot write, even when a query tries to."""

from __future__ import annotations

import psycopg
import pytest

from ltm_desktop.core.models import LOCAL_OWNER


def test_search_pool_is_the_select_only_role_in_read_only_transactions(indexed):
    db = indexed.search_index._db  # the very pool the tools read through
    assert db is indexed.read_db and db.user == "ltm_reader"
    with db.connection() as conn:
        assert conn.execute("SELECT current_user").fetchone()[0] == "ltm_reader"
        assert conn.execute("SHOW default_transaction_read_only").fetchone()[0] == "on"
    with pytest.raises(psycopg.errors.ReadOnlySqlTransaction), db.connection() as conn:
        conn.execute("DELETE FROM documents")
    # Even with read-only switched off, the role itself has no write privilege.
    journal_row = "INSERT INTO tool_journal (tool, client, transport, duration_ms, ok) VALUES ('t', 'c', 'stdio', 1, true)"
    for statement in ("DELETE FROM documents", "UPDATE chunks SET text = 'x'", journal_row,
                      "DROP TABLE chunks", "CREATE TABLE evil (x int)"):
        with pytest.raises(psycopg.errors.InsufficientPrivilege), db.connection() as conn:
            conn.execute("SET LOCAL transaction_read_only = off")
            conn.execute(statement)
    with db.connection() as conn:
        assert conn.execute("SELECT count(*) FROM documents").fetchone()[0] == 8


def test_the_servers_write_role_can_only_journal_and_mark_tokens_used(indexed):
    indexed.journal.record("probe", LOCAL_OWNER, 1.0, True, None, None)  # allowed: its one job
    db = indexed.journal_db
    with db.connection() as conn:
        assert conn.execute("SELECT current_user").fetchone()[0] == "ltm_journal"
    for statement in ("DELETE FROM documents", "UPDATE documents SET title = 'x'", "DELETE FROM api_tokens",
                      "UPDATE api_tokens SET revoked_at = NULL", "UPDATE api_tokens SET name = 'x'",
                      "INSERT INTO api_tokens (name, token_sha256) VALUES ('x', repeat('a', 64))",
                      "UPDATE tool_journal SET ok = false", "TRUNCATE tool_journal", "CREATE TABLE evil (x int)"):
        with pytest.raises(psycopg.errors.InsufficientPrivilege), db.connection() as conn:
            conn.execute(statement)
