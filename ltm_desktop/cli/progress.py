"""A one-line progress bar with rate and ETA, for terminals only (nothing when output is piped)."""

from __future__ import annotations

import sys
import time
from typing import TextIO


class ProgressBar:
    def __init__(self, label: str, stream: TextIO = sys.stderr, enabled: bool | None = None) -> None:
        self._label = label
        self._stream = stream
        self._enabled = stream.isatty() if enabled is None else enabled
        self._start = time.monotonic()
        self._last = 0.0

    def update(self, done: int, total: int, note: str = "") -> None:
        if not self._enabled:
            return
        now = time.monotonic()
        if now - self._last < 0.1 and done < total:
            return
        self._last = now
        elapsed = max(now - self._start, 1e-6)
        rate = done / elapsed
        eta = (total - done) / rate if rate > 0 else 0
        width = 28
        filled = int(width * done / total) if total else width
        bar = "#" * filled + "-" * (width - filled)
        note = note[-40:]
        self._stream.write(f"\r{self._label} [{bar}] {done}/{total} {rate:5.1f}/s ETA {_fmt(eta)} {note:<40}")
        self._stream.flush()

    def close(self) -> None:
        if self._enabled:
            self._stream.write("\n")
            self._stream.flush()


def _fmt(seconds: float) -> str:
    seconds = int(seconds)
    if seconds >= 3600:
        return f"{seconds // 3600}h{seconds % 3600 // 60:02d}m"
    return f"{seconds // 60}:{seconds % 60:02d}"
