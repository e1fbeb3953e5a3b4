"""The HTTP app: /healthz (open, says only "ok"), and /mcp (streamable HTTP) behind host checks and bearer tokens.

Layers, outermost first: HostGuard (421/403) -> /healthz -> PathTokenMiddleware -> the SDK's app
(bearer auth 401, Content-Type 400, body limit 413, JSON-RPC).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from mcp.server import MCPServer
from mcp.server.transport_security import TransportSecuritySettings
from starlette.responses import PlainTextResponse
from starlette.types import ASGIApp, Receive, Scope, Send

from ltm_desktop.mcp.allowed_hosts import AllowedHosts, HostGuard
from ltm_desktop.mcp.auth import HashedTokenVerifier, PathTokenMiddleware
from ltm_desktop.mcp.server import build_server

# Tool arguments are small, but memory session_save carries long texts (JSON-escaped): 4 MiB covers them.
MAX_BODY_BYTES = 4 * 1024 * 1024


def tunnel_file(home: Path) -> Path:
    """Where a running `ltm tunnel` publishes its public host."""
    return home / "run" / "tunnel.json"


class HealthRoute:
    """GET /healthz -> 200 "ok" with no auth and no detail (a supervisor's liveness probe)."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "http" and scope.get("path") == "/healthz":
            await PlainTextResponse("ok")(scope, receive, send)
            return
        await self.app(scope, receive, send)


def build_http_app(container: Any, *, json_response: bool = False, stateless: bool = True) -> tuple[ASGIApp, MCPServer]:
    """The ASGI app to serve, and the MCPServer inside it."""
    server = build_server(container, token_verifier=HashedTokenVerifier(lambda: container.server_tokens))
    sdk_app = server.streamable_http_app(
        streamable_http_path="/mcp",
        json_response=json_response,
        # Stateless: a client keeps working across a server restart (the tray restarts it), and nothing
        # per-session piles up; the 2026-07-28 protocol is sessionless anyway.
        stateless_http=stateless,
        max_request_body_size=MAX_BODY_BYTES,
        # Host and Origin are checked by HostGuard, outside, because the allowed set changes while we run
        # (a tunnel starts); the SDK's own list is fixed at startup. Content-Type is still checked here.
        transport_security=TransportSecuritySettings(enable_dns_rebinding_protection=False),
    )
    hosts = AllowedHosts(container.settings.public_host, tunnel_file(container.settings.home))
    return HostGuard(HealthRoute(PathTokenMiddleware(sdk_app)), hosts), server
