"""`ltm connect` end to end: the real command in a child process, on a fake home and a fresh database."""

from __future__ import annotations

import json
import subprocess
import sys
import zipfile
from pathlib import Path

from ltm_desktop.services.client_endpoints import SERVER_NAME


def ltm(env: dict[str, str], *args: str, timeout: float = 120) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "ltm_desktop", *args], env=env, capture_output=True, text=True,
                          timeout=timeout)


def fake_home(tmp_path: Path, cli_env: dict[str, str]) -> tuple[Path, dict[str, str]]:
    home = tmp_path / "fakehome"
    home.mkdir()
    env = {k: v for k, v in cli_env.items() if k not in ("XDG_CONFIG_HOME", "CODEX_HOME")}
    env["HOME"] = str(home)
    return home, env


def test_connect_list_write_verify_and_remove(tmp_path, cli_env):
    home, env = fake_home(tmp_path, cli_env)
    (home / ".cursor").mkdir()
    (home / ".cursor" / "mcp.json").write_text(json.dumps({"mcpServers": {"mine": {"command": "/bin/true"}}}))

    listed = ltm(env, "connect", "--list", "--json")
    assert listed.returncode == 0, listed.stderr
    rows = {r["client"]: r for r in json.loads(listed.stdout)}
    assert rows["cursor"]["installed"] and rows["cursor"]["connected"] is None
    assert not rows["windsurf"]["installed"]

    done = ltm(env, "connect", "cursor")
    assert done.returncode == 0, done.stdout + done.stderr
    assert "checked: a real MCP session listed" in done.stdout and "next:" in done.stdout
    servers = json.loads((home / ".cursor" / "mcp.json").read_text())["mcpServers"]
    assert servers["mine"] == {"command": "/bin/true"}
    assert servers[SERVER_NAME]["command"] == sys.executable
    assert servers[SERVER_NAME]["env"]["LTM_DATABASE_URL"] == env["LTM_DATABASE_URL"]

    check = ltm(env, "connect", "cursor", "--check")
    assert check.returncode == 0 and "checked" in check.stdout

    removed = ltm(env, "connect", "cursor", "--remove")
    assert removed.returncode == 0 and "removed ltm-desktop" in removed.stdout
    assert json.loads((home / ".cursor" / "mcp.json").read_text())["mcpServers"] == {"mine": {"command": "/bin/true"}}


def test_connect_refusals_are_one_clear_line(tmp_path, cli_env):
    home, env = fake_home(tmp_path, cli_env)
    missing = ltm(env, "connect", "windsurf", "--no-verify")
    assert missing.returncode == 1 and "does not seem to be installed" in missing.stderr
    (home / ".codex").mkdir()
    broken = home / ".codex" / "config.toml"
    broken.write_text("model = \n")
    bad = ltm(env, "connect", "codex", "--no-verify")
    assert bad.returncode == 1 and str(broken) in bad.stderr and "not valid TOML" in bad.stderr
    assert broken.read_text() == "model = \n"
    unknown = ltm(env, "connect", "notepad")
    assert unknown.returncode == 2 and "invalid choice" in unknown.stderr


def test_print_http_snippet_carries_a_fresh_client_token(tmp_path, cli_env):
    home, env = fake_home(tmp_path, cli_env)
    shown = ltm(env, "connect", "windsurf", "--transport", "http", "--print", "--json")
    assert shown.returncode == 0, shown.stderr
    snippet = json.loads(shown.stdout)
    assert snippet["entry"]["serverUrl"].endswith("/mcp")
    assert snippet["entry"]["headers"]["Authorization"].startswith("Bearer ltm_")
    assert not Path(snippet["config"]).exists()
    tokens = ltm(env, "token", "list", "--json")
    assert "windsurf" in [t["name"] for t in json.loads(tokens.stdout)]


def test_mcpb_bundle_is_written_and_its_command_checked(tmp_path, cli_env):
    _, env = fake_home(tmp_path, cli_env)
    out = tmp_path / "ltm.mcpb"
    done = ltm(env, "connect", "claude-desktop", "--mcpb", str(out))
    assert done.returncode == 0, done.stdout + done.stderr
    assert "checked: a real MCP session" in done.stdout
    with zipfile.ZipFile(out) as z:
        manifest = json.loads(z.read("manifest.json"))
    assert manifest["server"]["mcp_config"]["command"] == sys.executable
