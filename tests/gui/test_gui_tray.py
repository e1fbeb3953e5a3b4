"""Tray state, tooltip and menu; icons; single instance; start at login."""

from __future__ import annotations

import pytest
from PySide6.QtGui import QImage

from ltm_desktop.gui.app_status import LocalIngest, QueueFacts, StatusFacts, compose_status
from ltm_desktop.gui.icons import app_icon, resources_dir, state_icon
from ltm_desktop.gui.single_instance import SingleInstance, instance_name
from ltm_desktop.gui.tray import MenuActions, TrayIcon

MENU = ["Search…", "Add files…", "Watched folders…", "Pause indexing", "Connect an AI app…", "Settings…", "Open logs", "Quit"]


def test_status_states_and_tooltip_counts():
    ready = StatusFacts(store_ready=True, documents=1234, failed_files=2, server_url="http://127.0.0.1:8322/mcp")
    idle = compose_status(ready)
    assert idle.state == "idle" and idle.progress is None
    assert "1,234 documents indexed, 2 failed" in idle.tooltip and "8322" in idle.tooltip
    busy = compose_status(StatusFacts(store_ready=True, queue=QueueFacts(queued=30, running=2, done=68, eta_seconds=300)))
    assert busy.state == "indexing" and busy.progress == pytest.approx(0.68)
    assert "32 files to go, about 5 min left" in busy.headline
    local = compose_status(StatusFacts(store_ready=True, local=LocalIngest(3, 12)))
    assert local.state == "indexing" and local.headline == "Adding files: 3 of 12" and local.progress == 0.25
    paused = compose_status(StatusFacts(store_ready=True, queue=QueueFacts(queued=5, paused=True)))
    assert paused.state == "paused" and "5 files waiting" in paused.tooltip
    broken = compose_status(StatusFacts(store_ready=True, child_problems=("MCP server exited with status 1: boom",), queue=QueueFacts(paused=True)))
    assert broken.state == "error" and "boom" in broken.tooltip  # errors win over paused
    down = compose_status(StatusFacts(store_error="the embedded Postgres did not start"))
    assert down.state == "error" and down.problem == "the embedded Postgres did not start"
    assert compose_status(StatusFacts()).state == "starting"


def _actions(calls):
    names = ("search", "add_files", "watched_folders", "toggle_pause", "connect_app", "settings", "open_logs", "quit")
    return MenuActions(**{n: (lambda n=n: calls.append(n)) for n in names})


def test_tray_menu_has_every_entry_and_each_does_its_job(qtbot):
    calls: list[str] = []
    tray = TrayIcon(_actions(calls))
    texts = [a.text() for a in tray.menu.actions() if not a.isSeparator()]
    assert texts[1:] == MENU  # after the status line
    for key in ("search", "add_files", "watched_folders", "toggle_pause", "connect_app", "settings", "open_logs", "quit"):
        tray.actions[key].trigger()
    assert calls == ["search", "add_files", "watched_folders", "toggle_pause", "connect_app", "settings", "open_logs", "quit"]


def test_tray_shows_state_tooltip_and_pause_label(qtbot):
    tray = TrayIcon(_actions([]))
    status = compose_status(StatusFacts(store_ready=True, documents=7, queue=QueueFacts(queued=3, paused=True)))
    tray.show_status(status, paused=True)
    assert tray.icon.toolTip() == status.tooltip and "7 documents indexed" in tray.icon.toolTip()
    assert tray.actions["status"].text() == "Indexing paused — 7 documents indexed"
    assert tray.actions["toggle_pause"].text() == "Resume indexing"
    tray.show_status(compose_status(StatusFacts(store_ready=True)), paused=False)
    assert tray.actions["toggle_pause"].text() == "Pause indexing"


def _pixel(icon, size, x, y):
    image: QImage = icon.pixmap(size, size).toImage()
    return image.pixelColor(x, y)


def test_icons_load_from_resources_and_differ_by_state(qtbot):
    assert (resources_dir() / "icons" / "app.svg").exists()
    assert not app_icon().isNull()
    centre = {s: _pixel(state_icon(s), 64, 44, 36).name() for s in ("idle", "indexing", "paused", "error")}
    assert len(set(centre.values())) == 4  # each state has its own badge colour
    half = state_icon("indexing", 0.5)
    full = state_icon("indexing", 1.0)
    # the progress ring: the top-right of the badge is drawn green at 50% and 100%, the bottom-left only at 100%
    assert _pixel(half, 64, 56, 36).green() > 150 and _pixel(full, 64, 32, 52).green() > 150
    assert _pixel(half, 64, 32, 52).name() != _pixel(full, 64, 32, 52).name()


def test_a_second_launch_activates_the_first(qtbot, tmp_path):
    name = instance_name(tmp_path)
    first = SingleInstance(name)
    assert first.claim()
    second = SingleInstance(name)
    with qtbot.wait_signal(first.activation_requested, timeout=5_000):
        assert second.claim() is False
    first.release()
    third = SingleInstance(name)
    assert third.claim()  # the name is free again once the first has gone
    third.release()
    assert instance_name(tmp_path) != instance_name(tmp_path / "other")


def test_start_at_login_writes_and_removes_the_autostart_entry(monkeypatch, tmp_path):
    from ltm_desktop.gui import autostart

    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "config"))
    monkeypatch.setenv("LTM_HOME", str(tmp_path / "home"))
    assert not autostart.is_enabled()
    autostart.set_enabled(True, autostart.launch_command(tmp_path / "home"))
    entry = (tmp_path / "config" / "autostart" / "ltm-desktop.desktop").read_text()
    assert autostart.is_enabled() and "Exec=env LTM_HOME=" in entry and "[Desktop Entry]" in entry
    autostart.set_enabled(False, [])
    assert not autostart.is_enabled()


def test_start_at_login_on_a_read_only_config_folder_says_why(monkeypatch, tmp_path):
    from ltm_desktop.core.errors import KnownError
    from ltm_desktop.gui import autostart

    blocked = tmp_path / "config"
    blocked.write_text("a file where the folder should be")
    monkeypatch.setenv("XDG_CONFIG_HOME", str(blocked))
    with pytest.raises(KnownError, match="start at login"):
        autostart.set_enabled(True, ["ltm-desktop"])
