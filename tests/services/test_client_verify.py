"""The verify step: a real MCP round trip through exactly what was written into a client's config."""

from __future__ import annotations

import json
import os
import signal
import sys
import threading
import urllib.error
import urllib.request
from pathlib import Path

import pytest

from ltm_desktop.adapters.client_configs import HostPlatform, client_targets
from ltm_desktop.adapters.postgres.migrations import migrate
from ltm_desktop.adapters.tunnel_processes import JSON_RESPONSE, find_binary, runner_factory
from ltm_desktop.adapters.tunnel_state import TunnelStateFiles
from ltm_desktop.mcp.verify import verify_endpoint
from ltm_desktop.services.client_endpoints import (
    SERVER_NAME,
    HttpEndpoint,
    StdioLaunch,
    Verified,
    VerifyFailed,
    local_http_url,
    server_launch,
)
from ltm_desktop.services.client_ports import TokenServiceTokens
from ltm_desktop.services.client_registration import ClientRegistrationService, Connected
from ltm_desktop.services.tunnels import BackoffPolicy, TunnelSupervisor, connector_url
from tests.conftest import MODELS_DIR, create_database, make_container
from tests.mcp.serving import child_env, free_port, start_http_server, stop_server

FAKE = Path(__file__).resolve().parents[1] / "fixtures" / "fake_cloudflared.py"


@pytest.fixture(scope="module")
def db_url(pg_uri) -> str:
    url = create_database(pg_uri, "connect")
    migrate(url)
    return url


@pytest.fixture(scope="module")
def ltm_home(tmp_path_factory) -> Path:
    return tmp_path_factory.mktemp("ltm-home")


@pytest.fixture(scope="module")
def container(ltm_home, db_url):
    c = make_container(ltm_home, db_url)
    yield c
    c.close()


@pytest.fixture(scope="module")
def http_server(ltm_home, db_url, tmp_path_factory):
    port = free_port()
    proc = start_http_server(child_env(ltm_home, db_url, MODELS_DIR), port, tmp_path_factory.mktemp("srv-log"),
                             verbose=False)
    yield port
    stop_server(proc)


def registration(home: Path, ltm_home: Path, db_url: str, port: int, container=None) -> ClientRegistrationService:
    """The service as bootstrap builds it, but on a fake home and this test's database."""
    env = {"LTM_DATABASE_URL": db_url, "LTM_MODELS_DIR": str(MODELS_DIR), "PATH": os.environ.get("PATH", "")}
    launch = server_launch(sys.executable, False, ltm_home, env)
    tokens = TokenServiceTokens(lambda: container.tokens) if container is not None else None
    return ClientRegistrationService(client_targets(HostPlatform("linux", home, {})), launch,
                                     local_http_url("127.0.0.1", port), tokens, verify_endpoint, settle_seconds=0)


def test_stdio_connect_verifies_through_the_exact_configured_command(tmp_path, ltm_home, db_url):
    home = tmp_path / "home"
    (home / ".config" / "Claude").mkdir(parents=True)
    svc = registration(home, ltm_home, db_url, 1)
    outcome = svc.connect("claude-desktop")
    assert isinstance(outcome, Connected), outcome
    assert isinstance(outcome.verify, Verified), outcome.verify
    assert {"ltm_search", "ltm_get_document", "ltm_stats"} <= set(outcome.verify.tools)
    assert "0 documents" in outcome.verify.stats
    # What was verified is what the file says: change the file's command and the check follows it.
    path = home / ".config" / "Claude" / "claude_desktop_config.json"
    doc = json.loads(path.read_text())
    doc["mcpServers"][SERVER_NAME]["command"] = str(tmp_path / "moved" / "python")
    path.write_text(json.dumps(doc))
    failed = svc.verify("claude-desktop")
    assert isinstance(failed, VerifyFailed) and "does not exist" in failed.problem and "ltm connect" in failed.fix


def test_a_server_that_dies_at_start_is_reported_with_its_output(tmp_path):
    launch = StdioLaunch(sys.executable, ("-c", "import sys; print('boom: no database configured', file=sys.stderr); sys.exit(3)"))
    outcome = verify_endpoint(launch, timeout=20)
    assert isinstance(outcome, VerifyFailed)
    assert "boom: no database configured" in outcome.problem


def test_http_connect_issues_a_token_verifies_and_remove_revokes(tmp_path, ltm_home, db_url, http_server, container):
    home = tmp_path / "home"
    (home / ".cursor").mkdir(parents=True)
    svc = registration(home, ltm_home, db_url, http_server, container)
    outcome = svc.connect("cursor", "http")
    assert isinstance(outcome, Connected) and isinstance(outcome.verify, Verified), outcome
    entry = json.loads((home / ".cursor" / "mcp.json").read_text())["mcpServers"][SERVER_NAME]
    assert entry["url"] == f"http://127.0.0.1:{http_server}/mcp"
    secret = entry["headers"]["Authorization"].removeprefix("Bearer ")
    assert container.tokens.verify(secret).name == "cursor"

    again = svc.connect("cursor", "http")
    assert isinstance(again, Connected) and not again.changed, "a second connect must reuse the live token"

    removed = svc.remove("cursor")
    assert removed.changed and removed.token_revoked
    assert container.tokens.verify(secret) is None
    stale = verify_endpoint(HttpEndpoint(entry["url"], entry["headers"]), timeout=20)
    assert isinstance(stale, VerifyFailed) and "rejected the token" in stale.problem


def test_http_check_when_the_server_is_not_running(tmp_path):
    outcome = verify_endpoint(HttpEndpoint(f"http://127.0.0.1:{free_port()}/mcp", {"Authorization": "Bearer x"}), 10)
    assert isinstance(outcome, VerifyFailed)
    assert "not running" in outcome.problem and "ltm serve --http" in outcome.fix


def _status(port: int, host: str) -> int:
    req = urllib.request.Request(f"http://127.0.0.1:{port}/healthz", headers={"Host": host})
    try:
        with urllib.request.urlopen(req, timeout=5) as r:
            return r.status
    except urllib.error.HTTPError as e:
        return e.code


def test_tunnel_host_is_allowed_while_published_and_the_connector_url_works(
    tmp_path, ltm_home, http_server, container
):
    folder = tmp_path / "bin"
    folder.mkdir()
    exe = folder / "cloudflared"
    exe.write_text(f'#!/bin/sh\nexec "{sys.executable}" "{FAKE}" "$@"\n')
    exe.chmod(0o755)
    store = TunnelStateFiles(ltm_home / "run")  # the server's HOME: it re-reads run/tunnel.json
    urls: list[str] = []
    changed = threading.Event()

    def on_event(kind, text):
        if kind in ("url", "url-changed"):
            urls.append(text)
            changed.set()

    policy = BackoffPolicy(first=0.2, cap=0.5, max_failures=5, url_timeout=10, poll=0.05)
    sup = TunnelSupervisor("cloudflare", JSON_RESPONSE["cloudflare"],
                           runner_factory("cloudflare", find_binary("cloudflare", [folder]), http_server, store.log_file),
                           store, pid=os.getpid(), policy=policy, on_event=on_event)
    stop = threading.Event()
    thread = threading.Thread(target=sup.run, args=(stop,), daemon=True)
    try:
        assert _status(http_server, "nobody.trycloudflare.com") == 421
        thread.start()
        assert changed.wait(20)
        first = urls[0].removeprefix("https://")
        assert _status(http_server, first) == 200
        # A claude.ai-style connector URL: token in the path, Host = the tunnel's public host.
        _, secret = container.tokens.create("connector", replace=True)
        local = connector_url(f"http://127.0.0.1:{http_server}", secret)
        assert isinstance(verify_endpoint(HttpEndpoint(local, {"Host": first}), 30), Verified)
        changed.clear()
        os.kill(store.published()["tunnel_pid"], signal.SIGKILL)  # the tunnel program crashes
        assert changed.wait(20), "the tunnel should restart with a new URL"
        second = urls[-1].removeprefix("https://")
        assert second != first
        assert _status(http_server, second) == 200 and _status(http_server, first) == 421
    finally:
        stop.set()
        thread.join(15)
    assert _status(http_server, second) == 421, "a stopped tunnel's host must stop working"


def test_every_http_capable_client_entry_verifies_against_the_real_server(tmp_path, ltm_home, db_url, http_server,
                                                                           container):
    home = tmp_path / "home"
    platform = HostPlatform("windows", home, {})
    for installed in (".claude", ".lmstudio", ".cursor", "AppData/Roaming/Code/User", ".codex", ".codeium/windsurf"):
        (home / installed).mkdir(parents=True)
    targets = client_targets(platform)
    svc = ClientRegistrationService(targets, server_launch(sys.executable, False, ltm_home, {}),
                                    local_http_url("127.0.0.1", http_server), TokenServiceTokens(lambda: container.tokens),
                                    verify_endpoint, settle_seconds=0)
    for cid in ("claude-code", "lm-studio", "cursor", "vscode", "codex", "windsurf"):
        outcome = svc.connect(cid, "http")
        assert isinstance(outcome, Connected), outcome
        assert isinstance(outcome.verify, Verified), (cid, outcome.verify)
        assert container.tokens.verify(svc.configured_endpoint(cid).headers["Authorization"][7:]).name == cid
    raw = (home / ".codex" / "config.toml").read_text()
    assert "http_headers" in raw and "bearer_token" not in raw
    assert "serverUrl" in (home / ".codeium" / "windsurf" / "mcp_config.json").read_text()
