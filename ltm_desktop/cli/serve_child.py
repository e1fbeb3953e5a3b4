"""The HTTP MCP server as a child process of `ltm run --headless`, restarted with backoff if it dies.

A child, not a thread: a crash in a request cannot take the service down, and uvicorn keeps its own
signal handling (SIGTERM -> graceful shutdown).
"""

from __future__ import annotations

import logging
import subprocess
import sys
import threading
import time

log = logging.getLogger(__name__)


def http_server_command() -> list[str]:
    """How to start `ltm serve --http` from this interpreter (or from the frozen app)."""
    if getattr(sys, "frozen", False):
        return [sys.executable, "serve", "--http"]
    return [sys.executable, "-m", "ltm_desktop", "serve", "--http"]


def supervise_child(command: list[str], what: str, stop: threading.Event, max_backoff: float = 60.0) -> None:
    """Keep one child running until stop is set; then SIGTERM it and wait. Restarts back off 1 s .. max."""
    backoff = 1.0
    while not stop.is_set():
        started = time.monotonic()
        proc = subprocess.Popen(command, stdin=subprocess.DEVNULL)
        while proc.poll() is None and not stop.wait(0.5):
            pass
        if stop.is_set():
            proc.terminate()
            try:
                proc.wait(timeout=30)
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


def start_http_server_thread(stop: threading.Event) -> threading.Thread:
    thread = threading.Thread(
        target=supervise_child, args=(http_server_command(), "the MCP HTTP server", stop),
        name="ltm-http-supervisor", daemon=True,
    )
    thread.start()
    return thread
