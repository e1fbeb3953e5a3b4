"""Small facts the desktop app remembers between runs (not settings): has the welcome been shown?"""

from __future__ import annotations

import json
import os
from pathlib import Path


class DesktopState:
    """A JSON file in HOME; unreadable or missing means a first run."""

    def __init__(self, home: Path) -> None:
        self.path = Path(home) / "desktop-state.json"
        try:
            self._data = json.loads(self.path.read_text(encoding="utf-8"))
            if not isinstance(self._data, dict):
                self._data = {}
        except (OSError, ValueError):
            self._data = {}

    @property
    def welcomed(self) -> bool:
        return bool(self._data.get("welcomed"))

    def mark_welcomed(self) -> None:
        self._data["welcomed"] = True
        self._save()

    def _save(self) -> None:
        self.path.parent.mkdir(parents=True, exist_ok=True)
        tmp = self.path.with_suffix(".tmp")
        tmp.write_text(json.dumps(self._data, indent=2), encoding="utf-8")
        os.replace(tmp, self.path)
