"""Tunnel binaries (cloudflared, tailscale, ngrok) as supervised child processes, and how each reports its URL.

Each child runs from an argv list (never a shell) in its own process group, its output is drained
continuously into a log file (a full pipe would block it), and its public URL is read from the provider's
local API: cloudflared's metrics /quicktunnel, `tailscale status --json`, ngrok's 127.0.0.1:4040 agent API.
"""

from __future__ import annotations

import collections
import json
import os
import re
import shutil
import signal
import socket
import subprocess
import sys
import threading
import urllib.error
import urllib.request
from collections.abc import Callable, Sequence
from pathlib import Path

from ltm_desktop.core.errors import KnownError

BINARIES = {"cloudflare": "cloudflared", "tailscale": "tailscale", "ngrok": "ngrok"}
# Quick tunnels cannot carry server-sent events, so the MCP server must answer with plain JSON through them.
JSON_RESPONSE = {"cloudflare": True, "tailscale": False, "ngrok": False}

INSTALL_HINTS = {
    "cloudflare": {
        "darwin": "brew install cloudflared",
        "windows": "winget install --id Cloudflare.cloudflared",
        "linux": "install the cloudflared .deb/.rpm from Cloudflare's downloads page (or your distribution's package)",
    },
    "tailscale": {
        "darwin": "install Tailscale from tailscale.com/download (or `brew install tailscale`), log in, enable Funnel",
        "windows": "install Tailscale from tailscale.com/download, log in, and enable Funnel for this device",
        "linux": "curl -fsSL https://tailscale.com/install.sh | sh, then `sudo tailscale up` and enable Funnel",
    },
    "ngrok": {
        "darwin": "brew install ngrok, then `ngrok config add-authtoken <your token>`",
        "windows": "winget install ngrok.ngrok, then `ngrok config add-authtoken <your token>`",
        "linux": "install ngrok from ngrok.com/download, then `ngrok config add-authtoken <your token>`",
    },
}

CLOUDFLARE_URL = re.compile(r"https://[a-z0-9-]+\.trycloudflare\.com")
TAILSCALE_ERRORS = ("Funnel not available", '"funnel" node attribute not set', "not logged in", "Logged out")


class TunnelBinaryMissing(KnownError):
    """The provider's program is not installed (or not where the settings say)."""


def host_system() -> str:
    return "darwin" if sys.platform == "darwin" else "windows" if os.name == "nt" else "linux"


def find_binary(provider: str, extra_dirs: Sequence[Path] = (), path_env: str | None = None) -> Path:
    """The provider's executable: first in extra_dirs (bundled or configured), then on PATH."""
    if provider not in BINARIES:
        raise KnownError(f"unknown tunnel provider {provider!r}; choose one of: {', '.join(BINARIES)}")
    name = BINARIES[provider] + (".exe" if os.name == "nt" else "")
    for folder in extra_dirs:
        candidate = Path(folder) / name
        if candidate.is_file() and os.access(candidate, os.X_OK):
            return candidate
    found = shutil.which(name, path=path_env)
    if found:
        return Path(found)
    hint = INSTALL_HINTS[provider][host_system()]
    raise TunnelBinaryMissing(f"{BINARIES[provider]} is not installed (not found on PATH"
                              f"{' or in ' + ', '.join(map(str, extra_dirs)) if extra_dirs else ''}). Install it: {hint}")


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def http_json(url: str, timeout: float = 2.0) -> object | None:
    """GET url and parse JSON; None when nothing answers yet."""
    try:
        with urllib.request.urlopen(url, timeout=timeout) as r:
            return json.loads(r.read().decode("utf-8"))
    except (urllib.error.URLError, OSError, ValueError):
        return None


class TunnelProcess:
    """One run of a tunnel binary: start, drain output, read the public URL, stop."""

    def __init__(self, argv: Sequence[str], log_path: Path, read_url: Callable[[TunnelProcess], str | None]) -> None:
        self.argv = list(argv)
        self.log_path = log_path
        self._read_url = read_url
        self._tail: collections.deque[str] = collections.deque(maxlen=40)
        self._proc: subprocess.Popen[bytes] | None = None
        self._drain: threading.Thread | None = None

    @property
    def pid(self) -> int | None:
        return self._proc.pid if self._proc else None

    def start(self) -> None:
        """Spawn the binary in its own process group; raise KnownError if it cannot be executed."""
        self.log_path.parent.mkdir(parents=True, exist_ok=True)
        kwargs: dict = {}
        if os.name == "nt":
            kwargs["creationflags"] = subprocess.CREATE_NEW_PROCESS_GROUP
        else:
            kwargs["start_new_session"] = True
        try:
            self._proc = subprocess.Popen(self.argv, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                                          stderr=subprocess.STDOUT, **kwargs)
        except OSError as e:
            raise KnownError(f"cannot start {self.argv[0]}: {e.strerror or e}") from None
        self._drain = threading.Thread(target=self._drain_output, name="tunnel-output", daemon=True)
        self._drain.start()

    def _drain_output(self) -> None:
        assert self._proc is not None and self._proc.stdout is not None
        with open(self.log_path, "a", encoding="utf-8", errors="replace") as log:
            for raw in self._proc.stdout:
                line = raw.decode("utf-8", "replace").rstrip()
                self._tail.append(line)
                log.write(line + "\n")
                log.flush()

    def exit_code(self) -> int | None:
        return None if self._proc is None else self._proc.poll()

    def output(self) -> list[str]:
        """The last lines the binary printed."""
        return list(self._tail)

    def output_tail(self, lines: int = 3) -> str:
        return " | ".join(ln for ln in self.output()[-lines:] if ln.strip())

    def public_url(self) -> str | None:
        if self._proc is None:
            return None
        return self._read_url(self)

    def stop(self, grace: float = 5.0) -> None:
        """Ask the binary to quit (SIGTERM / CTRL_BREAK to its group), then kill it after grace seconds."""
        proc = self._proc
        if proc is None or proc.poll() is not None:
            self._join()
            return
        try:
            if os.name == "nt":
                proc.send_signal(signal.CTRL_BREAK_EVENT)
            else:
                os.killpg(proc.pid, signal.SIGTERM)
            proc.wait(grace)
        except (subprocess.TimeoutExpired, ProcessLookupError, PermissionError, OSError):
            try:
                if os.name == "nt":
                    proc.kill()
                else:
                    os.killpg(proc.pid, signal.SIGKILL)
            except (ProcessLookupError, OSError):
                pass
            proc.wait()
        self._join()

    def _join(self) -> None:
        if self._drain is not None:
            self._drain.join(timeout=2)
        if self._proc is not None and self._proc.stdout is not None:
            self._proc.stdout.close()


# ---- providers -----------------------------------------------------------------------------------------


def cloudflared_quick_tunnel(binary: Path, port: int, log_path: Path) -> TunnelProcess:
    """`cloudflared tunnel --url http://127.0.0.1:PORT` with a metrics port we choose, to read /quicktunnel."""
    metrics = free_port()
    argv = [str(binary), "tunnel", "--no-autoupdate", "--metrics", f"127.0.0.1:{metrics}",
            "--url", f"http://127.0.0.1:{port}"]

    def read_url(proc: TunnelProcess) -> str | None:
        data = http_json(f"http://127.0.0.1:{metrics}/quicktunnel")
        host = data.get("hostname") if isinstance(data, dict) else None
        if host:
            return f"https://{host}"
        # Older cloudflared without /quicktunnel: the URL is in its log banner.
        found = [m.group(0) for ln in proc.output() for m in CLOUDFLARE_URL.finditer(ln)]
        return found[-1] if found else None

    return TunnelProcess(argv, log_path, read_url)


def tailscale_funnel(binary: Path, port: int, log_path: Path) -> TunnelProcess:
    """Foreground `tailscale funnel PORT`: Funnel switches itself off when this process exits."""
    argv = [str(binary), "funnel", str(port)]

    def read_url(proc: TunnelProcess) -> str | None:
        if not any("https://" in ln for ln in proc.output()):
            return None  # not serving yet (or refused: the output says why)
        try:
            out = subprocess.run([str(binary), "status", "--json"], capture_output=True, timeout=10, check=False)
            name = json.loads(out.stdout or b"{}").get("Self", {}).get("DNSName", "")
        except (OSError, subprocess.TimeoutExpired, ValueError, AttributeError):
            return None
        return f"https://{name.rstrip('.')}" if name else None

    return TunnelProcess(argv, log_path, read_url)


def ngrok_tunnel(binary: Path, port: int, log_path: Path) -> TunnelProcess:
    """`ngrok http 127.0.0.1:PORT`, URL from the local agent API (or its JSON log)."""
    argv = [str(binary), "http", f"127.0.0.1:{port}", "--log", "stdout", "--log-format", "json"]

    def read_url(proc: TunnelProcess) -> str | None:
        data = http_json("http://127.0.0.1:4040/api/tunnels")
        if isinstance(data, dict):
            for t in data.get("tunnels", []):
                url = t.get("public_url", "")
                if url.startswith("https://"):
                    return url
        for ln in reversed(proc.output()):
            try:
                record = json.loads(ln)
            except ValueError:
                continue
            url = record.get("url", "") if isinstance(record, dict) else ""
            if url.startswith("https://"):
                return url
        return None

    return TunnelProcess(argv, log_path, read_url)


PROVIDERS = {"cloudflare": cloudflared_quick_tunnel, "tailscale": tailscale_funnel, "ngrok": ngrok_tunnel}


def runner_factory(provider: str, binary: Path, port: int, log_path: Path) -> Callable[[], TunnelProcess]:
    """A function that makes a fresh TunnelProcess for each (re)start."""
    make = PROVIDERS[provider]
    return lambda: make(binary, port, log_path)


def known_failure(provider: str, lines: Sequence[str]) -> str | None:
    """A provider error worth showing as is (Funnel not enabled, not logged in, missing authtoken)."""
    needles = {"tailscale": TAILSCALE_ERRORS,
               "ngrok": ("ERR_NGROK_4018", "authentication failed", "authtoken"),
               "cloudflare": ("config.yaml", "failed to request quick Tunnel")}[provider]
    for ln in reversed(lines):
        if any(n.lower() in ln.lower() for n in needles):
            return ln.strip()
    return None
