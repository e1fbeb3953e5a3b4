"""Errors at the MCP edge: what a person or model can act on becomes a ToolError with the fix spelled out."""

from __future__ import annotations

import contextlib
import logging
from collections.abc import Iterator

from mcp.server.mcpserver.exceptions import ToolError

from ltm_desktop.core.errors import KnownError

log = logging.getLogger(__name__)


@contextlib.contextmanager
def tool_errors(tool: str) -> Iterator[None]:
    """Translate KnownError into ToolError; log anything else with its traceback and say where to look."""
    try:
        yield
    except ToolError:
        raise
    except KnownError as e:
        raise ToolError(str(e)) from e
    except Exception as e:  # the edge of a tool call: a bug must not take the server down
        log.exception("tool %s failed unexpectedly", tool)
        raise ToolError(
            f"{tool} failed with an internal error ({type(e).__name__}); the LTM Desktop server log has the details"
        ) from e
