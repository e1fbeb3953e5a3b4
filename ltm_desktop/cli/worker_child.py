"""The ingestion worker as a child process of `ltm run --headless`, restarted with backoff if it dies.

A child, not a thread: OCR and embedding then never share the GIL with the HTTP server, the worker's
lower CPU priority stays its own, and a crash in a PDF library cannot take the service down.
"""

from __future__ import annotations

import logging
import subprocess
import sys
import threading
import time

log = logging.getLogger(__name__)


def worker_command() -> list[str]:
    """How to start `ltm worker` from this interpreter (or from the frozen app)."""
    if getattr(sys, "frozen", False):
        return [sys.executable, "worker"]
    return [sys.executable, "-m", "ltm_desktop", "worker"]


def supervise_worker(stop: threading.Event, max_backoff: float = 60.0) -> None:
    """Keep one worker running until stop is set; then ask it to finish (SIGTERM) and wait for it."""
    backoff = 1.0
    while not stop.is_set():
        started = time.monotonic()
        proc = subprocess.Popen(worker_command(), stdin=subprocess.DEVNULL)
        while proc.poll() is None and not stop.wait(0.5):
            pass
        if stop.is_set():
            proc.terminate()
            try:
                proc.wait(timeout=60)
            except subprocess.TimeoutExpired:
                proc.kill()
                proc.wait()
            return
        if time.monotonic() - started > max_backoff:
            backoff = 1.0  # it ran fine for a while: this is a fresh failure, not a crash loop
        log.warning("the ingestion worker exited with code %s; restarting in %.0f s", proc.returncode, backoff)
        print(f"ltm: worker exited ({proc.returncode}); restarting in {backoff:.0f} s", file=sys.stderr, flush=True)
        if stop.wait(backoff):
            return
        backoff = min(backoff * 2, max_backoff)


def start_worker_thread(stop: threading.Event) -> threading.Thread:
    thread = threading.Thread(target=supervise_worker, args=(stop,), name="ltm-worker-supervisor", daemon=True)
    thread.start()
    return thread
