"""`ltm tunnel start|status|stop` end to end against the stand-in cloudflared."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
import time
from pathlib import Path

FAKE = Path(__file__).resolve().parents[1] / "fixtures" / "fake_cloudflared.py"


def ltm(env: dict[str, str], *args: str, timeout: float = 120) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "ltm_desktop", *args], env=env, capture_output=True, text=True,
                          timeout=timeout)


def with_fake_cloudflared(tmp_path: Path, env: dict[str, str]) -> dict[str, str]:
    folder = tmp_path / "bin"
    folder.mkdir()
    exe = folder / "cloudflared"
    exe.write_text(f'#!/bin/sh\nexec "{sys.executable}" "{FAKE}" "$@"\n')
    exe.chmod(0o755)
    return {**env, "PATH": f"{folder}{os.pathsep}{env.get('PATH', '')}"}


def test_start_prints_connector_url_status_and_stop_clean_up(tmp_path, cli_env):
    from tests.mcp.serving import free_port

    # A port nobody listens on: other tests on this machine may run a server on the default 8322.
    env = with_fake_cloudflared(tmp_path, {**cli_env, "LTM_HTTP_PORT": str(free_port())})
    home = Path(env["LTM_HOME"])
    started = ltm(env, "tunnel", "start", "cloudflare")
    try:
        assert started.returncode == 0, started.stdout + started.stderr
        m = re.search(r"https://([a-z0-9-]+\.trycloudflare\.com)/t/(ltm_[A-Za-z0-9_-]+)/mcp", started.stdout)
        assert m, started.stdout
        assert "What this exposes" in started.stdout and "127.0.0.1" in started.stdout
        assert "not running" in started.stderr, started.stderr  # no HTTP server in this test: said plainly
        published = json.loads((home / "run" / "tunnel.json").read_text())
        assert published["public_host"] == m.group(1) and published["json_response"] is True

        status = ltm(env, "tunnel", "status", "--json")
        state = json.loads(status.stdout)
        assert state["state"] == "running" and state["public_url"] == f"https://{m.group(1)}"

        twice = ltm(env, "tunnel", "start", "cloudflare")
        assert twice.returncode == 1 and "already running" in twice.stderr
        tunnel_pid = published["tunnel_pid"]
    finally:
        stopped = ltm(env, "tunnel", "stop")
    assert stopped.returncode == 0 and "stopped the cloudflare tunnel" in stopped.stdout
    assert "revoked the token 'connector'" in stopped.stdout
    assert not (home / "run" / "tunnel.json").exists()
    assert json.loads(ltm(env, "tunnel", "status", "--json").stdout)["state"] == "stopped"
    deadline = time.monotonic() + 5
    while time.monotonic() < deadline and Path(f"/proc/{tunnel_pid}").exists():
        time.sleep(0.1)
    assert not Path(f"/proc/{tunnel_pid}").exists(), "cloudflared must not outlive `ltm tunnel stop`"


def test_missing_binary_and_crashing_binary_are_clear(tmp_path, cli_env):
    env = {**cli_env, "PATH": str(tmp_path)}  # nothing installed
    missing = ltm(env, "tunnel", "start", "ngrok")
    assert missing.returncode == 1 and "ngrok is not installed" in missing.stderr and "Install it" in missing.stderr

    env = with_fake_cloudflared(tmp_path, cli_env)
    env["FAKE_CLOUDFLARED_FAIL"] = "1"
    crashed = ltm(env, "tunnel", "start", "cloudflare", "--timeout", "60", timeout=120)
    assert crashed.returncode == 1
    assert "did not come up" in crashed.stderr and "failed to request quick Tunnel" in crashed.stderr
    assert not (Path(env["LTM_HOME"]) / "run" / "tunnel.json").exists()


def _is_sse_through(port: int, host: str, connector_path: str) -> bool:
    import urllib.request

    body = json.dumps({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
        "protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "test", "version": "1"}}}).encode()
    req = urllib.request.Request(f"http://127.0.0.1:{port}{connector_path}", data=body, method="POST", headers={
        "Host": host, "Content-Type": "application/json", "Accept": "application/json, text/event-stream"})
    with urllib.request.urlopen(req, timeout=10) as r:
        assert r.status == 200
        return r.headers["Content-Type"].startswith("text/event-stream")


def test_start_with_a_running_server_checks_the_connector_and_sse(tmp_path, cli_env):
    from tests.mcp.serving import free_port, start_http_server, stop_server

    port = free_port()
    env = with_fake_cloudflared(tmp_path, {**cli_env, "LTM_HTTP_PORT": str(port)})
    server = start_http_server(env, port, tmp_path / "srv", verbose=False)
    try:
        started = ltm(env, "tunnel", "start", "cloudflare")
        assert started.returncode == 0, started.stdout + started.stderr
        assert "not running" not in started.stderr
        m = re.search(r"https://([a-z0-9-]+\.trycloudflare\.com)(/t/ltm_[A-Za-z0-9_-]+/mcp)", started.stdout)
        # The connector URL works for a request arriving with the tunnel's Host, and the SSE warning matches
        # what the server really does for a 2025-era client through that host.
        sse = _is_sse_through(port, m.group(1), m.group(2))
        assert ("answers with SSE streams" in started.stderr) == sse
    finally:
        ltm(env, "tunnel", "stop")
        stop_server(server)
