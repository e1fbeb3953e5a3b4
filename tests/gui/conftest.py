"""Fixtures for the desktop app tests: offscreen Qt, real child processes, a real database."""

from __future__ import annotations

import os
import pytest

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")


@pytest.fixture
def script(tmp_path):
    """Write a small Python program for a child process to run; returns its command."""
    import sys

    def make(name: str, source: str) -> tuple[str, ...]:
        path = tmp_path / f"{name}.py"
        path.write_text(source, encoding="utf-8")
        return (sys.executable, str(path))

    return make


@pytest.fixture(autouse=True)
def _no_task_outlives_its_test(qapp, qtbot):  # qtbot first: its widgets close after the wait
    """Background tasks a test started finish before the next test (and before the database goes away)."""
    from ltm_desktop.gui.tasks import wait_for_tasks

    yield
    assert wait_for_tasks(120_000), "a background task did not finish"
    qapp.processEvents()


@pytest.fixture
def make_app(qtbot, pg_uri, shared_models, tmp_path):
    """A DesktopApp (no tray, as offscreen) on its own home and a fresh database; quit after the test."""
    from ltm_desktop.gui.desktop_app import DesktopApp
    from tests.conftest import create_database, make_container
    from tests.gui.gui_helpers import FAST

    made = []

    def make(run_children: bool = False, welcomed: bool = True, **overrides):
        c = make_container(tmp_path / f"home{len(made)}", create_database(pg_uri, "gui_app"), shared_models,
                           ingest_workers=1, **overrides)
        app = DesktopApp(c, policy=FAST, tray_available=False, run_children=run_children, stop_database_on_quit=False)
        if welcomed:
            app.state.mark_welcomed()
        made.append(app)
        return app

    yield make
    for app in made:
        app.quit()


@pytest.fixture
def started_app(qtbot, make_app):
    """An app whose store is up (no children)."""
    app = make_app()
    with qtbot.wait_signal(app.store_ready, timeout=60_000):
        app.start()
    return app
