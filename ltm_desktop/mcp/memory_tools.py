"""The memory tools and the memory://{namespace} resource: thin shells over the memory services.

The author of every write is the caller (its token's client over HTTP, the local owner over stdio); no
parameter can name it. No annotations future-import: the SDK builds the schemas from these hints at runtime.
"""

import json
from typing import Annotated, Any

from mcp.server import MCPServer
from mcp.types import ToolAnnotations
from pydantic import Field

from ltm_desktop.core.memory import MEMORY_TYPES
from ltm_desktop.mcp.identity import current_caller
from ltm_desktop.mcp.memory_schemas import (
    MemoryDetailOut,
    MemoryPageOut,
    RememberOut,
    SessionPageOut,
)
from ltm_desktop.mcp.tool_errors import tool_errors

READ_ONLY = ToolAnnotations(read_only_hint=True, destructive_hint=False, idempotent_hint=True, open_world_hint=False)
WRITE = ToolAnnotations(read_only_hint=False, destructive_hint=False, idempotent_hint=False, open_world_hint=False)
RESTORE = ToolAnnotations(read_only_hint=False, destructive_hint=False, idempotent_hint=True, open_world_hint=False)
FORGET = ToolAnnotations(read_only_hint=False, destructive_hint=True, idempotent_hint=True, open_world_hint=False)

TYPES = ", ".join(f"{k} ({v})" for k, v in MEMORY_TYPES.items() if k != "session")
REMEMBER_HELP = (
    "Save something worth knowing later, for you and the user's other AI apps: a fact, preference, decision, "
    "procedure... One idea per memory, in plain words. If a near-identical memory of yours exists, nothing is "
    "stored: you get its id with status 'duplicate' and a hint; call memory_update on it if this is a change. "
    "visibility 'private' keeps it to you; 'shared' (default) lets every connected app read it."
)
RECALL_HELP = (
    "Find memories that answer a question, by meaning and keywords (paraphrases work), best first. Filter by "
    "type, tags, project, author or since; as_of returns the memories as they stood at a past time. Returns a "
    "page of `limit` items with total, has_more and next_cursor: fetch more only if you need them. Check "
    "rerank_score: below 0 the memory is probably unrelated."
)
LIST_HELP = "List memories newest first (no query), optionally one project or type; page with cursor."
GET_HELP = "One memory in full with its version history (who wrote each version, when, over what, from what source)."
UPDATE_HELP = (
    "Change a memory you authored: writes a new version and keeps the previous one. Fields you leave out keep "
    "their value. Only the memory's author (or the local owner) may update it."
)
FORGET_HELP = (
    "Forget a memory you authored: it disappears from recall and lists at once, can be brought back with "
    "memory_restore for 30 days, then is purged for good."
)
RESTORE_HELP = "Bring back a memory forgotten in the last 30 days (its author or the local owner only)."
SAVE_HELP = (
    "Save a conversation transcript (or notes) under a session id so any app can resume it: long text is "
    "chunked and indexed; saving the same session_id again stores a new version. Read it back with session_load."
)
LOAD_HELP = (
    "Read a saved session back exactly, page by page (page_size characters per page, page 0 first); "
    "continue while has_more is true."
)

Content = Annotated[str, Field(description="The memory in plain words (max 20,000 characters).")]
MemoryId = Annotated[str, Field(description="A memory id, as returned by memory_remember or memory_recall.")]
Title = Annotated[str | None, Field(description="A short title (optional).")]
Tags = Annotated[list[str] | None, Field(description="Labels to filter by later, e.g. ['kitchen', 'renovation'].")]
Project = Annotated[str | None, Field(description="A project name to file it under (optional).")]
Expires = Annotated[str | None, Field(description="ISO 8601 time after which it is hidden, e.g. 2027-01-31.")]
Source = Annotated[str | None, Field(description="Where it came from: a document id or path, or a URL.")]


def register(server: MCPServer, container: Any) -> None:
    """Add the memory and session tools and the memory://{namespace} resource."""
    from ltm_desktop.services import memory_views as views

    @server.tool(name="memory_remember", title="Remember", description=REMEMBER_HELP, annotations=WRITE)
    def memory_remember(
        content: Content,
        title: Title = None,
        type: Annotated[str, Field(description=f"One of: {TYPES}.")] = "note",
        tags: Tags = None,
        project: Project = None,
        visibility: Annotated[str, Field(description="'shared' (every app) or 'private' (only you).")] = "shared",
        confidence: Annotated[float, Field(description="How sure you are, 0 to 1.")] = 0.8,
        expires_at: Expires = None,
        source: Source = None,
    ) -> RememberOut:
        with tool_errors("memory_remember"):
            r = container.memory.remember(current_caller(), content, title, type, tags, project, visibility,
                                          confidence, expires_at, source)
            return RememberOut(**views.remembered_dict(r))

    @server.tool(name="memory_recall", title="Recall memories", description=RECALL_HELP, annotations=READ_ONLY)
    def memory_recall(
        query: Annotated[str, Field(description="What you want to know, in your own words.")],
        type: Annotated[str | None, Field(description="Only this memory type.")] = None,
        tags: Annotated[list[str] | None, Field(description="Only memories carrying all these tags.")] = None,
        project: Annotated[str | None, Field(description="Only this project.")] = None,
        author: Annotated[str | None, Field(description="Only memories created by this client.")] = None,
        since: Annotated[str | None, Field(description="Only memories changed at or after this ISO time.")] = None,
        as_of: Annotated[str | None, Field(description="Recall as things stood at this past ISO time.")] = None,
        limit: Annotated[int, Field(description="Items per page (1-50).")] = 8,
        cursor: Annotated[str | None, Field(description="next_cursor from the previous page.")] = None,
    ) -> MemoryPageOut:
        with tool_errors("memory_recall"):
            page = container.memory_reader.recall(current_caller(), query, type, tags, project, author, since,
                                                  as_of, limit, cursor)
            return MemoryPageOut.model_validate(views.page_dict(page))

    @server.tool(name="memory_list", title="List memories", description=LIST_HELP, annotations=READ_ONLY)
    def memory_list(
        project: Annotated[str | None, Field(description="Only this project.")] = None,
        type: Annotated[str | None, Field(description="Only this memory type.")] = None,
        limit: Annotated[int, Field(description="Items per page (1-50).")] = 20,
        cursor: Annotated[str | None, Field(description="next_cursor from the previous page.")] = None,
    ) -> MemoryPageOut:
        with tool_errors("memory_list"):
            page = container.memory_reader.list(current_caller(), project, type, limit, cursor)
            return MemoryPageOut.model_validate(views.page_dict(page))

    @server.tool(name="memory_get", title="Get a memory", description=GET_HELP, annotations=READ_ONLY)
    def memory_get(id: MemoryId) -> MemoryDetailOut:
        with tool_errors("memory_get"):
            return MemoryDetailOut.model_validate(views.detail_dict(container.memory.get(current_caller(), id)))

    @server.tool(name="memory_update", title="Update a memory", description=UPDATE_HELP, annotations=WRITE)
    def memory_update(
        id: MemoryId,
        content: Content,
        title: Title = None,
        type: Annotated[str | None, Field(description=f"One of: {TYPES}.")] = None,
        tags: Tags = None,
        project: Project = None,
        visibility: Annotated[str | None, Field(description="'shared' or 'private'.")] = None,
        confidence: Annotated[float | None, Field(description="How sure you are, 0 to 1.")] = None,
        expires_at: Expires = None,
        source: Source = None,
    ) -> MemoryDetailOut:
        with tool_errors("memory_update"):
            caller = current_caller()
            container.memory.update(caller, id, content, title, type, tags, project, visibility, confidence,
                                    expires_at, source)
            return MemoryDetailOut.model_validate(views.detail_dict(container.memory.get(caller, id)))

    @server.tool(name="memory_forget", title="Forget a memory", description=FORGET_HELP, annotations=FORGET)
    def memory_forget(id: MemoryId) -> MemoryDetailOut:
        with tool_errors("memory_forget"):
            return MemoryDetailOut.model_validate(views.detail_dict(container.memory.forget(current_caller(), id)))

    @server.tool(name="memory_restore", title="Restore a memory", description=RESTORE_HELP, annotations=RESTORE)
    def memory_restore(id: MemoryId) -> MemoryDetailOut:
        with tool_errors("memory_restore"):
            return MemoryDetailOut.model_validate(views.detail_dict(container.memory.restore(current_caller(), id)))

    @server.tool(name="session_save", title="Save a session", description=SAVE_HELP, annotations=WRITE)
    def session_save(
        session_id: Annotated[str, Field(description="Your id for this conversation (max 200 characters).")],
        content: Annotated[str, Field(description="The transcript or notes (max 2,000,000 characters).")],
        project: Project = None,
    ) -> RememberOut:
        with tool_errors("session_save"):
            r = container.memory.session_save(current_caller(), session_id, content, project)
            return RememberOut(**views.remembered_dict(r))

    @server.tool(name="session_load", title="Load a session", description=LOAD_HELP, annotations=READ_ONLY)
    def session_load(
        session_id: Annotated[str, Field(description="The id used with session_save.")],
        page: Annotated[int, Field(description="Page number, from 0.")] = 0,
        page_size: Annotated[int, Field(description="Characters per page (1-100,000).")] = 8000,
    ) -> SessionPageOut:
        with tool_errors("session_load"):
            p = container.memory.session_load(current_caller(), session_id, page, page_size)
            return SessionPageOut.model_validate(views.session_dict(p))

    @server.resource(
        "memory://{namespace}", name="memories", mime_type="application/json",
        description="Recent memories of a project, or of 'shared' (memories filed under no project), newest first.",
    )
    def memory_namespace(namespace: str) -> str:
        from mcp.server.mcpserver.exceptions import ResourceError

        from ltm_desktop.core.errors import KnownError

        try:
            page = container.memory_reader.namespace(current_caller(), namespace)
        except KnownError as e:
            raise ResourceError(str(e)) from e
        return json.dumps(views.page_dict(page), ensure_ascii=False)
