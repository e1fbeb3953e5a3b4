"""The live check after connecting an AI app: a real MCP round trip through exactly what the app was told.

For stdio it launches the configured command with the configured args and env, as the app will; for HTTP it
calls the configured URL with the configured headers. It lists the tools and calls ltm_stats.
"""

from __future__ import annotations

import json
import re
import tempfile
import time
import urllib.error
import urllib.request
from urllib.parse import urlsplit

import anyio
import httpx2
from mcp import Client, MCPError
from mcp.client.stdio import StdioServerParameters, stdio_client
from mcp.client.streamable_http import streamable_http_client
from mcp.shared._httpx_utils import create_mcp_http_client

from ltm_desktop.services.client_endpoints import (
    Endpoint,
    HttpEndpoint,
    StdioLaunch,
    Verified,
    VerifyFailed,
    VerifyOutcome,
)

REQUIRED_TOOL = "ltm_stats"


def redact(text: str) -> str:
    """Hide tokens (bearer values and /t/<token>/ path segments) in anything we show."""
    text = re.sub(r"/t/[^/\s]+/", "/t/<token>/", text)
    text = re.sub(r"(?i)(bearer\s+)[^\s\"']+", r"\1<token>", text)
    return re.sub(r"ltm_[A-Za-z0-9_-]{20,}", "<token>", text)


def verify_endpoint(endpoint: Endpoint, timeout: float = 60.0) -> VerifyOutcome:
    """Run the round trip in a fresh event loop (callers are synchronous: CLI, GUI worker thread)."""
    return anyio.run(verify_endpoint_async, endpoint, timeout)


async def verify_endpoint_async(endpoint: Endpoint, timeout: float = 60.0) -> VerifyOutcome:
    if isinstance(endpoint, StdioLaunch):
        return await _verify_stdio(endpoint, timeout)
    return await _verify_http(endpoint, timeout)


async def _round_trip(client_factory, started: float) -> VerifyOutcome:
    async with client_factory() as client:
        listed = await client.list_tools()
        names = tuple(sorted(t.name for t in listed.tools))
        if REQUIRED_TOOL not in names:
            return VerifyFailed(f"the server answered but offers no {REQUIRED_TOOL} tool (it has: {', '.join(names)})",
                                "the configured command is not LTM Desktop's server; run `ltm connect` again")
        result = await client.call_tool(REQUIRED_TOOL, {})
        return Verified(names, _stats_line(result), round(time.monotonic() - started, 2))


def _stats_line(result) -> str:
    if result.is_error:
        text = " ".join(getattr(c, "text", "") for c in result.content).strip()
        return f"the server works; ltm_stats says: {redact(text)}"
    s = result.structured_content or {}
    return (f"{s.get('documents', '?')} documents, {s.get('chunks', '?')} chunks, "
            f"{s.get('failed_files', 0)} failed files")


async def _verify_stdio(launch: StdioLaunch, timeout: float) -> VerifyOutcome:
    params = StdioServerParameters(command=launch.command, args=list(launch.args), env=dict(launch.env))
    started = time.monotonic()
    with tempfile.TemporaryFile("w+", encoding="utf-8", errors="replace") as errlog:
        try:
            with anyio.fail_after(timeout):
                return await _round_trip(lambda: Client(stdio_client(params, errlog=errlog)), started)
        except TimeoutError:
            problem = f"the server started by `{launch.command}` did not answer within {timeout:.0f} s"
            return VerifyFailed(_with_stderr(problem, errlog), "run `ltm doctor` and check the log lines above")
        except FileNotFoundError:
            return VerifyFailed(f"the configured command {launch.command} does not exist",
                                "LTM Desktop moved or was reinstalled: run `ltm connect` again to update the path")
        except PermissionError:
            return VerifyFailed(f"the configured command {launch.command} cannot be executed (permission denied)",
                                "reinstall LTM Desktop, or make the file executable")
        except (MCPError, OSError, ExceptionGroup, anyio.BrokenResourceError, anyio.ClosedResourceError) as e:
            problem = f"the server started by `{launch.command}` failed: {_leaf(e)}"
            return VerifyFailed(_with_stderr(problem, errlog), "run `ltm doctor` for the fix, then `ltm connect` again")


def _with_stderr(problem: str, errlog) -> str:
    errlog.flush()
    errlog.seek(0)
    lines = [ln for ln in errlog.read().splitlines() if ln.strip()]
    tail = " | ".join(lines[-4:])
    return redact(f"{problem}; its last output: {tail}" if tail else problem)


def _leaf(error: BaseException) -> str:
    while isinstance(error, BaseExceptionGroup) and error.exceptions:
        error = error.exceptions[0]
    return redact(str(error) or type(error).__name__)


async def _verify_http(endpoint: HttpEndpoint, timeout: float) -> VerifyOutcome:
    shown = redact(endpoint.url)
    parts = urlsplit(endpoint.url)
    health = f"{parts.scheme}://{parts.netloc}/healthz"
    if not await anyio.to_thread.run_sync(_is_up, health, min(timeout, 5.0)):
        return VerifyFailed(f"nothing answers at {parts.netloc} (the HTTP server is not running)",
                            "start it with `ltm serve --http` or open the LTM Desktop app, then try again")
    started = time.monotonic()
    try:
        with anyio.fail_after(timeout):
            async with create_mcp_http_client(headers=dict(endpoint.headers)) as http:
                return await _round_trip(
                    lambda: Client(streamable_http_client(endpoint.url, http_client=http)), started
                )
    except TimeoutError:
        return VerifyFailed(f"{shown} did not answer within {timeout:.0f} s", "check `ltm doctor` and the server log")
    except (MCPError, OSError, ExceptionGroup, httpx2.HTTPError) as e:
        status = await anyio.to_thread.run_sync(_post_status, endpoint, min(timeout, 5.0))
        if status == 401:
            return VerifyFailed(f"{shown} rejected the token (401: revoked or never created here)",
                                "run `ltm connect CLIENT --transport http` again to issue a new token")
        if status == 421:
            return VerifyFailed(f"{shown} rejected the Host header (421)",
                                "use the 127.0.0.1 URL, or start a tunnel with `ltm tunnel start` for a public host")
        return VerifyFailed(f"{shown} failed: {_leaf(e)}" + (f" (HTTP {status})" if status else ""),
                            "check the server log (`ltm doctor`)")


def _is_up(url: str, timeout: float) -> bool:
    try:
        with urllib.request.urlopen(url, timeout=timeout) as r:
            return r.status == 200
    except (urllib.error.URLError, OSError, ValueError):
        return False


def _post_status(endpoint: HttpEndpoint, timeout: float) -> int | None:
    """The HTTP status a bare MCP POST gets: tells a rejected token (401) from other failures."""
    body = json.dumps({"jsonrpc": "2.0", "id": 1, "method": "tools/list", "params": {}}).encode()
    headers = {"Content-Type": "application/json", "Accept": "application/json, text/event-stream",
               "MCP-Protocol-Version": "2025-11-25", **endpoint.headers}
    req = urllib.request.Request(endpoint.url, data=body, headers=headers, method="POST")
    try:
        with urllib.request.urlopen(req, timeout=timeout) as r:
            return r.status
    except urllib.error.HTTPError as e:
        return e.code
    except (urllib.error.URLError, OSError):
        return None
