"""Each supervised child's output: appended to a size-capped log file and kept in memory for the log window."""

from __future__ import annotations

import os
from collections import deque
from pathlib import Path

MAX_LOG_BYTES = 2 * 1024 * 1024
TAIL_LINES = 2000


class ChildLog:
    """A rotating log file (one backup) plus the last lines in memory."""

    def __init__(self, path: Path, max_bytes: int = MAX_LOG_BYTES) -> None:
        self.path = path
        self._max_bytes = max_bytes
        self._lines: deque[str] = deque(maxlen=TAIL_LINES)
        self._partial = ""
        path.parent.mkdir(parents=True, exist_ok=True)

    def append(self, text: str) -> list[str]:
        """Record output; returns the complete lines it finished."""
        if not text:
            return []
        self._rotate_if_full()
        with self.path.open("a", encoding="utf-8", errors="replace") as f:
            f.write(text)
        pieces = (self._partial + text).split("\n")
        self._partial = pieces.pop()
        lines = [p.rstrip("\r") for p in pieces]
        self._lines.extend(lines)
        return lines

    def note(self, message: str) -> None:
        """A line from the supervisor itself (start, exit, restart), marked so it stands out in the log."""
        self.append(f"--- {message}\n")

    def tail(self, n: int = 200) -> list[str]:
        lines = list(self._lines)[-n:]
        return lines + [self._partial] if self._partial else lines

    def last_meaningful_line(self) -> str:
        """The child's last own line (not a supervisor note): usually the error it died with."""
        for line in reversed(self.tail(200)):
            text = line.strip()
            if text and not text.startswith("---"):
                return text
        return ""

    def _rotate_if_full(self) -> None:
        try:
            if self.path.stat().st_size < self._max_bytes:
                return
        except FileNotFoundError:
            return
        os.replace(self.path, self.path.with_suffix(self.path.suffix + ".1"))
