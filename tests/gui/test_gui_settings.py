"""Settings pages on the real services: watched folders, tokens, AI apps, tunnels, journal, disk usage."""

from __future__ import annotations

import re
import sys
from pathlib import Path

import pytest

from ltm_desktop.core.models import Caller

FAKE_CLOUDFLARED = Path(__file__).resolve().parents[1] / "fixtures" / "fake_cloudflared.py"


@pytest.fixture
def settings(qtbot, started_app):
    window = started_app.windows.show("settings")
    return window


def test_watched_folders_add_ignore_remove_and_bad_paths(qtbot, started_app, settings, tmp_path):
    page = settings.pages["folders"]
    page.confirm_remove = lambda path: "keep"
    docs = tmp_path / "Documents"
    (docs / "taxes").mkdir(parents=True)
    with qtbot.wait_signal(page.done, timeout=30_000):
        page.add_folder(str(docs))
    with qtbot.wait_signal(page.folders_listed, timeout=30_000) as listed:
        page.refresh()
    assert [f.path for f in listed.args[0]] == [str(docs)]

    bad = {
        str(docs / "taxes"): "already watched as part of",
        str(tmp_path / "nowhere"): "does not exist",
    }
    a_file = tmp_path / "note.txt"
    a_file.write_text("hello")
    bad[str(a_file)] = "is a file, not a folder"
    for path, reason in bad.items():
        with qtbot.wait_signal(page.failed, timeout=30_000) as failed:
            page.add_folder(path)
        assert reason in failed.args[0]
        assert page.feedback.kind == "error"

    page.table.setCurrentItem(page.table.topLevelItem(0))
    page.ignore.setText("*.log, drafts/*")
    with qtbot.wait_signal(page.done, timeout=30_000):
        page.save_patterns()
    assert started_app.container.watch_folders.list()[0].ignore == ("*.log", "drafts/*")

    page.table.setCurrentItem(page.table.topLevelItem(0))
    with qtbot.wait_signal(page.done, timeout=30_000) as done:
        page.remove_selected()
    assert "stay searchable" in done.args[0]
    assert started_app.container.watch_folders.list() == []


def test_tokens_are_created_once_listed_and_revoked(qtbot, started_app, settings):
    page = settings.pages["server"]
    page.token_name.setText("claude-code")
    with qtbot.wait_signal(page.token_created, timeout=30_000) as created:
        page.create_token()
    name, secret = created.args
    assert name == "claude-code" and secret.startswith("ltm_") and page.secret.text() == secret
    assert started_app.container.tokens.verify(secret).name == "claude-code"

    page.token_name.setText("claude-code")
    with qtbot.wait_signal(page.token_failed, timeout=30_000) as failed:
        page.create_token()
    assert "exists" in failed.args[0] and "replace an existing one" in failed.args[0]

    page.token_name.setText("bad name!")
    with qtbot.wait_signal(page.token_failed, timeout=30_000) as failed:
        page.create_token()
    assert "not allowed" in failed.args[0]

    with qtbot.wait_signal(page.tokens_listed, timeout=30_000) as listed:
        page.refresh()
    assert listed.args[0] == ["claude-code"]
    page.tokens.setCurrentItem(page.tokens.topLevelItem(0))
    with qtbot.wait_signal(page.tokens_listed, timeout=30_000) as after:
        page.revoke_selected()
    assert after.args[0] == []
    assert started_app.container.tokens.verify(secret) is None


def test_ai_apps_are_listed_with_snippets_and_a_missing_app_is_explained(qtbot, started_app, settings, tmp_path, monkeypatch):
    fake_home = tmp_path / "user"
    fake_home.mkdir()
    monkeypatch.setenv("HOME", str(fake_home))  # never the real user's config files
    monkeypatch.delenv("XDG_CONFIG_HOME", raising=False)
    page = settings.pages["apps"]
    page.show_snippets = False
    with qtbot.wait_signal(page.listed, timeout=30_000) as listed:
        page.refresh()
    statuses = {s.client_id: s for s in listed.args[0]}
    assert {"claude-desktop", "claude-code", "lm-studio", "cursor", "vscode", "codex", "windsurf"} <= set(statuses)
    assert not statuses["claude-desktop"].installed
    assert str(statuses["claude-desktop"].path).startswith(str(fake_home))

    page.select("lm-studio")
    with qtbot.wait_signal(page.snippet_ready, timeout=30_000) as ready:
        page.snippet_selected()
    snippet = ready.args[0]
    assert "mcpServers" in snippet.text and "ltm-desktop" in snippet.text
    assert snippet.deeplink and snippet.deeplink.startswith("lmstudio://add_mcp")

    page.select("claude-desktop")
    with qtbot.wait_signal(page.connected, timeout=30_000) as outcome:
        page.connect_selected()
    ok, message = outcome.args
    assert not ok and "does not seem to be installed" in message
    assert not any(fake_home.rglob("claude_desktop_config.json"))  # nothing written for an app that is not there


def test_a_missing_tunnel_binary_gives_the_install_hint(qtbot, started_app, settings, monkeypatch, tmp_path):
    monkeypatch.setenv("PATH", str(tmp_path / "empty-bin"))
    page = settings.pages["remote"]
    page.provider.setCurrentIndex(0)  # cloudflare
    with qtbot.wait_signal(page.failed, timeout=30_000) as failed:
        page.start_tunnel()
    assert "cloudflared is not installed" in failed.args[0] and "Install it" in failed.args[0]
    assert "tunnel" not in started_app.supervisor.children


def test_a_tunnel_started_from_settings_shows_a_connector_url_and_stops_cleanly(qtbot, started_app, settings):
    home = started_app.container.settings.home
    (home / "bin").mkdir(parents=True, exist_ok=True)
    exe = home / "bin" / "cloudflared"
    exe.write_text(f'#!/bin/sh\nexec "{sys.executable}" "{FAKE_CLOUDFLARED}" "$@"\n')
    exe.chmod(0o755)
    page = settings.pages["remote"]
    settings.show_page("remote")
    page.start_tunnel()
    qtbot.wait_until(lambda: page.connector.text().startswith("https://"), timeout=90_000)
    m = re.fullmatch(r"https://([a-z0-9-]+\.trycloudflare\.com)/t/(ltm_[A-Za-z0-9_-]+)/mcp", page.connector.text())
    assert m, page.connector.text()
    assert started_app.container.tokens.verify(m.group(2)).name == "connector"
    assert "What this exposes" in page.exposure.text()
    assert m.group(2) not in (home / "logs" / "tunnel.log").read_text()  # the token never reaches a log
    child = started_app.supervisor.children["tunnel"]
    pid = child.pid()
    page.stop_tunnel()
    qtbot.wait_until(lambda: page.state.text().endswith("Stopped.") or page.state.text() == "No tunnel.", timeout=30_000)
    assert page.connector.text() == ""
    assert started_app.container.tokens.verify(m.group(2)) is None
    from tests.gui.gui_helpers import is_running

    qtbot.wait_until(lambda: not is_running(pid), timeout=15_000)


def test_journal_shows_tool_calls(qtbot, started_app, settings):
    journal = started_app.container.journal
    journal.record("ltm_search", Caller("claude-code", "http", False), 42.0, True, None, None)
    journal.record("ltm_get_document", Caller("lm-studio", "stdio", True), 7.0, False, "no document matches 'x'", None)
    page = settings.pages["journal"]
    with qtbot.wait_signal(page.loaded, timeout=30_000) as loaded:
        page.refresh()
    assert loaded.args[0] == 2
    rows = [[page.calls.topLevelItem(i).text(c) for c in range(6)] for i in range(2)]
    assert {r[1] for r in rows} == {"ltm_search", "ltm_get_document"}
    assert any(r[4].startswith("error: no document matches") for r in rows)
    assert page.summary.topLevelItemCount() == 2


def test_general_page_shows_data_location_and_disk_usage(qtbot, started_app, settings):
    page = settings.pages["general"]
    with qtbot.wait_signal(page.usage_shown, timeout=30_000) as shown:
        page.refresh()
    rows = dict(shown.args[0])
    assert rows["Model pack"] > 10_000_000  # the real model files
    assert any(k.startswith("Database") and v > 0 for k, v in rows.items())
    assert "Total" in page.usage.text()
