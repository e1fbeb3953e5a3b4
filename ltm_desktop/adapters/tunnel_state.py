"""The files through which a running tunnel talks to the rest of LTM Desktop, and its detached process.

HOME/run/tunnel.json exists exactly while a tunnel has a public URL (the agreed contract: provider,
public_url, public_host, pid, started_at, json_response); the HTTP server re-reads it to allow that Host.
HOME/run/tunnel-state.json says what the supervisor is doing (starting, running, restarting, failed).
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
from pathlib import Path
from typing import Any

from ltm_desktop.adapters.client_configs.config_file import atomic_write


class TunnelStateFiles:
    """Atomic reads and writes of run/tunnel.json and run/tunnel-state.json."""

    def __init__(self, run_dir: Path) -> None:
        self.run_dir = run_dir
        self.tunnel_file = run_dir / "tunnel.json"
        self.state_file = run_dir / "tunnel-state.json"
        self.log_file = run_dir / "tunnel.log"

    def _write(self, path: Path, record: dict[str, Any]) -> None:
        atomic_write(path, (json.dumps(record, indent=2) + "\n").encode())
        path.chmod(0o644)

    @staticmethod
    def _read(path: Path) -> dict[str, Any] | None:
        try:
            data = json.loads(path.read_text(encoding="utf-8"))
        except (OSError, ValueError):
            return None
        return data if isinstance(data, dict) else None

    def publish(self, record: dict[str, Any]) -> None:
        self._write(self.tunnel_file, record)

    def unpublish(self) -> None:
        self.tunnel_file.unlink(missing_ok=True)

    def published(self) -> dict[str, Any] | None:
        return self._read(self.tunnel_file)

    def set_status(self, record: dict[str, Any]) -> None:
        self._write(self.state_file, record)

    def status(self) -> dict[str, Any] | None:
        return self._read(self.state_file)

    def clear_status(self) -> None:
        self.state_file.unlink(missing_ok=True)


def spawn_detached(argv: list[str], log_path: Path, env: dict[str, str] | None = None) -> int:
    """Start argv in the background, outliving this process, with output appended to log_path; its pid."""
    log_path.parent.mkdir(parents=True, exist_ok=True)
    kwargs: dict[str, Any] = {}
    if os.name == "nt":
        kwargs["creationflags"] = subprocess.CREATE_NEW_PROCESS_GROUP | subprocess.DETACHED_PROCESS
    else:
        kwargs["start_new_session"] = True
    with open(log_path, "ab") as log:
        proc = subprocess.Popen(argv, stdin=subprocess.DEVNULL, stdout=log, stderr=log, env=env, **kwargs)
    return proc.pid


def pid_alive(pid: int) -> bool:
    """True while a process with this pid exists (and is not a zombie we could reap)."""
    if pid <= 0:
        return False
    if os.name == "nt":
        out = subprocess.run(["tasklist", "/FI", f"PID eq {pid}", "/NH"], capture_output=True, text=True, check=False)
        return str(pid) in out.stdout
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    try:
        # A child of ours that exited stays a zombie until reaped; reap it so it stops counting as alive.
        done, _ = os.waitpid(pid, os.WNOHANG)
        return done == 0
    except ChildProcessError:
        return _not_zombie(pid)


def _not_zombie(pid: int) -> bool:
    try:
        with open(f"/proc/{pid}/stat", encoding="ascii") as f:
            return f.read().split(")")[-1].split()[0] != "Z"
    except OSError:
        return True


def terminate(pid: int, hard: bool = False) -> None:
    """Ask a process to stop (SIGTERM), or kill it."""
    try:
        if os.name == "nt":
            subprocess.run(["taskkill", "/PID", str(pid), "/T"] + (["/F"] if hard else []), capture_output=True,
                           check=False)
        else:
            os.kill(pid, signal.SIGKILL if hard else signal.SIGTERM)
    except (ProcessLookupError, PermissionError):
        pass


def self_command(executable: str = sys.executable, frozen: bool = bool(getattr(sys, "frozen", False))) -> list[str]:
    """How to run an `ltm` subcommand with this installation, by absolute path."""
    return [executable] if frozen else [executable, "-m", "ltm_desktop"]
