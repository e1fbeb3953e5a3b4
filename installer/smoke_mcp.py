"""A search through the MCP SDK's real stdio client, launching the bundle the way an AI app does."""

from __future__ import annotations

import tempfile
import time
from dataclasses import dataclass

import anyio
from mcp import Client
from mcp.client.stdio import StdioServerParameters, stdio_client


@dataclass(frozen=True)
class Found:
    tools: tuple[str, ...]
    hits: dict[str, list[dict]]
    confidence: dict[str, str]
    first_answer_seconds: float


def search_over_stdio(argv: list[str], env: dict[str, str], queries: list[str], timeout: float = 240) -> Found:
    """Start argv (ending in `serve --stdio`), list the tools, run ltm_search for each query."""
    return anyio.run(_search, argv, env, queries, timeout)


async def _search(argv: list[str], env: dict[str, str], queries: list[str], timeout: float) -> Found:
    params = StdioServerParameters(command=argv[0], args=argv[1:], env=env)
    hits: dict[str, list[dict]] = {}
    confidence: dict[str, str] = {}
    first = 0.0
    started = time.monotonic()
    with tempfile.TemporaryFile("w+", encoding="utf-8", errors="replace") as errlog:
        try:
            with anyio.fail_after(timeout):
                async with Client(stdio_client(params, errlog=errlog)) as client:
                    tools = tuple(sorted(t.name for t in (await client.list_tools()).tools))
                    for query in queries:
                        result = await client.call_tool("ltm_search", {"query": query, "k": 3})
                        if result.is_error:
                            text = " ".join(getattr(c, "text", "") for c in result.content)
                            raise RuntimeError(f"ltm_search failed: {text}")
                        first = first or time.monotonic() - started
                        hits[query] = list(result.structured_content["hits"])
                        confidence[query] = result.structured_content["confidence"]
        except BaseException as e:
            errlog.seek(0)
            raise RuntimeError(f"{type(e).__name__}: {e}; server stderr: {errlog.read()[-2000:]}") from e
    return Found(tools, hits, confidence, first)
