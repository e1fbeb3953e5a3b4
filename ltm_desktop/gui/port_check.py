"""Before starting the HTTP server: is its port free, already served by LTM, or taken by another program?"""

from __future__ import annotations

import os
import socket
import urllib.error
import urllib.request
from typing import Literal

PortState = Literal["free", "ltm", "busy"]


def probe_port(host: str, port: int, timeout: float = 1.0) -> PortState:
    """'free' when we can bind it; 'ltm' when an LTM server answers /healthz there; else 'busy'."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        if os.name != "nt":  # as the server does; otherwise a port in TIME_WAIT would look taken
            s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        try:
            s.bind((host, port))
            return "free"
        except OSError:
            pass
    try:
        with urllib.request.urlopen(f"http://{host}:{port}/healthz", timeout=timeout) as response:
            body = response.read(64).decode("utf-8", errors="replace").strip().lower()
            return "ltm" if response.status == 200 and body.startswith("ok") else "busy"
    except (urllib.error.URLError, OSError, ValueError):
        return "busy"


def port_problem(host: str, port: int) -> str:
    return (
        f"port {port} on {host} is used by another program, so the MCP server for your AI apps cannot start: "
        "choose another port in Settings → Server (or close that program)"
    )
