"""The memory tools through the SDK's in-memory client (the local owner, as over stdio): annotations and
schemas, a ToolError naming each bad input, an author parameter that is ignored, the memory://{namespace}
resource, and a 200,000-character session that round-trips exactly through session_save/session_load."""

from __future__ import annotations

import json
import random

import pytest
from mcp import Client

from ltm_desktop.mcp.server import build_server
from tests.conftest import create_database, make_container

pytestmark = pytest.mark.anyio
MEMORY_TOOLS = {"memory_remember", "memory_recall", "memory_list", "memory_get", "memory_update", "memory_forget",
                "memory_restore", "session_save", "session_load"}


@pytest.fixture(scope="module")
def mem(tmp_path_factory, pg_uri, shared_models):
    c = make_container(tmp_path_factory.mktemp("memtools-home"), create_database(pg_uri, "memtools"), shared_models)
    yield c
    c.close()


async def call(client, tool: str, **args):
    r = await client.call_tool(tool, args)
    return r


async def ok(client, tool: str, **args) -> dict:
    r = await client.call_tool(tool, args)
    assert not r.is_error, r.content
    return r.structured_content


async def test_tools_resource_and_annotations(mem):
    async with Client(build_server(mem)) as client:
        tools = {t.name: t for t in (await client.list_tools()).tools}
        templates = (await client.list_resource_templates()).resource_templates
    assert MEMORY_TOOLS <= set(tools)
    hints = {n: (tools[n].annotations.read_only_hint, tools[n].annotations.destructive_hint) for n in MEMORY_TOOLS}
    for name in ("memory_recall", "memory_list", "memory_get", "session_load"):
        assert hints[name] == (True, False), name
    for name in ("memory_remember", "memory_update", "session_save", "memory_restore"):
        assert hints[name] == (False, False), name
    assert hints["memory_forget"] == (False, True)
    assert all(tools[n].output_schema is not None and len(tools[n].description) > 50 for n in MEMORY_TOOLS)
    assert "author" not in tools["memory_remember"].input_schema["properties"]
    assert "preference" in tools["memory_remember"].input_schema["properties"]["type"]["description"]
    assert [t.uri_template for t in templates if t.uri_template.startswith("memory://")] == ["memory://{namespace}"]


async def test_remember_recall_update_forget_restore_and_the_resource(mem):
    async with Client(build_server(mem)) as client:
        r = await ok(client, "memory_remember", content="The user's car is a 2018 Subaru Outback, serviced at Valley Auto.",
                     type="fact", tags=["car"], project="vehicles", author="someone-else")  # author is ignored
        mid = r["id"]
        assert r["status"] == "created"
        got = await ok(client, "memory_get", id=mid)
        assert got["author"] == "local-owner" and got["versions"][0]["transport"] == "stdio"
        found = await ok(client, "memory_recall", query="what vehicle does the user drive?")
        assert found["items"][0]["id"] == mid and found["total"] >= 1 and found["has_more"] is False
        dup = await ok(client, "memory_remember", content="The user's car is a 2018 Subaru Outback, serviced at Valley Auto")
        assert (dup["status"], dup["id"]) == ("duplicate", mid) and "memory_update" in dup["hint"]
        upd = await ok(client, "memory_update", id=mid, content="The user's car is a 2018 Subaru Outback; now serviced at Hill Garage.")
        assert upd["current_version"] == 2 and [v["version"] for v in upd["versions"]] == [1, 2]
        assert (await ok(client, "memory_forget", id=mid))["status"] == "forgotten"
        assert mid not in [i["id"] for i in (await ok(client, "memory_list", limit=50))["items"]]
        assert (await ok(client, "memory_restore", id=mid))["status"] == "active"
        listed = await ok(client, "memory_list", project="vehicles")
        assert [i["id"] for i in listed["items"]] == [mid] and listed["items"][0]["version"] == 2

        res = await client.read_resource("memory://vehicles")
        body = json.loads(res.contents[0].text)
        assert [i["id"] for i in body["items"]] == [mid]
        shared = json.loads((await client.read_resource("memory://shared")).contents[0].text)
        assert mid not in [i["id"] for i in shared["items"]]  # filed under a project, not the shared pool


async def test_bad_input_is_a_tool_error_naming_the_problem(mem):
    async with Client(build_server(mem)) as client:
        own = (await ok(client, "memory_remember", content="The attic hatch is in the hall closet."))["id"]
        cases = [
            ("memory_remember", {"content": ""}, "content is empty"),
            ("memory_remember", {"content": "x" * 20_001}, "limit is 20,000"),
            ("memory_remember", {"content": "ok", "type": "rumour"}, "unknown memory type 'rumour'"),
            ("memory_remember", {"content": "ok", "expires_at": "2001-01-01"}, "in the past"),
            ("memory_get", {"id": "mem_0000000000000000"}, "no memory with id"),
            ("memory_update", {"id": "mem_0000000000000000", "content": "x"}, "no memory with id"),
            ("memory_forget", {"id": "nope"}, "no memory with id"),
            ("memory_update", {"id": own, "content": "x", "type": "rumour"}, "unknown memory type"),
            ("memory_recall", {"query": "attic", "cursor": "garbage"}, "cursor is malformed"),
            ("memory_list", {"cursor": "Zm9vLmJhcg"}, "cursor is malformed"),
            ("memory_recall", {"query": "attic", "as_of": "2999-01-01"}, "in the future"),
            ("memory_recall", {"query": "attic", "limit": 500}, "limit must be between 1 and 50"),
            ("session_load", {"session_id": "never-saved"}, "no saved session"),
        ]
        for tool, args, message in cases:
            r = await call(client, tool, **args)
            assert r.is_error, (tool, args)
            assert message in r.content[0].text, (tool, r.content[0].text)
        got = await ok(client, "memory_get", id=own)
        assert got["current_version"] == 1 and got["content"] == "The attic hatch is in the hall closet."


async def test_a_200k_character_session_round_trips_exactly(mem):
    rng = random.Random(11)
    # Mostly plain English, like a real transcript, plus the characters that break naive round trips.
    lines = ["user: what did the plumber quote for replacing the water heater in the basement last week?",
             "assistant: he quoted thirteen hundred and eighty dollars installed, including removal of the old tank.",
             "user: and did we ever book the flights for the trip in October?\r",
             "assistant:\tyes, the flights are booked and the hotel is confirmed — café breakfast included 🙂",
             "```python\nprint('hi')\n```", "## notes about the roof shingles and the gutter cleaning schedule"]
    text = "\n".join(rng.choice(lines) + f" #{n}" for n in range(6_000))[:200_000]
    assert len(text) == 200_000
    async with Client(build_server(mem)) as client:
        saved = await ok(client, "session_save", session_id="transcript-200k", content=text, project="house")
        assert saved["status"] == "created"
        pieces, page = [], 0
        while True:
            p = await ok(client, "session_load", session_id="transcript-200k", page=page)
            pieces.append(p["content"])
            assert (p["total_chars"], p["total_pages"], p["page_size"]) == (200_000, 25, 8000)
            if not p["has_more"]:
                break
            page += 1
    assert page == 24 and "".join(pieces) == text
