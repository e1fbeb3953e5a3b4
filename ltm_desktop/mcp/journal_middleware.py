"""Journals every tools/call at the MCP layer, so calls the SDK rejects (bad arguments, unknown tools) and
the memory tools are recorded too, with no code in each tool."""

from __future__ import annotations

import re
import time
from collections.abc import Callable, Mapping
from typing import Any

from mcp.server.context import CallNext, HandlerResult, ServerRequestContext
from mcp.shared.exceptions import MCPError
from mcp.types import CallToolResult
from pydantic import ValidationError

from ltm_desktop.mcp.identity import current_caller
from ltm_desktop.mcp.journal_writer import JournalWriter

# Arguments that carry what the user asked; recorded only when query logging is on.
QUERY_ARGUMENTS = ("query", "path_or_id", "id")
_PYDANTIC_INPUT = re.compile(r"input_value=.*?, (?=input_type=)", re.DOTALL)


def _outcome(result: HandlerResult) -> tuple[bool, str | None]:
    if isinstance(result, CallToolResult):
        is_error, content = bool(result.is_error), result.content
    elif isinstance(result, Mapping):
        is_error, content = result.get("isError") is True, result.get("content") or []
    else:
        return True, None
    if not is_error:
        return True, None
    texts = [getattr(c, "text", None) or (c.get("text") if isinstance(c, Mapping) else None) for c in content]
    return False, " ".join(t for t in texts if t) or "error"


def _redact(error: str | None, arguments: Any) -> str | None:
    """Remove what the user typed from an error message (errors echo arguments back to the model)."""
    if error is None:
        return None
    error = _PYDANTIC_INPUT.sub("input_value=…, ", error)
    if isinstance(arguments, Mapping):
        typed = [v for v in arguments.values() if isinstance(v, str) and len(v.strip()) > 1]
        for value in sorted(typed, key=len, reverse=True):
            error = error.replace(value, "…")
    return error


def _query_of(arguments: Any) -> str | None:
    if not isinstance(arguments, Mapping):
        return None
    for key in QUERY_ARGUMENTS:
        value = arguments.get(key)
        if value is not None:
            return str(value)
    return None


class JournalMiddleware:
    """Server middleware: time each tool call, then hand it to the journal writer (off the event loop)."""

    def __init__(self, journal: Callable[[], Any]) -> None:
        self._journal = journal  # a callable, so a journal that is unavailable now is found again later
        self.writer = JournalWriter(self._record)

    async def __call__(self, ctx: ServerRequestContext[Any, Any], call_next: CallNext) -> HandlerResult:
        if ctx.method != "tools/call":
            return await call_next(ctx)
        params = ctx.params or {}
        tool = str(params.get("name") or "?")
        caller = current_caller()
        started = time.perf_counter()
        ok, error = False, "error"
        try:
            result = await call_next(ctx)
            ok, error = _outcome(result)
            return result
        except MCPError as e:
            error = e.error.message
            raise
        except ValidationError:
            error = "invalid request parameters"
            raise
        finally:
            elapsed_ms = (time.perf_counter() - started) * 1000
            self.writer.submit(tool, caller, elapsed_ms, ok, error, params.get("arguments"))

    def _record(self, tool: str, caller: Any, elapsed_ms: float, ok: bool, error: str | None, arguments: Any) -> None:
        journal = self._journal()
        if not journal.log_queries:
            error = _redact(error, arguments)
        journal.record(tool, caller, elapsed_ms, ok, error, _query_of(arguments))


def flush_journal(server: Any, timeout: float = 10.0) -> bool:
    """Wait until the server's journal writer has written every call so far (tests, shutdown)."""
    return all(m.writer.flush(timeout) for m in server.middleware if isinstance(m, JournalMiddleware))
