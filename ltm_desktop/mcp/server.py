"""build_server(container) -> MCPServer: the document tools, the memory tools and the journal, on any transport."""

from __future__ import annotations

from typing import Any

from mcp.server import MCPServer
from mcp.server.auth.provider import TokenVerifier

from ltm_desktop import __version__
from ltm_desktop.mcp import document_tools
from ltm_desktop.mcp.journal_middleware import JournalMiddleware

INSTRUCTIONS = (
    "LTM Desktop gives you search over the user's own documents, indexed privately on their computer. "
    "When a question may be answered by the user's files, call ltm_search first and read its `confidence`: "
    "answer and cite file and page when it is high; answer only what the passages support when it is medium; "
    "when it is low, say plainly that it does not appear to be in their documents rather than guessing. "
    "A passage about another person, place, item or period does not answer the question: `unmatched_terms` lists "
    "words found in none of the documents and `unmentioned_details` the year, month, unit, amount or street that "
    "none of the best passages mentions. "
    "Use ltm_get_document to read more of a hit, and ltm_stats to see what is indexed."
)
SCOPE = "ltm"


def build_server(container: Any, token_verifier: TokenVerifier | None = None) -> MCPServer:
    """The LTM Desktop MCP server; with a token verifier (HTTP), every request needs a valid bearer token."""
    auth_kwargs: dict[str, Any] = {}
    if token_verifier is not None:
        from mcp.server.auth.settings import AuthSettings
        from pydantic import AnyHttpUrl

        # Plain bearer tokens, no OAuth server: the issuer URL is required by the SDK but never published
        # (no resource_server_url, so no metadata routes are added).
        auth_kwargs = {
            "token_verifier": token_verifier,
            "auth": AuthSettings(
                issuer_url=AnyHttpUrl("http://127.0.0.1/ltm"), resource_server_url=None, required_scopes=[SCOPE]
            ),
        }
    server = MCPServer(
        "ltm-desktop",
        title="LTM Desktop",
        version=__version__,
        instructions=INSTRUCTIONS,
        middleware=[JournalMiddleware(lambda: container.journal)],
        log_level="WARNING",
        **auth_kwargs,
    )
    document_tools.register(server, container)
    from ltm_desktop.mcp import memory_tools

    memory_tools.register(server, container)
    return server
