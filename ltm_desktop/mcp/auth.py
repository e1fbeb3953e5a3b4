"""Bearer-token auth for the HTTP transport: the SDK's bearer middleware with our hashed tokens behind it,
plus the token-in-path form (/t/<token>/mcp) for connector UIs that have no header field."""

from __future__ import annotations

import logging
import re
from collections.abc import Callable
from typing import Any

import anyio
from mcp.server.auth.provider import AccessToken, TokenVerifier
from starlette.types import ASGIApp, Receive, Scope, Send

from ltm_desktop.core.errors import KnownError
from ltm_desktop.mcp.server import SCOPE

log = logging.getLogger(__name__)
_PATH_TOKEN = re.compile(r"^/t/([^/]+)(/mcp/?)$")


class HashedTokenVerifier(TokenVerifier):
    """Checks a bearer string against the hashed tokens (TokenService.verify), off the event loop."""

    def __init__(self, tokens: Callable[[], Any]) -> None:
        self._tokens = tokens  # a callable: the token store may be unavailable now and back later

    async def verify_token(self, token: str) -> AccessToken | None:
        try:
            record = await anyio.to_thread.run_sync(lambda: self._tokens().verify(token))
        except KnownError as e:
            log.warning("cannot check a bearer token: %s", e)  # never the token itself
            return None
        if record is None:
            log.info("refused a request with an unknown or revoked token")
            return None
        # The SDK keeps this object for the request; it never needs the clear token, so it doesn't get it.
        return AccessToken(token=f"token-id:{record.token_id}", client_id=record.name, scopes=[SCOPE])


class PathTokenMiddleware:
    """/t/<token>/mcp -> /mcp with `Authorization: Bearer <token>`, so one bearer check serves both forms."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "http":
            m = _PATH_TOKEN.match(scope.get("path", ""))
            if m:
                token = m.group(1)
                headers = [(k, v) for k, v in scope.get("headers", []) if k.lower() != b"authorization"]
                headers.append((b"authorization", b"Bearer " + token.encode("latin-1", "replace")))
                scope = dict(scope, path="/mcp", raw_path=b"/mcp", headers=headers)
        await self.app(scope, receive, send)
