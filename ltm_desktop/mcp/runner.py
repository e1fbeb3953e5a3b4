"""Running the server: `ltm serve --stdio` and `ltm serve --http`."""

from __future__ import annotations

import errno
import logging
import socket
import sys
from typing import Any

from ltm_desktop.core.errors import KnownError

log = logging.getLogger(__name__)


def serve_stdio(container: Any) -> int:
    """Serve MCP over stdin/stdout until the client closes the pipe. Nothing but protocol goes to stdout."""
    import anyio

    from ltm_desktop.mcp.journal_middleware import flush_journal
    from ltm_desktop.mcp.server import build_server

    server = build_server(container)
    log.info("serving MCP over stdio (database and models are opened on first use)")
    anyio.run(server.run_stdio_async)
    flush_journal(server, timeout=5)
    return 0


def bind_socket(host: str, port: int) -> socket.socket:
    """Bind before anything else starts, so 'port in use' is one clear line, not a traceback."""
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    # proto=IPPROTO_TCP matters: asyncio sets TCP_NODELAY only on sockets that say they are TCP, and without it
    # every keep-alive response stalls ~40 ms (Nagle's algorithm against the client's delayed ACK).
    sock = socket.socket(family, socket.SOCK_STREAM, socket.IPPROTO_TCP)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    try:
        sock.bind((host, port))
    except OSError as e:
        sock.close()
        if e.errno == errno.EADDRINUSE:
            raise KnownError(
                f"port {port} on {host} is already in use (another `ltm serve --http`?): stop it, "
                "or pick another with --port / the http_port setting"
            ) from None
        raise KnownError(f"cannot listen on {host}:{port}: {e.strerror}") from None
    sock.listen(128)
    sock.set_inheritable(True)
    return sock


def preload(container: Any) -> None:
    """Load the models once, before the first request (a warm search reloads nothing)."""
    for name in ("embedder", "reranker"):
        try:
            getattr(container, name)
        except KnownError as e:
            log.warning("%s not loaded yet: %s (tools will say so until it is fixed)", name, e)


def token_count(container: Any) -> int | None:
    try:
        return len(container.server_tokens.list())
    except KnownError as e:
        log.warning("cannot read the tokens yet: %s", e)
        return None


def serve_http(container: Any, host: str, port: int, *, json_response: bool = False) -> int:
    """Serve streamable HTTP at http://host:port/mcp until interrupted."""
    import uvicorn

    from ltm_desktop.mcp.http_app import build_http_app
    from ltm_desktop.mcp.journal_middleware import flush_journal

    sock = bind_socket(host, port)
    if host not in ("127.0.0.1", "localhost", "::1"):
        log.warning("listening on %s, not only this computer: prefer 127.0.0.1 with `ltm tunnel`", host)
    app, server = build_http_app(container, json_response=json_response)
    preload(container)
    actual = sock.getsockname()[1]
    tokens = token_count(container)
    print(f"ltm: MCP server on http://{host}:{actual}/mcp (health: /healthz)", file=sys.stderr, flush=True)
    if tokens == 0:
        print("ltm: no tokens yet: every request is refused until you run `ltm token create NAME`",
              file=sys.stderr, flush=True)
    config = uvicorn.Config(
        app, host=host, port=actual, access_log=False, log_config=None, lifespan="on", server_header=False,
        proxy_headers=False, timeout_graceful_shutdown=5,
    )
    uvicorn.Server(config).run(sockets=[sock])
    flush_journal(server, timeout=5)
    return 0
