"""Running the real `ltm serve --http` as a child process for tests and the benchmark."""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def start_http_server(env: dict[str, str], port: int, log_dir: Path, *extra: str, verbose: bool = True) -> subprocess.Popen:
    """`python -m ltm_desktop [-v] serve --http --port PORT`, stdout/stderr captured to files; waits for /healthz."""
    log_dir.mkdir(parents=True, exist_ok=True)
    out = open(log_dir / "stdout.txt", "wb")  # noqa: SIM115 - closed with the process
    err = open(log_dir / "stderr.txt", "wb")  # noqa: SIM115
    argv = [sys.executable, "-m", "ltm_desktop", *(["-v"] if verbose else []), "serve", "--http", "--port", str(port), *extra]
    proc = subprocess.Popen(argv, env=env, cwd=REPO, stdout=out, stderr=err)
    proc._ltm_files = (out, err)  # type: ignore[attr-defined]
    deadline = time.monotonic() + 90
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            raise RuntimeError(f"server exited {proc.returncode}: {(log_dir / 'stderr.txt').read_text()[-3000:]}")
        try:
            with urllib.request.urlopen(f"http://127.0.0.1:{port}/healthz", timeout=2) as r:
                if r.status == 200:
                    return proc
        except OSError:
            time.sleep(0.2)
    stop_server(proc)
    raise RuntimeError("server did not become healthy in 90 s")


def stop_server(proc: subprocess.Popen) -> int:
    if proc.poll() is None:
        proc.terminate()
        try:
            proc.wait(20)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait(10)
    for f in getattr(proc, "_ltm_files", ()):
        f.close()
    return proc.returncode


def child_env(home: Path, database_url: str, models_dir: Path, **extra: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("LTM_")}
    env.update(LTM_HOME=str(home), LTM_DATABASE_URL=database_url, LTM_MODELS_DIR=str(models_dir), **extra)
    return env
