"""The background services of `ltm run --headless` as child processes, each restarted with backoff if it dies.

Children, not threads: OCR and embedding never share the GIL with the HTTP server, the worker's lower CPU priority
stays its own, uvicorn keeps its own signal handling, and a crash in a PDF library or a request cannot take the
service down.
"""

from __future__ import annotations

import logging
import subprocess
import sys
import threading
import time

log = logging.getLogger(__name__)


def ltm_command(*args: str) -> list[str]:
    """How to start an `ltm` subcommand from this interpreter (or from the frozen app)."""
    if getattr(sys, "frozen", False):
        return [sys.executable, *args]
    return [sys.executable, "-m", "ltm_desktop", *args]


def supervise_child(
    command: list[str], what: str, stop: threading.Event, grace: float, max_backoff: float = 60.0
) -> None:
    """Keep one child running until stop is set; then SIGTERM it and wait up to `grace` seconds."""
    backoff = 1.0
    while not stop.is_set():
        started = time.monotonic()
        proc = subprocess.Popen(command, stdin=subprocess.DEVNULL)
        while proc.poll() is None and not stop.wait(0.5):
            pass
        if stop.is_set():
            proc.terminate()
            try:
                proc.wait(timeout=grace)
            except subprocess.TimeoutExpired:
                proc.kill()
                proc.wait()
            return
        if time.monotonic() - started > max_backoff:
            backoff = 1.0  # it ran fine for a while: a fresh failure, not a crash loop
        log.warning("%s exited with code %s; restarting in %.0f s", what, proc.returncode, backoff)
        print(f"ltm: {what} exited ({proc.returncode}); restarting in {backoff:.0f} s", file=sys.stderr, flush=True)
        if stop.wait(backoff):
            return
        backoff = min(backoff * 2, max_backoff)


def start_supervised(command: list[str], what: str, stop: threading.Event, grace: float) -> threading.Thread:
    """Supervise a child on a daemon thread; join the thread after setting stop."""
    thread = threading.Thread(
        target=supervise_child, args=(command, what, stop, grace), name=f"ltm-supervisor-{command[-1]}", daemon=True
    )
    thread.start()
    return thread
