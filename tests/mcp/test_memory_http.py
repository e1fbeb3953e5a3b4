"""Two clients with two tokens against the real `ltm serve --http` child process: authorship comes from the
token, private stays private, only the author may change a memory, and a refused change writes nothing."""

from __future__ import annotations

import json

import pytest
from mcp import Client
from mcp.client.streamable_http import streamable_http_client
from mcp.shared._httpx_utils import create_mcp_http_client

from tests.conftest import MODELS_DIR, create_database, make_container
from tests.mcp.serving import child_env, free_port, start_http_server, stop_server

pytestmark = pytest.mark.anyio


@pytest.fixture(scope="module")
def http_memory(tmp_path_factory, pg_uri, shared_models):
    db = create_database(pg_uri, "memhttp")
    c = make_container(tmp_path_factory.mktemp("memhttp-home"), db, shared_models)
    tokens = {name: c.tokens.create(name)[1] for name in ("alice-app", "bob-app")}
    home = tmp_path_factory.mktemp("memhttp-server")
    port = free_port()
    proc = start_http_server(child_env(home, db, MODELS_DIR), port, home / "captured", verbose=False)
    yield {"url": f"http://127.0.0.1:{port}/mcp", "tokens": tokens, "container": c}
    stop_server(proc)
    c.close()


class As:
    """An MCP client over HTTP holding one client's token."""

    def __init__(self, env: dict, name: str) -> None:
        self._url, self._token = env["url"], env["tokens"][name]

    async def __aenter__(self):
        self._http = create_mcp_http_client(headers={"Authorization": f"Bearer {self._token}"})
        http = await self._http.__aenter__()
        self._client = Client(streamable_http_client(self._url, http_client=http))
        await self._client.__aenter__()
        return self

    async def __aexit__(self, *exc):
        await self._client.__aexit__(*exc)
        await self._http.__aexit__(*exc)

    async def ok(self, tool: str, **args) -> dict:
        r = await self._client.call_tool(tool, args)
        assert not r.is_error, (tool, r.content)
        return r.structured_content

    async def refused(self, tool: str, **args) -> str:
        r = await self._client.call_tool(tool, args)
        assert r.is_error, (tool, r.structured_content)
        return r.content[0].text

    async def resource(self, uri: str) -> dict:
        return json.loads((await self._client.read_resource(uri)).contents[0].text)


async def test_two_tokens_show_authorship_visibility_and_ownership(http_memory):
    async with As(http_memory, "alice-app") as alice, As(http_memory, "bob-app") as bob:
        shared = (await alice.ok("memory_remember", content="The team stand-up moved to 9:30 on Tuesdays.",
                                 type="decision", author="bob-app"))["id"]  # an author parameter is ignored
        private = (await alice.ok("memory_remember", content="Alice is quietly interviewing at another company.",
                                  type="fact", visibility="private"))["id"]

        got = await bob.ok("memory_get", id=shared)
        assert got["author"] == "alice-app"
        assert (got["versions"][0]["author"], got["versions"][0]["transport"]) == ("alice-app", "http")

        # Visibility: Bob sees the shared memory, never the private one (not in recall, list, get or the resource).
        hits = [i["id"] for i in (await bob.ok("memory_recall", query="when is the daily team meeting?"))["items"]]
        assert shared in hits
        bob_view = [i["id"] for i in (await bob.ok("memory_recall", query="is Alice looking for a new job?", limit=50))["items"]]
        assert private not in bob_view
        assert private not in [i["id"] for i in (await bob.ok("memory_list", limit=50))["items"]]
        assert private not in [i["id"] for i in (await bob.resource("memory://shared"))["items"]]
        assert "no memory with id" in await bob.refused("memory_get", id=private)
        alice_view = [i["id"] for i in (await alice.ok("memory_recall", query="is Alice looking for a new job?"))["items"]]
        assert alice_view[0] == private

        # Ownership: Bob may not update, forget or restore Alice's memories; nothing changes.
        assert "belongs to 'alice-app'" in await bob.refused("memory_update", id=shared, content="Stand-up is cancelled.")
        assert "belongs to 'alice-app'" in await bob.refused("memory_forget", id=shared)
        assert "no memory with id" in await bob.refused("memory_forget", id=private)
        assert "no memory with id" in await bob.refused("memory_update", id=private, content="x")
        after = await alice.ok("memory_get", id=shared)
        assert (after["current_version"], after["status"]) == (1, "active")

        # Bob's own memory is his, whatever he claims.
        mine = await bob.ok("memory_remember", content="Bob owns the release checklist.", type="task", author="alice-app")
        assert (await alice.ok("memory_get", id=mine["id"]))["author"] == "bob-app"

        # History, forget and restore by the author, seen by the other client.
        await alice.ok("memory_update", id=shared, content="The team stand-up moved to 9:45 on Tuesdays.")
        got = await bob.ok("memory_get", id=shared)
        assert [v["version"] for v in got["versions"]] == [1, 2] and "9:45" in got["content"]
        await alice.ok("memory_forget", id=shared)
        assert shared not in [i["id"] for i in (await bob.ok("memory_recall", query="team stand-up time"))["items"]]
        assert "no memory with id" in await bob.refused("memory_restore", id=shared)
        await alice.ok("memory_restore", id=shared)
        assert shared in [i["id"] for i in (await bob.ok("memory_recall", query="team stand-up time"))["items"]]

        # Sessions: anyone may read a shared session; only its author may save over it.
        await alice.ok("session_save", session_id="planning-call", content="alice: agenda\nbob: notes")
        assert (await bob.ok("session_load", session_id="planning-call"))["content"] == "alice: agenda\nbob: notes"
        assert "saved by 'alice-app'" in await bob.refused("session_save", session_id="planning-call", content="mine now")
