"""Run service calls off the Qt thread and get the result back as a signal on it.

Every call into the services (ingest, search, settings that touch the database) goes through here, so the
UI thread never waits on Postgres, OCR or a model. Results and errors are values delivered by signals.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from typing import Any

from PySide6.QtCore import QObject, QRunnable, QThreadPool, Signal
from shiboken6 import Shiboken

from ltm_desktop.core.errors import KnownError

log = logging.getLogger(__name__)


class TaskSignals(QObject):
    succeeded = Signal(object)
    failed = Signal(str)  # a message a person can act on
    progress = Signal(object)
    finished = Signal()


class Task(QRunnable):
    """One call run on a thread pool; `fn(report)` receives a progress callback when with_progress is set."""

    def __init__(self, fn: Callable[..., Any], *, with_progress: bool = False) -> None:
        super().__init__()
        self.setAutoDelete(False)  # the Python object must outlive run() until its signals are delivered
        self.signals = TaskSignals()
        self._fn = fn
        self._with_progress = with_progress

    def run(self) -> None:
        try:
            result = self._fn(self._progress) if self._with_progress else self._fn()
        except KnownError as e:
            self._emit(self.signals.failed, str(e))
        except Exception as e:  # the top of a worker thread: log the bug, show a message, keep the app up
            log.exception("background task failed")
            self._emit(self.signals.failed, f"unexpected error: {type(e).__name__}: {e} (details in the log)")
        else:
            self._emit(self.signals.succeeded, result)
        finally:
            self._emit(self.signals.finished)

    def _progress(self, value: Any) -> None:
        self._emit(self.signals.progress, value)

    def _emit(self, signal, *args: Any) -> None:
        try:
            signal.emit(*args)
        except RuntimeError:  # the app is shutting down and took the receiving objects with it
            log.debug("result of a background task dropped: its receiver is gone")


_running: set[Task] = set()


def run_task(
    fn: Callable[..., Any],
    on_success: Callable[[Any], None] | None = None,
    on_failure: Callable[[str], None] | None = None,
    on_progress: Callable[[Any], None] | None = None,
    pool: QThreadPool | None = None,
    owner: QObject | None = None,
) -> Task:
    """Start fn on a pool thread; the callbacks run on the Qt thread (skipped once `owner` is deleted)."""
    task = Task(fn, with_progress=on_progress is not None)
    for signal, callback in ((task.signals.succeeded, on_success), (task.signals.failed, on_failure),
                             (task.signals.progress, on_progress)):
        if callback is not None:
            signal.connect(_guarded(callback, owner))
    _running.add(task)
    task.signals.finished.connect(lambda: _running.discard(task))
    (pool or QThreadPool.globalInstance()).start(task)
    return task


def _guarded(callback: Callable[[Any], None], owner: QObject | None) -> Callable[[Any], None]:
    if owner is None:
        return callback

    def call(value: Any) -> None:
        # A window closed (and deleted) while its task ran: the answer has nowhere to go.
        if Shiboken.isValid(owner):
            callback(value)

    return call


_pools: list[QThreadPool] = []


def serial_pool(parent: QObject | None = None) -> QThreadPool:
    """A pool of one thread: jobs that must not overlap (ingestion batches) queue up in order."""
    pool = QThreadPool(parent)
    pool.setMaxThreadCount(1)
    _pools.append(pool)
    return pool


def wait_for_tasks(timeout_ms: int = 60_000) -> bool:
    """Block until every background task has finished (at quit, and between tests)."""
    ok = QThreadPool.globalInstance().waitForDone(timeout_ms)
    for pool in list(_pools):
        try:
            ok = pool.waitForDone(timeout_ms) and ok
        except RuntimeError:  # deleted with its parent
            _pools.remove(pool)
    return ok
