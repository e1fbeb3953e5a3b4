"""Helpers shared by the desktop app tests (importable by name: tests/gui is on sys.path)."""

from __future__ import annotations

import socket
import urllib.request
from pathlib import Path

from ltm_desktop.gui.supervisor import RestartPolicy

FAST = RestartPolicy(first_delay_ms=50, max_delay_ms=200, crash_limit=3, window_seconds=60, grace_ms=5000)


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def healthy(port: int) -> bool:
    """True when an LTM MCP server answers /healthz on 127.0.0.1:port."""
    try:
        with urllib.request.urlopen(f"http://127.0.0.1:{port}/healthz", timeout=1) as r:
            return r.status == 200
    except OSError:
        return False


def is_running(pid: int) -> bool:
    """True while pid is a live process (a zombie waiting to be reaped counts as gone)."""
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except (FileNotFoundError, ProcessLookupError):
        return False
    return stat.rsplit(")", 1)[1].split()[0] != "Z"
