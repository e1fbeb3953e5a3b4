"""A tiny launcher that makes a supervised child die with the desktop app, even when the app is killed.

The supervisor starts `python -m ltm_desktop.gui.child_guard --parent PID -- COMMAND...` (or the frozen
executable's hidden `child-guard` subcommand). On Linux it asks the kernel for PR_SET_PDEATHSIG, which
survives exec, and then becomes COMMAND; elsewhere it stays in between, watches the parent and ends
COMMAND when the parent is gone. No Qt here: this runs in the child, before anything else is imported.
"""

from __future__ import annotations

import os
import shutil
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Sequence

PR_SET_PDEATHSIG = 1
PARENT_POLL_SECONDS = 1.0


def guarded_command(command: Sequence[str], parent_pid: int) -> list[str]:
    """The argv that runs `command` under the guard, for a normal or a frozen (PyInstaller) install."""
    if getattr(sys, "frozen", False):
        return [sys.executable, "child-guard", "--parent", str(parent_pid), "--", *command]
    return [sys.executable, "-m", "ltm_desktop.gui.child_guard", "--parent", str(parent_pid), "--", *command]


def ltm_command(*args: str) -> list[str]:
    """The argv of an `ltm` subcommand run by this same installation."""
    if getattr(sys, "frozen", False):
        return [sys.executable, *args]
    return [sys.executable, "-m", "ltm_desktop", *args]


def _set_parent_death_signal() -> bool:
    import ctypes

    try:
        libc = ctypes.CDLL(None, use_errno=True)
        return libc.prctl(PR_SET_PDEATHSIG, signal.SIGTERM, 0, 0, 0) == 0
    except (OSError, AttributeError):
        return False


def is_parent_alive(parent_pid: int) -> bool:
    """True while the process that started us still runs."""
    if os.name == "nt":
        import ctypes

        synchronize, wait_timeout = 0x00100000, 0x102
        handle = ctypes.windll.kernel32.OpenProcess(synchronize, False, parent_pid)
        if not handle:
            return False
        try:
            return ctypes.windll.kernel32.WaitForSingleObject(handle, 0) == wait_timeout
        finally:
            ctypes.windll.kernel32.CloseHandle(handle)
    # On POSIX an orphan is re-parented (to init or a subreaper), so a changed ppid means the parent died.
    return os.getppid() == parent_pid


def _run_watched(command: list[str], parent_pid: int) -> int:
    """Portable fallback: run the command as our child and end it when the parent disappears."""
    child = subprocess.Popen(command)

    def forward(signum, _frame) -> None:
        child.terminate()

    for sig in (signal.SIGTERM, signal.SIGINT):
        signal.signal(sig, forward)

    def watch() -> None:
        while child.poll() is None:
            if not is_parent_alive(parent_pid):
                child.terminate()
                try:
                    child.wait(10)
                except subprocess.TimeoutExpired:
                    child.kill()
                return
            time.sleep(PARENT_POLL_SECONDS)

    threading.Thread(target=watch, daemon=True).start()
    return child.wait()


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point: `child_guard --parent PID -- COMMAND...`."""
    argv = list(sys.argv[1:] if argv is None else argv)
    if len(argv) < 4 or argv[0] != "--parent" or argv[2] != "--":
        print("usage: child_guard --parent PID -- COMMAND...", file=sys.stderr)
        return 2
    parent_pid, command = int(argv[1]), argv[3:]
    executable = command[0] if os.path.isabs(command[0]) else shutil.which(command[0])
    if executable is None or not os.access(executable, os.X_OK):
        print(f"ltm: cannot start {command[0]!r}: not found", file=sys.stderr)
        return 127
    if sys.platform.startswith("linux") and _set_parent_death_signal():
        # The parent may have died between fork and prctl; then nobody would ever signal us.
        if not is_parent_alive(parent_pid):
            return 0
        sys.stdout.flush()
        sys.stderr.flush()
        os.execv(executable, [executable, *command[1:]])
    return _run_watched([executable, *command[1:]], parent_pid)


if __name__ == "__main__":
    raise SystemExit(main())
