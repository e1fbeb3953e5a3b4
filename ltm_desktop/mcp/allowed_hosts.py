"""DNS-rebinding protection that follows a tunnel: the Host (and Origin) of every request must be ours.

Allowed: the loopback names on any port, the `public_host` setting, and the host a running tunnel wrote to
HOME/run/tunnel.json. That file is re-read when its mtime changes, so a tunnel started after the server
works without a restart, and a stopped tunnel's host stops working.
"""

from __future__ import annotations

import json
import logging
import os
import threading
from pathlib import Path
from urllib.parse import urlsplit

from starlette.datastructures import Headers
from starlette.responses import PlainTextResponse
from starlette.types import ASGIApp, Receive, Scope, Send

log = logging.getLogger(__name__)
LOOPBACK = frozenset({"127.0.0.1", "localhost", "::1"})


def host_name(value: str) -> str:
    """'Example.COM:443' -> 'example.com'; '[::1]:8322' -> '::1'; 'https://x.y/path' -> 'x.y'."""
    value = value.strip()
    if not value:
        return ""
    if "://" not in value:
        value = "//" + value
    try:
        return (urlsplit(value).hostname or "").lower()
    except ValueError:
        return ""


class AllowedHosts:
    """The host names this server answers to; the tunnel's is re-read whenever tunnel.json changes."""

    def __init__(self, public_host: str = "", tunnel_file: Path | None = None) -> None:
        self._static = set(LOOPBACK)
        if host_name(public_host):
            self._static.add(host_name(public_host))
        self._tunnel_file = tunnel_file
        self._tunnel_stamp: tuple[int, int] | None = None
        self._tunnel_host = ""
        self._lock = threading.Lock()

    def names(self) -> frozenset[str]:
        self._refresh_tunnel()
        return frozenset(self._static | ({self._tunnel_host} if self._tunnel_host else set()))

    def allows_host(self, header: str | None) -> bool:
        return bool(header) and host_name(header) in self.names()

    def allows_origin(self, header: str | None) -> bool:
        # No Origin: not a browser (or same-origin); a browser page elsewhere must not reach us.
        return not header or host_name(header) in self.names()

    def _refresh_tunnel(self) -> None:
        if self._tunnel_file is None:
            return
        try:
            st = os.stat(self._tunnel_file)
            stamp: tuple[int, int] | None = (st.st_mtime_ns, st.st_size)
        except OSError:
            stamp = None
        with self._lock:
            if stamp == self._tunnel_stamp:
                return
            self._tunnel_stamp = stamp
            self._tunnel_host = self._read_tunnel_host() if stamp else ""
            if self._tunnel_host:
                log.info("allowing the tunnel host %s", self._tunnel_host)

    def _read_tunnel_host(self) -> str:
        try:
            data = json.loads(self._tunnel_file.read_text(encoding="utf-8"))
        except (OSError, ValueError) as e:
            log.warning("ignoring %s: %s", self._tunnel_file, e)
            return ""
        return host_name(str(data.get("public_host") or "")) if isinstance(data, dict) else ""


class HostGuard:
    """ASGI middleware: 421 for a Host we don't serve, 403 for a foreign Origin (before auth, before routing)."""

    def __init__(self, app: ASGIApp, hosts: AllowedHosts) -> None:
        self.app = app
        self.hosts = hosts

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "http":
            headers = Headers(scope=scope)
            if not self.hosts.allows_host(headers.get("host")):
                log.warning("refused a request for Host %r: not this server (DNS rebinding?)", (headers.get("host") or "")[:100])
                await PlainTextResponse("Invalid Host header", status_code=421)(scope, receive, send)
                return
            if not self.hosts.allows_origin(headers.get("origin")):
                log.warning("refused a request from Origin %r: a web page elsewhere", (headers.get("origin") or "")[:100])
                await PlainTextResponse("Invalid Origin header", status_code=403)(scope, receive, send)
                return
        await self.app(scope, receive, send)
