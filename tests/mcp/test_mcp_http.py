"""The real `ltm serve --http` child process on 127.0.0.1, driven by the SDK's HTTP client and raw requests:
tokens in the header and in the path, 401/421/403/413/400 for each bad request, the tunnel host picked up
without a restart, identities in the journal, and no token anywhere in the logs the run produced."""

from __future__ import annotations

import json
import time

import anyio
import httpx2
import pytest
from mcp import Client
from mcp.client.streamable_http import streamable_http_client
from mcp.shared._httpx_utils import create_mcp_http_client

from tests.conftest import MODELS_DIR
from tests.mcp.conftest import RERANK_CANDIDATES
from tests.mcp.serving import child_env, free_port, start_http_server, stop_server

PUBLIC_HOST = "ltm-test.example.net"
INIT = {
    "jsonrpc": "2.0", "id": 1, "method": "initialize",
    "params": {"protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "raw", "version": "1"}},
}
JSON_HEADERS = {"Content-Type": "application/json", "Accept": "application/json, text/event-stream"}
TOKENS: dict[str, str] = {}  # every token this module ever created, for the log scan at the end


@pytest.fixture(scope="module")
def server(indexed, tmp_path_factory, mcp_db):
    for name in ("claude-code", "chatgpt"):
        TOKENS[name] = indexed.tokens.create(name)[1]
    home = tmp_path_factory.mktemp("server-home")
    port = free_port()
    env = child_env(home, mcp_db, MODELS_DIR, LTM_PUBLIC_HOST=PUBLIC_HOST, LTM_RERANK_CANDIDATES=str(RERANK_CANDIDATES))
    logs = home / "captured"
    proc = start_http_server(env, port, logs)
    yield {"base": f"http://127.0.0.1:{port}", "home": home, "logs": logs, "proc": proc, "env": env, "port": port}
    stop_server(proc)


async def call(url: str, tool: str, args: dict, headers: dict | None = None, mode: str = "auto"):
    async with (
        create_mcp_http_client(headers=headers) as http,
        Client(streamable_http_client(url, http_client=http), mode=mode) as client,
    ):
        return client.protocol_version, await client.call_tool(tool, args)


def bearer(name: str) -> dict[str, str]:
    return {"Authorization": f"Bearer {TOKENS[name]}"}


def post(url: str, body: bytes | str | dict, headers: dict | None = None) -> httpx2.Response:
    content = json.dumps(body).encode() if isinstance(body, dict) else body
    return httpx2.post(url, content=content, headers={**JSON_HEADERS, **(headers or {})}, timeout=30)


def test_healthz_is_open_and_says_only_ok(server):
    r = httpx2.get(server["base"] + "/healthz")
    assert (r.status_code, r.text) == (200, "ok")


@pytest.mark.anyio
@pytest.mark.parametrize("mode", ["auto", "legacy"])
async def test_header_token_serves_current_and_older_protocol_clients(server, mode):
    version, r = await call(server["base"] + "/mcp", "ltm_search", {"query": "pet deposit amount"}, bearer("claude-code"), mode)
    assert version == ("2026-07-28" if mode == "auto" else "2025-11-25")
    top = r.structured_content["hits"][0]
    assert top["path"].endswith("harbor-lease-2024.pdf") and top["page_from"] == 3


@pytest.mark.anyio
async def test_path_token_works_for_apps_without_a_header_field(server):
    url = f"{server['base']}/t/{TOKENS['chatgpt']}/mcp"
    _, r = await call(url, "search", {"query": "roof shingles replacement"})
    assert r.structured_content["results"][0]["url"].endswith("quarry-lane-inspection.pdf#page=2")


@pytest.mark.anyio
async def test_the_journal_records_each_client_by_its_token_name(server, indexed):
    await call(server["base"] + "/mcp", "ltm_stats", {}, bearer("claude-code"))
    await call(f"{server['base']}/t/{TOKENS['chatgpt']}/mcp", "ltm_stats", {})
    deadline = time.monotonic() + 15  # the child journals on a background thread
    while True:
        recent = indexed.journal.recent(50)
        stats_calls = {(c.client, c.transport) for c in recent if c.tool == "ltm_stats" and c.ok}
        if {("claude-code", "http"), ("chatgpt", "http")} <= stats_calls or time.monotonic() > deadline:
            break
        await anyio.sleep(0.2)
    assert {("claude-code", "http"), ("chatgpt", "http")} <= stats_calls
    assert all(c.query is None for c in recent)  # log_queries is off by default


def test_missing_or_wrong_token_is_401(server):
    url = server["base"] + "/mcp"
    for headers in ({}, {"Authorization": "Bearer ltm_not-a-real-token-at-all-000000000000"},
                    {"Authorization": "Basic dXNlcjpwYXNz"}, {"Authorization": "Bearer " + "x" * 5000}):
        r = post(url, INIT, headers)
        assert r.status_code == 401, headers
        assert r.headers["www-authenticate"].startswith("Bearer")
    assert post(f"{server['base']}/t/ltm_wrongwrongwrongwrongwrong/mcp", INIT).status_code == 401


@pytest.mark.anyio
async def test_a_revoked_token_is_refused_at_once(server, indexed):
    _, token = indexed.tokens.create("short-lived")
    TOKENS["short-lived"] = token
    _, r = await call(server["base"] + "/mcp", "ltm_stats", {}, {"Authorization": f"Bearer {token}"})
    assert not r.is_error
    indexed.tokens.revoke("short-lived")
    assert post(server["base"] + "/mcp", INIT, {"Authorization": f"Bearer {token}"}).status_code == 401
    assert post(f"{server['base']}/t/{token}/mcp", INIT).status_code == 401


def test_wrong_host_is_421_and_foreign_origin_is_403(server):
    url = server["base"] + "/mcp"
    r = post(url, INIT, {**bearer("claude-code"), "Host": "evil.example.com"})
    assert (r.status_code, r.text) == (421, "Invalid Host header")
    r = post(url, INIT, {**bearer("claude-code"), "Host": f"evil.example.com:{server['port']}"})
    assert r.status_code == 421
    r = post(url, INIT, {**bearer("claude-code"), "Origin": "https://evil.example.com"})
    assert r.status_code == 403
    # the configured public host (LTM_PUBLIC_HOST) is allowed
    assert post(url, INIT, {**bearer("claude-code"), "Host": PUBLIC_HOST}).status_code == 200
    assert post(url, INIT, {**bearer("claude-code"), "Origin": f"http://localhost:{server['port']}"}).status_code == 200


def test_a_tunnel_started_later_is_allowed_without_a_restart(server):
    url = server["base"] + "/mcp"
    tunnel_host = "brave-otter-42.trycloudflare.com"
    headers = {**bearer("claude-code"), "Host": tunnel_host}
    assert post(url, INIT, headers).status_code == 421
    run = server["home"] / "run"
    run.mkdir(exist_ok=True)
    (run / "tunnel.json").write_text(json.dumps({
        "provider": "cloudflare", "public_url": f"https://{tunnel_host}", "public_host": tunnel_host,
        "pid": 1, "started_at": "2026-01-01T00:00:00Z", "json_response": False,
    }))
    assert post(url, INIT, headers).status_code == 200
    (run / "tunnel.json").unlink()
    assert post(url, INIT, headers).status_code == 421
    (run / "tunnel.json").write_text("{ not json")
    assert post(url, INIT, headers).status_code == 421  # a broken file allows nothing extra


def test_oversized_body_is_413(server):
    big = json.dumps({**INIT, "params": {**INIT["params"], "pad": "x" * (5 * 1024 * 1024)}})
    r = post(server["base"] + "/mcp", big, bearer("claude-code"))
    assert r.status_code == 413


def test_wrong_content_type_is_400(server):
    r = httpx2.post(server["base"] + "/mcp", content=json.dumps(INIT),
                    headers={**bearer("claude-code"), "Content-Type": "text/plain", "Accept": JSON_HEADERS["Accept"]})
    assert r.status_code == 400 and "Content-Type" in r.text


def test_malformed_json_rpc_is_400_with_a_parse_error(server):
    url = server["base"] + "/mcp"
    r = post(url, b"{not json", bearer("claude-code"))
    assert r.status_code == 400 and r.json()["error"]["code"] == -32700
    r = post(url, {"hello": "world"}, bearer("claude-code"))
    assert r.status_code == 400 and "error" in r.json()


def test_unknown_paths_are_404(server):
    assert httpx2.get(server["base"] + "/").status_code == 404
    assert post(f"{server['base']}/t/{TOKENS['claude-code']}/other", INIT).status_code == 404


def test_the_server_still_answers_after_all_the_bad_requests(server):
    assert server["proc"].poll() is None
    assert httpx2.get(server["base"] + "/healthz").text == "ok"


def test_keep_alive_requests_do_not_stall(server):
    """TCP_NODELAY on accepted connections: without it each keep-alive response waits ~40 ms for a delayed ACK."""
    with httpx2.Client() as http:
        times = []
        for _ in range(15):
            started = time.perf_counter()
            assert http.get(server["base"] + "/healthz").status_code == 200
            times.append((time.perf_counter() - started) * 1000)
    assert sorted(times)[7] < 30, times


def test_tokens_never_reach_the_logs(server):
    """Runs last in this module: every token used above, clear or in a path, is absent from every log line."""
    stop_server(server["proc"])
    texts = [(server["logs"] / "stderr.txt").read_text(errors="replace"),
             (server["logs"] / "stdout.txt").read_text(errors="replace")]
    texts += [p.read_text(errors="replace") for p in (server["home"] / "logs").glob("mcp-http.log*")]
    combined = "\n".join(texts)
    # the logs did capture this run's traffic, refusals included (debug level)
    assert "refused a request for Host 'evil.example.com'" in combined
    assert "refused a request with an unknown or revoked token" in combined
    assert len(TOKENS) >= 3
    for token in TOKENS.values():
        assert token not in combined
        assert token[4:20] not in combined


@pytest.mark.anyio
async def test_json_response_mode_answers_plain_json(indexed):
    """--json-response (for tunnels without SSE), served in-process by uvicorn on 127.0.0.1."""
    import uvicorn

    from ltm_desktop.mcp.http_app import build_http_app
    from ltm_desktop.mcp.runner import bind_socket

    sock = bind_socket("127.0.0.1", 0)
    port = sock.getsockname()[1]
    app, _ = build_http_app(indexed, json_response=True)
    server = uvicorn.Server(uvicorn.Config(app, access_log=False, log_config=None, lifespan="on"))
    _, token = indexed.tokens.create("json-mode")
    headers = {"Authorization": f"Bearer {token}"}
    async with anyio.create_task_group() as tg:
        tg.start_soon(server.serve, [sock])
        with anyio.fail_after(20):
            while not server.started:
                await anyio.sleep(0.05)
        async with httpx2.AsyncClient() as http:
            r = await http.post(f"http://127.0.0.1:{port}/mcp", content=json.dumps(INIT), headers={**JSON_HEADERS, **headers})
        assert r.status_code == 200 and r.headers["content-type"].startswith("application/json")
        assert r.json()["result"]["serverInfo"]["name"] == "ltm-desktop"
        _, result = await call(f"http://127.0.0.1:{port}/mcp", "ltm_search", {"query": "plumber quote"}, headers, "legacy")
        assert result.structured_content["hits"][0]["path"].endswith("plumber.eml")
        server.should_exit = True
    sock.close()
