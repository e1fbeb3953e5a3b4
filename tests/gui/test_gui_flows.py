"""End-to-end flows: first run, drop → tray progress → notification, worker failure → notification → the file."""

from __future__ import annotations

from ltm_desktop.gui.desktop_state import DesktopState
from tests.docgen import corrupt_pdf, text_pdf
from tests.gui.gui_helpers import free_port


def test_first_run_welcome_watches_a_folder_and_is_shown_once(qtbot, make_app, tmp_path):
    app = make_app(welcomed=False)
    with qtbot.wait_signal(app.store_ready, timeout=60_000):
        app.start()
    welcome = app.windows.existing("welcome")
    assert welcome is not None and welcome.isVisible()
    assert set(welcome.connect_buttons) == {"claude-desktop", "lm-studio"}
    folder = tmp_path / "Documents"
    folder.mkdir()
    with qtbot.wait_signal(welcome.folder_watched, timeout=30_000) as watched:
        welcome.watch(str(folder))
    assert watched.args[0] == str(folder)
    assert [f.path for f in app.container.watch_folders.list()] == [str(folder)]
    assert "Watching" in welcome.folder_feedback.message
    welcome.close()
    assert DesktopState(app.container.settings.home).welcomed


def test_a_drop_shows_progress_in_the_tray_and_ends_with_a_notification(qtbot, started_app, tmp_path):
    app = started_app
    states = []
    app.status_changed.connect(lambda s: states.append((s.state, s.headline)))
    files = [text_pdf(tmp_path / f"invoice_{i}.pdf", [f"Invoice {i}: 120 euros for garden work."]) for i in range(3)]
    odd = tmp_path / "song.mp3"
    odd.write_bytes(b"ID3 not a document")
    drop = app.windows.show("drop")
    with qtbot.wait_signal(app.notified, timeout=120_000) as note:
        drop.add_paths([*files, odd])
    title, message, context = note.args
    assert title == "Files added" and message == "3 ingested, 1 skipped" and context == ("drop", None)
    assert ("indexing", "Adding files: 1 of 4") in states
    assert app.status.state == "idle" and app.facts.local is None
    qtbot.wait_until(lambda: app.facts.documents == 3, timeout=30_000)
    assert "3 documents indexed" in app.status.tooltip


def test_a_worker_failure_is_notified_and_a_click_leads_to_the_file_and_its_reason(qtbot, make_app, tmp_path):
    app = make_app(run_children=True, http_port=free_port(), job_max_attempts=1, watch_settle_seconds=0.2)
    notes = []
    app.notified.connect(lambda title, message, context: notes.append((title, message, context)))
    with qtbot.wait_signal(app.store_ready, timeout=60_000):
        app.start()
    folder = tmp_path / "scans"
    folder.mkdir()
    (folder / "letter.txt").write_text("The landlord confirmed the rent increase starts in June.", encoding="utf-8")
    broken = corrupt_pdf(folder / "broken.pdf")
    qtbot.wait_until(lambda: app.watcher is not None and getattr(app, "_failures_primed", False), timeout=30_000)
    app.container.watch_folders.add(str(folder))

    def failure_noted():
        return any(t.startswith("Could not index broken.pdf") for t, _m, _c in notes)

    qtbot.wait_until(failure_noted, timeout=180_000)
    title, reason, context = next(n for n in notes if n[0].startswith("Could not index broken.pdf"))
    assert context == ("failed", str(broken)) and reason
    qtbot.wait_until(lambda: any(t == "Indexing finished" for t, _m, _c in notes), timeout=120_000)
    qtbot.wait_until(lambda: app.status.state == "idle" and app.facts.documents == 1, timeout=60_000)

    app.windows.open_context(context)  # what a click on the notification does
    problems = app.windows.existing("problems")
    qtbot.wait_until(lambda: problems.selected_path() == str(broken), timeout=30_000)
    assert reason[:40] in problems.detail.text() or reason[:40] in problems.table.currentItem().text(2)
    with qtbot.wait_signal(problems.retried, timeout=60_000) as retried:
        problems.retry()
    assert retried.args[0].path == str(broken) and type(retried.args[0]).__name__ == "Failed"


def test_pause_and_resume_indexing_from_the_menu(qtbot, started_app):
    app = started_app
    window = app.windows.existing("status")
    with qtbot.wait_signal(app.status_changed, timeout=30_000, check_params_cb=lambda s: s.state == "paused"):
        window.buttons["toggle_pause"].click()
    assert app.container.job_queue.is_paused()
    assert window.buttons["toggle_pause"].text() == "Resume indexing"
    with qtbot.wait_signal(app.status_changed, timeout=30_000, check_params_cb=lambda s: s.state == "idle"):
        window.buttons["toggle_pause"].click()
    assert not app.container.job_queue.is_paused()
    assert window.buttons["toggle_pause"].text() == "Pause indexing"
