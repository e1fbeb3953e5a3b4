"""Settling: a changed file is released only once its size and mtime have stopped changing.

Scanners, browsers and copy tools write in pieces; reading a file mid-write indexes a truncated PDF or
fails on it. Paths wait here, and bursts of duplicate events for one path collapse into one release.
What to do with a released path (index it, or forget it because it is gone) is decided from the file
system at release time, not from the event, so a delete followed by a re-create is just an update.
"""

from __future__ import annotations

import os
import threading
from dataclasses import dataclass


@dataclass
class _Pending:
    sig: tuple[int, int] | None
    since: float


def _signature(path: str) -> tuple[int, int] | None:
    try:
        st = os.stat(path)
    except OSError:
        return None
    return st.st_size, st.st_mtime_ns


class SettleTracker:
    """Thread-safe: file-system events arrive on the watcher's thread, releases happen on another."""

    def __init__(self, settle_seconds: float, max_pending: int = 50_000) -> None:
        self._settle = settle_seconds
        self._max = max_pending
        self._pending: dict[str, _Pending] = {}
        self._lock = threading.Lock()

    def __len__(self) -> int:
        with self._lock:
            return len(self._pending)

    def touch(self, path: str, now: float) -> bool:
        """Note a change at path; False when the tracker is full (the caller then rescans instead)."""
        with self._lock:
            entry = self._pending.get(path)
            if entry is None and len(self._pending) >= self._max:
                return False
            # An event means the file is still moving: restart its clock without a stat (events come in bursts).
            self._pending[path] = _Pending(entry.sig if entry else _signature(path), now)
            return True

    def due(self, now: float) -> list[str]:
        """Paths whose size and mtime have not changed for the settle delay, in the order they settled."""
        with self._lock:
            ripe = [(p, e) for p, e in self._pending.items() if now - e.since >= self._settle]
        released = []
        for path, entry in ripe:
            sig = _signature(path)  # stat outside the lock: a slow share must not block event delivery
            with self._lock:
                current = self._pending.get(path)
                if current is not entry:
                    continue  # a newer event arrived meanwhile
                if sig != entry.sig:
                    self._pending[path] = _Pending(sig, now)
                    continue
                del self._pending[path]
            released.append(path)
        return released

    def forget_under(self, root: str) -> None:
        """Drop pending paths of a folder no longer watched."""
        prefix = root.rstrip("/\\") + os.sep
        with self._lock:
            for p in [p for p in self._pending if p == root or p.startswith(prefix)]:
                del self._pending[p]
