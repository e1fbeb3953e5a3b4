"""`ltm token create|list|revoke` and `ltm serve` as a person runs them: real child processes."""

from __future__ import annotations

import json
import socket
import subprocess
import sys

from tests.mcp.serving import REPO, free_port


def ltm(env: dict[str, str], *args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "ltm_desktop", *args], env=env, cwd=REPO, capture_output=True,
                          text=True, timeout=120, check=False)


def one_line_error(r: subprocess.CompletedProcess) -> str:
    assert r.returncode == 1, (r.stdout, r.stderr)
    lines = r.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("ltm: "), r.stderr
    return lines[0]


def test_token_lifecycle_from_the_command_line(cli_env):
    r = ltm(cli_env, "token", "create", "claude-code")
    assert r.returncode == 0, r.stderr
    token = r.stdout.strip()
    assert token.startswith("ltm_") and "\n" not in token  # the token alone on stdout
    assert "shown only this once" in r.stderr and "/t/<token>/mcp" in r.stderr and token not in r.stderr

    assert "a live token named 'claude-code' exists" in one_line_error(ltm(cli_env, "token", "create", "claude-code"))
    assert "is not allowed" in one_line_error(ltm(cli_env, "token", "create", "bad name"))

    r = ltm(cli_env, "token", "list")
    assert r.returncode == 0 and "claude-code" in r.stdout and "never" in r.stdout and token not in r.stdout
    listed = json.loads(ltm(cli_env, "token", "list", "--json").stdout)
    assert [t["name"] for t in listed] == ["claude-code"] and set(listed[0]) == {"name", "created", "last_used"}

    r = ltm(cli_env, "token", "create", "claude-code", "--replace")
    assert r.returncode == 0 and r.stdout.strip() != token

    assert ltm(cli_env, "token", "revoke", "claude-code").returncode == 0
    assert "no tokens" in ltm(cli_env, "token", "list").stdout
    assert "no live token named 'ghost'" in one_line_error(ltm(cli_env, "token", "revoke", "ghost"))

    r = ltm(cli_env, "stats")  # recent AI activity appears in `ltm stats`
    assert r.returncode == 0 and "AI tool calls in the last 24h: 0" in r.stdout


def test_serve_refuses_bad_invocations(cli_env):
    assert ltm(cli_env, "serve").returncode == 2  # --stdio or --http is required
    assert ltm(cli_env, "serve", "--stdio", "--http").returncode == 2
    r = ltm(cli_env, "serve", "--http", "--port", "70000")
    assert r.returncode == 2 and "--port must be between 0 and 65535" in r.stderr
    port = free_port()
    with socket.socket() as busy:
        busy.bind(("127.0.0.1", port))
        busy.listen()
        r = ltm(cli_env, "serve", "--http", "--port", str(port))
    assert f"port {port} on 127.0.0.1 is already in use" in one_line_error(r)


def test_headless_service_serves_http_and_stops_it(cli_env):
    import signal
    import time
    import urllib.request

    port = free_port()
    env = {**cli_env, "LTM_HTTP_PORT": str(port)}
    service = subprocess.Popen([sys.executable, "-m", "ltm_desktop", "run", "--headless"], env=env, cwd=REPO,
                               stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        deadline = time.monotonic() + 120
        while True:
            try:
                with urllib.request.urlopen(f"http://127.0.0.1:{port}/healthz", timeout=2) as r:
                    assert r.read() == b"ok"
                    break
            except OSError:
                assert time.monotonic() < deadline and service.poll() is None, "no HTTP server under `ltm run`"
                time.sleep(0.3)
    finally:
        service.send_signal(signal.SIGTERM)
        _, err = service.communicate(timeout=120)
    assert service.returncode == 0, err
    with socket.socket() as s:  # the child is gone: nothing listens on its port any more
        s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)  # (TIME_WAIT from our own probe is fine)
        s.bind(("127.0.0.1", port))
