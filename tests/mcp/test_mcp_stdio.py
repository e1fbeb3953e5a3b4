"""`ltm serve --stdio` as a real child process: the SDK's stdio client gets answers (current and 2025-era
protocol), stdout carries nothing but JSON-RPC, and the calls are journaled as the local owner."""

from __future__ import annotations

import json
import queue
import subprocess
import sys
import threading
from pathlib import Path

import pytest
from mcp import Client, StdioServerParameters

from ltm_desktop.core.models import Caller
from tests.conftest import MODELS_DIR
from tests.mcp.conftest import RERANK_CANDIDATES
from tests.mcp.serving import REPO, child_env


@pytest.fixture(scope="module")
def stdio_env(indexed, mcp_db, tmp_path_factory):
    return child_env(tmp_path_factory.mktemp("stdio-home"), mcp_db, MODELS_DIR, LTM_RERANK_CANDIDATES=str(RERANK_CANDIDATES))


def params(env: dict[str, str]) -> StdioServerParameters:
    return StdioServerParameters(command=sys.executable, args=["-m", "ltm_desktop", "serve", "--stdio"], env=env, cwd=REPO)


@pytest.mark.anyio
async def test_stdio_client_searches_and_reads(stdio_env, indexed):
    indexed.journal.record("marker-stdio", Caller("test", "local", True), 0, True, None, None)
    async with Client(params(stdio_env)) as client:
        assert client.protocol_version == "2026-07-28"
        names = {t.name for t in (await client.list_tools()).tools}
        assert {"ltm_search", "ltm_get_document", "ltm_stats", "search", "fetch"} <= names
        r = await client.call_tool("ltm_search", {"query": "when should tomatoes be planted"})
        top = r.structured_content["hits"][0]
        assert top["path"].endswith("garden-plan.md") and top["page_from"] is None
        r = await client.call_tool("ltm_get_document", {"path_or_id": str(top["doc_id"])})
        assert "late May" in r.structured_content["text"]
        r = await client.call_tool("ltm_search", {"query": ""})
        assert r.is_error and "query is empty" in r.content[0].text
    rows = indexed.journal.recent(50)
    since = rows[: next(i for i, r in enumerate(rows) if r.tool == "marker-stdio")]
    assert sorted((c.tool, c.ok) for c in since) == [
        ("ltm_get_document", True), ("ltm_search", False), ("ltm_search", True)
    ]
    assert all((c.client, c.transport) == ("local-owner", "stdio") for c in since)


@pytest.mark.anyio
async def test_stdio_serves_2025_clients(stdio_env):
    async with Client(params(stdio_env), mode="legacy") as client:
        assert client.protocol_version.startswith("2025-")
        r = await client.call_tool("ltm_stats", {})
        assert r.structured_content["documents"] == 8


def test_stdout_carries_nothing_but_protocol(stdio_env):
    """Raw pipes: every stdout line is a JSON-RPC message, even while models load, tools fail and garbage arrives."""
    proc = subprocess.Popen(
        [sys.executable, "-m", "ltm_desktop", "-v", "serve", "--stdio"], stdin=subprocess.PIPE,
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=stdio_env, cwd=REPO,
    )
    lines: queue.Queue[bytes] = queue.Queue()
    stderr: list[bytes] = []
    readers = [threading.Thread(target=lambda: [lines.put(b) for b in proc.stdout], daemon=True),
               threading.Thread(target=lambda: stderr.extend(proc.stderr), daemon=True)]
    for t in readers:
        t.start()
    raw: list[bytes] = []

    def send(*messages) -> None:
        for m in messages:
            proc.stdin.write((m if isinstance(m, str) else json.dumps(m)).encode() + b"\n")
        proc.stdin.flush()

    def answers(*ids) -> dict:
        got: dict = {}
        while not set(ids) <= set(got):
            line = lines.get(timeout=120)
            raw.append(line)
            message = json.loads(line)  # any stray print on stdout fails here
            assert message.get("jsonrpc") == "2.0"
            if "id" in message:
                got[message["id"]] = message
        return got

    try:
        send({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
            "protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "raw", "version": "0"}}})
        assert answers(1)[1]["result"]["serverInfo"]["name"] == "ltm-desktop"
        send({"jsonrpc": "2.0", "method": "notifications/initialized"},
             {"jsonrpc": "2.0", "id": 2, "method": "tools/call", "params": {"name": "ltm_search", "arguments": {"query": "late fee"}}},
             {"jsonrpc": "2.0", "id": 3, "method": "tools/call", "params": {"name": "ltm_search", "arguments": {"query": "x", "k": 0}}},
             {"jsonrpc": "2.0", "id": 4, "method": "tools/call", "params": {"name": "nope", "arguments": {}}})
        got = answers(2, 3, 4)
        assert got[2]["result"]["structuredContent"]["hits"][0]["path"].endswith("harbor-lease-2024.pdf")
        assert got[3]["result"]["isError"] and got[4]["result"]["isError"]
        send("this is not json", {"jsonrpc": "2.0", "id": 5, "method": "tools/list"})
        assert answers(5)[5]["result"]["tools"]  # malformed input did not kill the server
        proc.stdin.close()
        assert proc.wait(60) == 0  # EOF on stdin ends the server cleanly
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
        for t in readers:
            t.join(10)
        for stream in (proc.stdin, proc.stdout, proc.stderr):
            stream.close()
    while not lines.empty():
        json.loads(lines.get())
    assert b"DEBUG" in b"".join(stderr)  # the logs went to stderr instead
    assert (Path(stdio_env["LTM_HOME"]) / "logs" / "mcp-stdio.log").stat().st_size > 0
