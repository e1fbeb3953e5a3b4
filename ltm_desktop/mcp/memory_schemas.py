"""The shapes the memory tools return: structured output with a JSON schema clients can rely on."""

from typing import Literal

from pydantic import BaseModel, Field


class MemoryItemOut(BaseModel):
    id: str
    title: str | None
    content: str = Field(description="The memory's text, or a snippet of it when truncated is true (memory_get has all).")
    truncated: bool
    type: str
    tags: list[str]
    project: str | None
    author: str = Field(description="The client that created the memory.")
    visibility: Literal["shared", "private"]
    confidence: float
    version: int
    created_at: str
    updated_at: str
    expires_at: str | None
    source: str | None
    rerank_score: float | None = Field(default=None, description="Cross-encoder score (recall only); above ~5 strong, below 0 weak.")
    cosine: float | None = Field(default=None, description="Vector similarity to the query (recall only), 0-1.")


class MemoryPageOut(BaseModel):
    items: list[MemoryItemOut]
    total: int = Field(description="How many memories matched (for recall: how many made the ranked pool).")
    has_more: bool
    next_cursor: str | None = Field(description="Pass as cursor to get the next page; null when there is no more.")


class RememberOut(BaseModel):
    id: str
    status: Literal["created", "duplicate", "updated", "unchanged"]
    version: int
    similarity: float | None = None
    hint: str | None = None


class VersionOut(BaseModel):
    version: int
    supersedes: int | None
    content: str
    title: str | None
    type: str
    tags: list[str]
    project: str | None
    visibility: Literal["shared", "private"]
    confidence: float
    expires_at: str | None
    source: str | None
    author: str = Field(description="The client that wrote this version.")
    transport: str
    created_at: str


class EventOut(BaseModel):
    kind: Literal["forget", "restore"]
    by_client: str
    transport: str
    at: str


class MemoryDetailOut(BaseModel):
    id: str
    author: str
    status: Literal["active", "expired", "forgotten"]
    created_at: str
    forgotten_at: str | None
    restorable_until: str | None
    session_id: str | None
    current_version: int
    title: str | None
    content: str
    type: str
    tags: list[str]
    project: str | None
    visibility: Literal["shared", "private"]
    confidence: float
    expires_at: str | None
    source: str | None
    versions: list[VersionOut] = Field(description="Every version you may see, oldest first.")
    events: list[EventOut]


class SessionPageOut(BaseModel):
    session_id: str
    memory_id: str
    version: int
    author: str
    saved_at: str
    content: str
    page: int
    page_size: int
    total_chars: int
    total_pages: int
    has_more: bool
