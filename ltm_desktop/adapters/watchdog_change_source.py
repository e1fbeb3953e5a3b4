"""WatchdogChangeSource: file-system events from watchdog (inotify, FSEvents, ReadDirectoryChangesW).

When the native observer cannot take a folder (the inotify watch limit, some network file systems) the
folder falls back to watchdog's polling observer; the worker's periodic reconciliation scan is the last
line behind both.
"""

from __future__ import annotations

import logging
import os
import threading
from collections.abc import Callable, Iterable

from watchdog.events import FileSystemEvent, FileSystemEventHandler
from watchdog.observers import Observer
from watchdog.observers.api import BaseObserver, ObservedWatch
from watchdog.observers.polling import PollingObserver

from ltm_desktop.core.jobs import ChangeEvent

log = logging.getLogger(__name__)
_IGNORED_TYPES = {"opened", "closed_no_write"}


def _text(path: str | bytes) -> str:
    return os.fsdecode(path)


class _Forward(FileSystemEventHandler):
    def __init__(self, sink: Callable[[ChangeEvent], None]) -> None:
        self._sink = sink

    def on_any_event(self, event: FileSystemEvent) -> None:
        if event.event_type in _IGNORED_TYPES:
            return
        if event.is_directory and event.event_type in ("modified", "closed"):
            return  # a folder's own mtime changes with every child; the children report themselves
        try:
            if event.event_type == "moved":
                self._sink(ChangeEvent("moved", _text(event.src_path), event.is_directory, _text(event.dest_path)))
            else:
                self._sink(ChangeEvent("touched", _text(event.src_path), event.is_directory))
        except Exception:  # the observer thread must survive a bug in the sink; logged with traceback
            log.exception("handling %s failed", event)


class WatchdogChangeSource:
    def __init__(self, sink: Callable[[ChangeEvent], None], polling_seconds: float = 5.0) -> None:
        self._handler = _Forward(sink)
        self._native: BaseObserver = Observer()
        self._polling: BaseObserver | None = None
        self._polling_seconds = polling_seconds
        self._watches: dict[str, tuple[BaseObserver, ObservedWatch]] = {}
        self._lock = threading.Lock()
        self._native.start()

    def watch(self, root: str) -> str | None:
        """Start delivering events below root; None on success, else why it cannot be watched."""
        with self._lock:
            if root in self._watches:
                return None
            try:
                self._watches[root] = (self._native, self._native.schedule(self._handler, root, recursive=True))
                return None
            except OSError as native_error:
                log.warning("native watching of %s failed (%s); polling it instead", root, native_error)
            try:
                if self._polling is None:
                    self._polling = PollingObserver(timeout=self._polling_seconds)
                    self._polling.start()
                self._watches[root] = (self._polling, self._polling.schedule(self._handler, root, recursive=True))
                return None
            except OSError as e:
                return f"cannot watch {root}: {e.strerror or e}"

    def unwatch(self, root: str) -> None:
        with self._lock:
            entry = self._watches.pop(root, None)
        if entry is not None:
            observer, handle = entry
            try:
                observer.unschedule(handle)
            except (KeyError, OSError):
                pass  # the folder vanished and the observer already dropped it

    def watched(self) -> Iterable[str]:
        with self._lock:
            return list(self._watches)

    def stop(self) -> None:
        for observer in (self._native, self._polling):
            if observer is not None:
                observer.stop()
                observer.join(timeout=5)
