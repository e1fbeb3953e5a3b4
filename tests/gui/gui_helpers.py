"""Helpers shared by the desktop app tests (importable by name: tests/gui is on sys.path)."""

from __future__ import annotations

from pathlib import Path


def is_running(pid: int) -> bool:
    """True while pid is a live process (a zombie waiting to be reaped counts as gone)."""
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except (FileNotFoundError, ProcessLookupError):
        return False
    return stat.rsplit(")", 1)[1].split()[0] != "Z"
