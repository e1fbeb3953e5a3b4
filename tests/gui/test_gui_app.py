"""The desktop app as a whole: store start (and its failure), the real children, port conflicts, settings applied live."""

from __future__ import annotations

import socket

from ltm_desktop.core.models import Skipped
from ltm_desktop.gui import children
from ltm_desktop.gui.desktop_app import DesktopApp
from ltm_desktop.gui.status_window import NO_TRAY_NOTICE
from ltm_desktop.gui.supervisor import ChildSpec, ChildState
from tests.conftest import make_container
from tests.gui.gui_helpers import FAST, free_port, healthy, is_running


def test_without_a_tray_host_the_app_runs_in_a_window_and_says_so(qtbot, make_app):
    app = make_app()
    with qtbot.wait_signal(app.store_ready, timeout=60_000):
        app.start()
    window = app.windows.existing("status")
    assert window is not None and window.isVisible()
    assert window.notice.isVisible() and window.notice.text() == NO_TRAY_NOTICE
    assert "no system tray" in NO_TRAY_NOTICE.lower() and "closing it quits" in NO_TRAY_NOTICE.lower()
    qtbot.wait_until(lambda: app.status.state == "idle", timeout=30_000)
    assert window.headline.text() == "Up to date"
    assert "0 documents indexed" in app.status.tooltip


def test_postgres_failing_to_start_shows_the_error_and_starts_no_children(qtbot, tmp_path, shared_models):
    home = tmp_path / "home"
    home.mkdir()
    (home / "pgdata").write_text("not a directory")  # the data folder cannot be created
    c = make_container(home, "", shared_models)
    app = DesktopApp(c, policy=FAST, tray_available=False, run_children=True, stop_database_on_quit=False)
    notes = []
    app.notified.connect(lambda title, message, context: notes.append((title, message, context)))
    with qtbot.wait_signal(app.store_failed, timeout=60_000) as failed:
        app.start()
    assert "embedded Postgres" in failed.args[0] and "ltm doctor" in failed.args[0]
    assert app.status.state == "error" and app.status.problem == failed.args[0]
    assert notes and notes[0][0] == "The database did not start"
    assert app.supervisor.children == {}
    app.quit()


def test_a_port_taken_by_another_program_is_reported_with_the_fix(qtbot, make_app):
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        app = make_app(http_port=port)
        notes = []
        app.notified.connect(lambda title, message, context: notes.append((title, message, context)))
        with qtbot.wait_signal(app.store_ready, timeout=60_000):
            app.start()
        with qtbot.wait_signal(app.notified, timeout=30_000):
            app.start_server()
    title, message, context = notes[-1]
    assert title == "The MCP server cannot start"
    assert f"port {port}" in message and "Settings → Server" in message
    assert context == ("settings", "server")
    assert children.SERVER not in app.supervisor.children
    assert app.status.state == "error" and f"port {port}" in app.status.tooltip


def test_a_child_in_a_crash_loop_turns_the_tray_to_error_and_stops_retrying(qtbot, make_app, tmp_path):
    app = make_app()
    with qtbot.wait_signal(app.store_ready, timeout=60_000):
        app.start()
    crash = tmp_path / "crash.py"
    crash.write_text('raise SystemExit("ltm: the worker cannot read its settings: fix config.toml")', encoding="utf-8")
    import sys

    app.supervisor.add(ChildSpec("worker", "Indexing worker", (sys.executable, str(crash))))
    with qtbot.wait_signal(app.notified, timeout=30_000) as note:
        app.supervisor.children["worker"].start()
    title, message, context = note.args
    assert title == "Indexing worker stopped" and "fix config.toml" in message and context == ("logs", "worker")
    assert app.status.state == "error" and "kept failing" in app.status.tooltip
    assert app.supervisor.children["worker"].state == ChildState.GAVE_UP
    logs = app.windows.show("logs")
    logs.show_log("worker")
    assert "fix config.toml" in logs.text_of("worker") and "gave up" in logs.text_of("worker")


def test_real_children_start_settings_apply_live_and_quit_leaves_no_orphans(qtbot, make_app, tmp_path):
    first, second = free_port(), free_port()
    app = make_app(run_children=True, http_port=first)
    with qtbot.wait_signal(app.store_ready, timeout=60_000):
        app.start()
    qtbot.wait_until(lambda: healthy(first), timeout=120_000)
    qtbot.wait_until(lambda: app.supervisor.children[children.WORKER].state == ChildState.RUNNING, timeout=30_000)
    assert app.facts.server_url == f"http://127.0.0.1:{first}/mcp"
    server_pid = app.supervisor.children[children.SERVER].pid()
    worker_pid = app.supervisor.children[children.WORKER].pid()

    # the server port, through the settings window: saved, and the server moves without an app restart
    settings = app.windows.show("settings", "server")
    page = settings.pages["server"]
    page.port.setValue(second)
    with qtbot.wait_signal(page.applied, timeout=30_000):
        page.apply()
    assert app.container.settings.http_port == second
    assert f"http_port = {second}" in (app.container.settings.home / "config.toml").read_text()
    qtbot.wait_until(lambda: healthy(second) and not healthy(first), timeout=120_000)
    assert not is_running(server_pid)

    # reading settings: the worker restarts with them, and this process's own ingest uses them at once
    indexing = settings.pages["indexing"]
    indexing.max_mb.setValue(1)
    with qtbot.wait_signal(indexing.applied, timeout=30_000):
        indexing.apply()
    qtbot.wait_until(lambda: not is_running(worker_pid), timeout=30_000)
    qtbot.wait_until(lambda: app.supervisor.children[children.WORKER].state == ChildState.RUNNING, timeout=30_000)
    big = tmp_path / "big.txt"
    big.write_text("a line of a long log file\n" * 60_000, encoding="utf-8")  # ~1.5 MiB
    outcome = app.container.ingest.ingest_file(big)
    assert isinstance(outcome, Skipped) and "1 MiB limit" in outcome.reason

    pids = [c.pid() for c in app.supervisor.children.values()]
    assert all(pids) and all(is_running(p) for p in pids)
    app.quit()
    assert not any(is_running(p) for p in pids)
    assert not healthy(second)


def test_a_bad_setting_is_refused_and_nothing_is_saved(qtbot, make_app):
    app = make_app()
    with qtbot.wait_signal(app.store_ready, timeout=60_000):
        app.start()
    settings = app.windows.show("settings", "indexing")
    page = settings.pages["indexing"]
    page.ocr.setText("eng+klingon")
    with qtbot.wait_signal(page.failed, timeout=30_000) as failed:
        page.apply()
    assert "klingon" in failed.args[0] and "tesseract-ocr-klingon" in failed.args[0]
    page.ocr.setText("eng; rm -rf")
    with qtbot.wait_signal(page.failed, timeout=5_000) as failed:
        page.apply()
    assert "not valid" in failed.args[0]
    server = settings.pages["server"]
    server.public_host.setText("https://example.com/mcp")
    with qtbot.wait_signal(server.failed, timeout=5_000) as failed:
        server.apply()
    assert "bare host name" in failed.args[0]
    assert not (app.container.settings.home / "config.toml").exists()
