"""The audit journal: every tool call (including ones the SDK rejects) with client, duration and outcome;
query text only when the user turned it on; old rows pruned."""

from __future__ import annotations

import pytest
from mcp import Client

from ltm_desktop.core.models import Caller
from ltm_desktop.mcp.journal_middleware import flush_journal
from ltm_desktop.mcp.server import build_server
from tests.conftest import make_container

pytestmark = pytest.mark.anyio


def _since(container, marker: str):
    """Journal rows newer than a marker call, oldest first."""
    rows = container.journal.recent(200)
    idx = next(i for i, r in enumerate(rows) if r.tool == marker)
    return list(reversed(rows[:idx]))


async def test_every_call_is_journaled_without_query_text_by_default(indexed):
    indexed.journal.record("marker-1", Caller("test", "local", True), 0, True, None, None)
    server = build_server(indexed)
    async with Client(server) as client:
        await client.call_tool("ltm_search", {"query": "secret project falcon rent"})
        await client.call_tool("ltm_search", {"query": "rent", "k": 99})  # rejected by the schema
        await client.call_tool("ltm_get_document", {"path_or_id": "private-diary-entry"})  # not found
        await client.call_tool("no_such_tool", {})
    assert flush_journal(server)
    rows = _since(indexed, "marker-1")
    assert [(r.tool, r.ok) for r in rows] == [
        ("ltm_search", True), ("ltm_search", False), ("ltm_get_document", False), ("no_such_tool", False)
    ]
    assert all((r.client, r.transport) == ("local-owner", "stdio") for r in rows)
    assert all(r.duration_ms >= 0 for r in rows) and rows[0].duration_ms > 1
    assert all(r.query is None for r in rows)
    assert "less than or equal to 50" in rows[1].error
    # What the user typed never reaches the journal through an error message either.
    assert "private-diary-entry" not in rows[2].error and "no document matches" in rows[2].error
    assert "falcon" not in " ".join(str(r) for r in rows)


async def test_query_text_is_kept_when_the_user_turned_it_on(tmp_path, mcp_db, shared_models, indexed):
    c = make_container(tmp_path, mcp_db, shared_models, log_queries=True)
    try:
        c.journal.record("marker-2", Caller("test", "local", True), 0, True, None, None)
        server = build_server(c)
        async with Client(server) as client:
            await client.call_tool("ltm_search", {"query": "garden tomatoes"})
            await client.call_tool("ltm_get_document", {"path_or_id": "garden-plan.md"})
            await client.call_tool("fetch", {"id": "nope"})
        assert flush_journal(server)
        rows = _since(c, "marker-2")
        assert [r.query for r in rows] == ["garden tomatoes", "garden-plan.md", "nope"]
        assert "'nope'" in rows[2].error
    finally:
        c.close()


def test_old_calls_are_pruned_after_the_retention_period(indexed):
    with indexed.write_db.connection() as conn:
        conn.execute(
            "INSERT INTO tool_journal (at, tool, client, transport, duration_ms, ok) VALUES"
            " (now() - interval '31 days', 'ancient', 'c', 'stdio', 1, true),"
            " (now() - interval '29 days', 'recent-enough', 'c', 'stdio', 1, true)"
        )
    assert indexed.journal.retention_days == 30
    assert indexed.journal.prune() >= 1
    with indexed.write_db.connection() as conn:
        tools = {r[0] for r in conn.execute("SELECT tool FROM tool_journal")}
    assert "ancient" not in tools and "recent-enough" in tools


def test_summary_counts_calls_and_errors_per_tool_and_client(indexed):
    who = Caller("summary-client", "http", False)
    for ok in (True, True, False):
        indexed.journal.record("ltm_stats", who, 2.0, ok, None if ok else "boom", None)
    rows = {(t, c): (n, e) for t, c, n, e in indexed.journal.summary(24)}
    assert rows[("ltm_stats", "summary-client")] == (3, 1)


async def test_a_journal_that_cannot_be_written_does_not_fail_or_delay_the_call(fresh_container, caplog):
    # No tables in this database yet: the journal says so in the log; the call itself is answered.
    assert fresh_container.journal.record("x", Caller("c", "stdio", True), 1, True, None, None) is False
    server = build_server(fresh_container)
    async with Client(server) as client:
        r = await client.call_tool("ltm_stats", {})
    assert r.is_error and "no index yet" in r.content[0].text
    assert flush_journal(server)
    assert "tool call not journaled (ltm_stats)" in caplog.text and "ltm db migrate" in caplog.text
