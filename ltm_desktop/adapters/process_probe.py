"""Is a process still alive? psutil answers portably (os.kill(pid, 0) would terminate it on Windows)."""

from __future__ import annotations

import psutil


def is_process_alive(pid: int) -> bool:
    """True for a running process; a zombie (killed, not yet reaped) counts as gone."""
    try:
        return psutil.Process(pid).status() != psutil.STATUS_ZOMBIE
    except psutil.AccessDenied:
        return True  # it exists; it belongs to someone else
    except (psutil.NoSuchProcess, ValueError):
        return False
