"""Journal rows are written on a background thread, so a slow or unreachable database never delays an answer."""

from __future__ import annotations

import logging
import queue
import threading
from collections.abc import Callable
from typing import Any

from ltm_desktop.core.errors import KnownError

log = logging.getLogger(__name__)
MAX_PENDING = 10_000
IDLE_EXIT_S = 5.0


class JournalWriter:
    """A bounded queue drained by one daemon thread that exists only while there is work."""

    def __init__(self, write: Callable[..., None]) -> None:
        self._write = write
        self._queue: queue.Queue[tuple] = queue.Queue(MAX_PENDING)
        self._pending = 0
        self._dropped = 0
        self._cond = threading.Condition()
        self._thread: threading.Thread | None = None

    def submit(self, *entry: Any) -> None:
        """Queue one write(...) call; never blocks (drops, and says so, if the database is long gone)."""
        with self._cond:
            try:
                self._queue.put_nowait(entry)
            except queue.Full:
                self._dropped += 1
                if self._dropped in (1, 100) or self._dropped % 10_000 == 0:
                    log.warning("journal backlog full: %d tool calls not journaled", self._dropped)
                return
            self._pending += 1
            if self._thread is None:
                self._thread = threading.Thread(target=self._run, name="ltm-journal", daemon=True)
                self._thread.start()

    def flush(self, timeout: float = 10.0) -> bool:
        """Wait until everything queued so far is written (or failed); False on timeout."""
        with self._cond:
            return self._cond.wait_for(lambda: self._pending == 0, timeout)

    def _run(self) -> None:
        while True:
            try:
                entry = self._queue.get(timeout=IDLE_EXIT_S)
            except queue.Empty:
                with self._cond:
                    if self._queue.empty():
                        self._thread = None
                        return
                continue
            try:
                self._write(*entry)
            except KnownError as e:
                log.warning("tool call not journaled (%s): %s", entry[0], e)
            except Exception:  # the writer's top-level loop: log the bug, keep journaling
                log.exception("journal writer failed on one entry")
            finally:
                with self._cond:
                    self._pending -= 1
                    self._cond.notify_all()
