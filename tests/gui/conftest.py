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
