"""Who is calling: a verified HTTP token names its client; stdio and in-memory callers are the local owner."""

from __future__ import annotations

from mcp.server.auth.middleware.auth_context import get_access_token

from ltm_desktop.core.models import Caller

STDIO_OWNER = Caller(client="local-owner", transport="stdio", is_owner=True)


def current_caller() -> Caller:
    """The caller of the tool call in progress (never taken from a tool parameter)."""
    token = get_access_token()
    if token is None:
        # Only stdio and in-memory sessions get here: the HTTP app rejects unauthenticated requests.
        return STDIO_OWNER
    return Caller(client=token.client_id, transport="http", is_owner=False)
