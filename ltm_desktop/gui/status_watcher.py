"""A background thread that reads the worker status and index counts when Postgres announces a change.

The worker's queue sends NOTIFY on every change (LISTEN/NOTIFY via Container.status_changes), so the tray
updates within about a second of a file finishing, without polling hard; a periodic read covers a lost
notification connection. Reads are throttled so a burst of a thousand jobs costs a handful of queries.
"""

from __future__ import annotations

import logging
import threading
import time
from dataclasses import dataclass

from PySide6.QtCore import QThread, Signal

from ltm_desktop.core.errors import KnownError

log = logging.getLogger(__name__)


@dataclass(frozen=True)
class StatusReading:
    worker: object | None  # services.status.WorkerStatus, or None when this build has no worker
    stats: dict | None  # SearchIndex.stats(), refreshed less often (it counts rows)


class StatusWatcher(QThread):
    status_read = Signal(object)  # StatusReading
    read_failed = Signal(str)

    def __init__(self, container, *, min_interval: float = 1.0, stats_interval: float = 10.0, poll_seconds: float = 5.0) -> None:
        super().__init__()
        self.container = container
        self.min_interval = min_interval
        self.stats_interval = stats_interval
        self.poll_seconds = poll_seconds
        self._stop = threading.Event()
        self._refresh = threading.Event()
        self._stats: dict | None = None
        self._stats_at = float("-inf")

    def request_refresh(self, *, with_stats: bool = False) -> None:
        """Read again now (after the app itself changed something)."""
        if with_stats:
            self._stats_at = float("-inf")
        self._refresh.set()

    def stop(self) -> None:
        self._stop.set()
        self._refresh.set()
        self.wait(10_000)

    def run(self) -> None:
        wakeup = None
        while not self._stop.is_set():
            try:
                if wakeup is None and hasattr(self.container, "status_changes"):
                    wakeup = self.container.status_changes()
                self.status_read.emit(self._read())
            except KnownError as e:
                self.read_failed.emit(str(e))
            except Exception as e:  # the thread's top loop: keep watching, log the bug
                log.exception("reading the status failed")
                self.read_failed.emit(f"unexpected error while reading the status: {type(e).__name__}: {e}")
            self._wait_for_change(wakeup)
            self._stop.wait(self.min_interval)  # throttle bursts of notifications
        if wakeup is not None:
            wakeup.close()

    def _read(self) -> StatusReading:
        worker = self.container.worker_status() if hasattr(self.container, "worker_status") else None
        now = time.monotonic()
        if now - self._stats_at >= self.stats_interval:
            self._stats = self.container.search_index.stats()
            self._stats_at = now
        return StatusReading(worker, self._stats)

    def _wait_for_change(self, wakeup) -> None:
        deadline = time.monotonic() + self.poll_seconds
        self._refresh.clear()
        while not self._stop.is_set() and not self._refresh.is_set() and time.monotonic() < deadline:
            if wakeup is not None:
                if wakeup.wait(min(1.0, max(0.0, deadline - time.monotonic()))):
                    return
            else:
                self._refresh.wait(min(1.0, max(0.0, deadline - time.monotonic())))
