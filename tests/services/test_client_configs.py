"""Every client's config written, re-read, kept idempotent and removed, in fake Linux, macOS and Windows homes."""

from __future__ import annotations

import base64
import json
import subprocess
import sys
import textwrap
import time
import tomllib
import zipfile
from pathlib import Path
from urllib.parse import parse_qs, unquote, urlsplit

import pytest

from ltm_desktop.adapters.client_configs import CLIENT_IDS, HostPlatform, client_targets
from ltm_desktop.adapters.client_configs.codecs import JsonCodec
from ltm_desktop.adapters.client_configs.config_file import update_file
from ltm_desktop.adapters.client_configs.mcpb_bundle import build_manifest, read_manifest, write_bundle
from ltm_desktop.services.client_endpoints import SERVER_NAME, StdioLaunch, server_launch
from ltm_desktop.services.client_registration import ClientRegistrationService, Connected, NotConnected, Removed

# Where each client's file must land, relative to the fake home, per OS.
EXPECTED = {
    "linux": {
        "claude-desktop": ".config/Claude/claude_desktop_config.json",
        "claude-code": ".claude.json",
        "lm-studio": ".lmstudio/mcp.json",
        "cursor": ".cursor/mcp.json",
        "vscode": ".config/Code/User/mcp.json",
        "codex": ".codex/config.toml",
        "windsurf": ".codeium/windsurf/mcp_config.json",
    },
    "darwin": {
        "claude-desktop": "Library/Application Support/Claude/claude_desktop_config.json",
        "claude-code": ".claude.json",
        "lm-studio": ".lmstudio/mcp.json",
        "cursor": ".cursor/mcp.json",
        "vscode": "Library/Application Support/Code/User/mcp.json",
        "codex": ".codex/config.toml",
        "windsurf": ".codeium/windsurf/mcp_config.json",
    },
    "windows": {
        "claude-desktop": "AppData/Roaming/Claude/claude_desktop_config.json",
        "claude-code": ".claude.json",
        "lm-studio": ".lmstudio/mcp.json",
        "cursor": ".cursor/mcp.json",
        "vscode": "AppData/Roaming/Code/User/mcp.json",
        "codex": ".codex/config.toml",
        "windsurf": ".codeium/windsurf/mcp_config.json",
    },
}
SERVERS_KEY = {"vscode": "servers", "codex": "mcp_servers"}
OTHER = {"command": "/opt/other/server", "args": ["--flag"]}


def install_all(home: Path, system: str) -> HostPlatform:
    """Lay out a home where every client has been installed and already has one other server configured."""
    platform = HostPlatform(system, home, {})  # type: ignore[arg-type]
    for cid, rel in EXPECTED[system].items():
        path = home / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        key = SERVERS_KEY.get(cid, "mcpServers")
        if cid == "codex":
            path.write_text('# my settings\nmodel = "o3"  # keep this comment\n\n[mcp_servers.other]\n'
                            'command = "/opt/other/server"\nargs = ["--flag"]\n', encoding="utf-8")
        else:
            path.write_text(json.dumps({"preferences": {"theme": "dark"}, key: {"other": OTHER}}, indent=4), encoding="utf-8")
    return platform


def read_servers(cid: str, path: Path) -> tuple[dict, dict]:
    """(whole document, servers section) parsed independently of the code under test."""
    if cid == "codex":
        doc = tomllib.loads(path.read_text(encoding="utf-8"))
    else:
        doc = json.loads(path.read_text(encoding="utf-8"))
    return doc, doc[SERVERS_KEY.get(cid, "mcpServers")]


def service(platform: HostPlatform, tmp_path: Path, **kw) -> ClientRegistrationService:
    launch = server_launch(sys.executable, False, tmp_path / "ltm-home", {"LTM_DATABASE_URL": "postgresql://x/y"})
    return ClientRegistrationService(client_targets(platform), launch, "http://127.0.0.1:8322/mcp", None, None,
                                     settle_seconds=kw.pop("settle_seconds", 0), **kw)


@pytest.mark.parametrize("system", ["linux", "darwin", "windows"])
def test_every_client_written_reread_idempotent_and_removed(tmp_path, system):
    home = tmp_path / "home"
    platform = install_all(home, system)
    svc = service(platform, tmp_path)
    for cid in CLIENT_IDS:
        path = home / EXPECTED[system][cid]
        original = path.read_bytes()
        outcome = svc.connect(cid, verify=False)
        assert isinstance(outcome, Connected), outcome
        assert outcome.path == path and outcome.changed and outcome.restart_hint
        assert outcome.backup is not None and outcome.backup.read_bytes() == original

        doc, servers = read_servers(cid, path)
        assert servers["other"] == OTHER, f"{cid}: other server lost"
        if cid == "codex":
            assert doc["model"] == "o3" and "# keep this comment" in path.read_text()
        else:
            assert doc["preferences"] == {"theme": "dark"}
        ours = servers[SERVER_NAME]
        assert ours["command"] == sys.executable and Path(ours["command"]).is_absolute()
        assert ours["args"] == ["-m", "ltm_desktop", "serve", "--stdio"]
        assert ours["env"]["LTM_HOME"] == str(tmp_path / "ltm-home")
        assert ours["env"]["LTM_DATABASE_URL"] == "postgresql://x/y"
        assert ours.get("type") == ("stdio" if cid in ("claude-code", "vscode") else None)
        assert svc.configured_endpoint(cid) == StdioLaunch(sys.executable, tuple(ours["args"]), ours["env"])

        again = svc.connect(cid, verify=False)
        assert isinstance(again, Connected) and not again.changed and again.backup is None

        removed = svc.remove(cid)
        assert isinstance(removed, Removed) and removed.changed
        doc, servers = read_servers(cid, path)
        assert SERVER_NAME not in servers and servers["other"] == OTHER
        assert svc.configured_endpoint(cid) is None
        assert not svc.remove(cid).changed

    listed = {s.client_id: s for s in svc.statuses()}
    assert all(s.installed and s.transport is None for s in listed.values())


def test_connect_creates_missing_file_and_list_shows_it(tmp_path):
    home = tmp_path / "home"
    (home / ".cursor").mkdir(parents=True)
    svc = service(HostPlatform("linux", home, {}), tmp_path)
    outcome = svc.connect("cursor", verify=False)
    path = home / ".cursor" / "mcp.json"
    assert isinstance(outcome, Connected) and outcome.backup is None
    assert json.loads(path.read_text())["mcpServers"][SERVER_NAME]["command"] == sys.executable
    assert path.stat().st_mode & 0o077 == 0, "a new config file may later hold a token: owner-only"
    listed = {s.client_id: s for s in svc.statuses()}
    assert listed["cursor"].installed and listed["cursor"].transport == "stdio"
    assert not listed["codex"].installed and listed["codex"].transport is None
    assert "not this installation" not in listed["cursor"].detail
    doc = json.loads(path.read_text())
    doc["mcpServers"][SERVER_NAME]["command"] = "/old/install/python"
    path.write_text(json.dumps(doc))
    stale = {s.client_id: s for s in svc.statuses()}["cursor"]
    assert stale.transport == "stdio" and "not this installation" in stale.detail


def test_windows_store_install_writes_the_msix_redirected_file(tmp_path):
    home = tmp_path / "home"
    local = tmp_path / "Local"  # %LOCALAPPDATA% elsewhere than the default, as a roaming profile may have it
    (local / "Packages" / "Claude_pzs8sxrjxfjjc").mkdir(parents=True)
    (home / "AppData" / "Roaming" / "Claude").mkdir(parents=True)
    platform = HostPlatform("windows", home, {"LOCALAPPDATA": str(local)})
    outcome = service(platform, tmp_path).connect("claude-desktop", verify=False)
    msix = local / "Packages" / "Claude_pzs8sxrjxfjjc" / "LocalCache" / "Roaming" / "Claude" / "claude_desktop_config.json"
    assert isinstance(outcome, Connected) and outcome.path == msix
    assert SERVER_NAME in json.loads(msix.read_text())["mcpServers"]
    assert not (home / "AppData" / "Roaming" / "Claude" / "claude_desktop_config.json").exists()


def test_lm_studio_home_pointer_and_codex_home_are_followed(tmp_path):
    home = tmp_path / "home"
    elsewhere = tmp_path / "lms-data"
    elsewhere.mkdir()
    home.mkdir()
    (home / ".lmstudio-home-pointer").write_text(str(elsewhere) + "\n")
    codex_home = tmp_path / "codex-home"
    codex_home.mkdir()
    svc = service(HostPlatform("darwin", home, {"CODEX_HOME": str(codex_home)}), tmp_path)
    assert svc.connect("lm-studio", verify=False).path == elsewhere / "mcp.json"
    assert svc.connect("codex", verify=False).path == codex_home / "config.toml"
    entry = tomllib.loads((codex_home / "config.toml").read_text())["mcp_servers"][SERVER_NAME]
    assert entry["startup_timeout_sec"] >= 20


def test_legacy_lm_studio_cache_folder(tmp_path):
    home = tmp_path / "home"
    (home / ".cache" / "lm-studio").mkdir(parents=True)
    outcome = service(HostPlatform("linux", home, {}), tmp_path).connect("lm-studio", verify=False)
    assert outcome.path == home / ".cache" / "lm-studio" / "mcp.json"


# ---- bad input -----------------------------------------------------------------------------------------


def _assert_refused_untouched(outcome, path: Path, before: bytes, *words: str) -> None:
    assert isinstance(outcome, NotConnected), outcome
    assert str(path) in outcome.reason
    for w in words:
        assert w in outcome.reason, outcome.reason
    assert path.read_bytes() == before
    assert not list(path.parent.glob(path.name + ".ltm-backup-*"))


@pytest.mark.parametrize(
    ("cid", "rel", "content", "words"),
    [
        ("claude-desktop", ".config/Claude/claude_desktop_config.json", '{"mcpServers": {"a": 1,}', ["not valid JSON", "line 1"]),
        ("vscode", ".config/Code/User/mcp.json", '// mine\n{"servers": {"a": {"command": "x"},},}\n', ["comments"]),
        ("cursor", ".cursor/mcp.json", '{"mcpServers": ["a", "b"]}', ["'mcpServers' is a list"]),
        ("windsurf", ".codeium/windsurf/mcp_config.json", "[1, 2]", ["not an object"]),
        ("codex", ".codex/config.toml", "[mcp_servers.other\ncommand = 1\n", ["not valid TOML"]),
        ("claude-code", ".claude.json", b"\xff\xfe\x00garbage", ["not UTF-8"]),
    ],
)
def test_malformed_config_is_left_untouched_and_named(tmp_path, cid, rel, content, words):
    home = tmp_path / "home"
    path = home / rel
    path.parent.mkdir(parents=True)
    path.write_bytes(content if isinstance(content, bytes) else content.encode())
    svc = service(HostPlatform("linux", home, {}), tmp_path)
    _assert_refused_untouched(svc.connect(cid, verify=False), path, path.read_bytes(), *words)
    _assert_refused_untouched(svc.remove(cid), path, path.read_bytes(), *words)
    status = {s.client_id: s for s in svc.statuses()}[cid]
    assert status.transport == "unreadable" and str(path) in status.detail
    # --print still works: it shows what to paste by hand.
    assert SERVER_NAME in svc.snippet(cid).text


def test_read_only_config_is_left_untouched(tmp_path):
    home = tmp_path / "home"
    path = home / ".cursor" / "mcp.json"
    path.parent.mkdir(parents=True)
    path.write_text(json.dumps({"mcpServers": {"other": OTHER}}))
    path.chmod(0o444)
    try:
        outcome = service(HostPlatform("linux", home, {}), tmp_path).connect("cursor", verify=False)
        _assert_refused_untouched(outcome, path, path.read_bytes(), "read-only")
    finally:
        path.chmod(0o644)


def test_client_not_installed_is_refused_without_creating_anything(tmp_path):
    home = tmp_path / "home"
    home.mkdir()
    svc = service(HostPlatform("darwin", home, {}), tmp_path)
    outcome = svc.connect("windsurf", verify=False)
    assert isinstance(outcome, NotConnected)
    assert "does not seem to be installed" in outcome.reason and "--print" in outcome.reason
    assert list(home.iterdir()) == []


def test_http_is_refused_for_claude_desktop_config(tmp_path):
    home = tmp_path / "home"
    (home / ".config" / "Claude").mkdir(parents=True)
    outcome = service(HostPlatform("linux", home, {}), tmp_path).connect("claude-desktop", "http", verify=False)
    assert isinstance(outcome, NotConnected) and "only launches local commands" in outcome.reason


RUNNING_CLIENT = textwrap.dedent(
    """
    import json, os, sys, time
    path = sys.argv[1]
    state = {"numStartups": 7, "mcpServers": {"other": {"command": "/opt/other/server", "args": ["--flag"]}}}
    def save():
        tmp = path + ".client-tmp"
        with open(tmp, "w") as f:
            json.dump(state, f)
        os.replace(tmp, path)
        return os.stat(path).st_mtime_ns
    seen = save()
    print("ready", flush=True)
    deadline = time.time() + 20
    while time.time() < deadline:
        time.sleep(0.01)
        try:
            now = os.stat(path).st_mtime_ns
        except FileNotFoundError:
            continue
        if now != seen:          # someone else saved: write our in-memory state back, like a running app
            seen = save()
    """
)


def test_running_client_that_rewrites_its_file_is_detected(tmp_path):
    home = tmp_path / "home"
    home.mkdir()
    path = home / ".claude.json"
    client = subprocess.Popen([sys.executable, "-c", RUNNING_CLIENT, str(path)], stdout=subprocess.PIPE, text=True)
    try:
        assert client.stdout.readline().strip() == "ready"
        svc = service(HostPlatform("linux", home, {}), tmp_path, settle_seconds=1.5)  # generous: a busy CI machine
        outcome = svc.connect("claude-code", verify=False)
        assert isinstance(outcome, NotConnected), outcome
        assert "rewrote" in outcome.reason and "Quit Claude Code" in outcome.reason
        backups = list(home.glob(".claude.json.ltm-backup-*"))
        assert len(backups) == 1 and json.loads(backups[0].read_text())["numStartups"] == 7
        time.sleep(0.1)
        assert json.loads(path.read_text())["mcpServers"] == {"other": OTHER}
    finally:
        client.kill()
        client.wait()
        client.stdout.close()


def test_concurrent_save_between_read_and_write_is_merged_not_clobbered(tmp_path):
    path = tmp_path / "mcp.json"
    path.write_text(json.dumps({"mcpServers": {}}))
    calls = []

    def mutate(doc):
        calls.append(dict(doc["mcpServers"]))
        if len(calls) == 1:
            # Another program saves the file after we read it and before we replace it.
            path.write_text(json.dumps({"mcpServers": {"theirs": {"command": "/x"}}, "added": True}))
        doc["mcpServers"]["ours"] = {"command": "/y"}
        return True

    change = update_file(path, JsonCodec(), mutate)
    assert change.changed and len(calls) == 2
    final = json.loads(path.read_text())
    assert final["added"] is True and set(final["mcpServers"]) == {"theirs", "ours"}


# ---- snippets, links, bundle ------------------------------------------------------------------------------


def test_print_snippets_and_deeplinks_decode_to_the_entry(tmp_path):
    svc = service(HostPlatform("linux", tmp_path / "home", {}), tmp_path)
    for cid in CLIENT_IDS:
        snip = svc.snippet(cid)
        assert not snip.path.exists(), "--print must not write"
        parsed = tomllib.loads(snip.text) if cid == "codex" else json.loads(snip.text)
        assert parsed[SERVERS_KEY.get(cid, "mcpServers")][SERVER_NAME] == snip.entry
    lm = urlsplit(svc.snippet("lm-studio").deeplink)
    q = parse_qs(lm.query)
    assert lm.scheme == "lmstudio" and q["name"] == [SERVER_NAME]
    assert json.loads(base64.b64decode(q["config"][0])) == svc.snippet("lm-studio").entry
    cur = urlsplit(svc.snippet("cursor").deeplink)
    assert cur.scheme == "cursor" and json.loads(base64.b64decode(parse_qs(cur.query)["config"][0]))["command"] == sys.executable
    vs = svc.snippet("vscode").deeplink
    assert vs.startswith("vscode:mcp/install?")
    assert json.loads(unquote(vs.split("?", 1)[1])) == {"name": SERVER_NAME, **svc.snippet("vscode").entry}
    assert svc.snippet("codex").deeplink is None


def test_mcpb_bundle_carries_the_same_absolute_command(tmp_path):
    launch = server_launch(sys.executable, False, tmp_path / "h", {})
    manifest = build_manifest(SERVER_NAME, "0.1.0", launch.command, launch.args, launch.env, frozen=False)
    out = write_bundle(tmp_path / "ltm-desktop.mcpb", manifest)
    with zipfile.ZipFile(out) as z:
        assert sorted(z.namelist()) == ["manifest.json", "server/README.txt"]
    m = read_manifest(out)
    for required in ("manifest_version", "name", "version", "description", "author", "server"):
        assert m[required]
    cfg = m["server"]["mcp_config"]
    assert cfg == {"command": sys.executable, "args": list(launch.args), "env": dict(launch.env)}


def test_launch_command_is_absolute_for_dev_and_frozen(tmp_path):
    dev = server_launch(sys.executable, False, tmp_path, {"PATH": "/bin", "LTM_MODELS_DIR": "/m"})
    assert dev.args == ("-m", "ltm_desktop", "serve", "--stdio")
    assert dev.env == {"LTM_HOME": str(tmp_path), "LTM_MODELS_DIR": "/m"}
    frozen = server_launch("/Applications/LTM.app/Contents/MacOS/ltm-desktop", True, tmp_path, {})
    assert frozen.command.endswith("ltm-desktop") and frozen.args == ("serve", "--stdio")
    with pytest.raises(ValueError):
        server_launch("python", False, tmp_path, {})
