"""Shared long-term memory: its values and the store port. Frozen and stdlib-only, like the rest of core.

A memory is an id plus an append-only list of versions; every version carries its own provenance (who
wrote it, over which transport, when, from what source). Forgetting is an event, not a deletion, so the
state at any past time can be rebuilt and a forgotten memory can be restored until it is purged.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Literal, Protocol

from ltm_desktop.core.models import Chunk
from ltm_desktop.core.ports import Vector

Visibility = Literal["shared", "private"]
EventKind = Literal["forget", "restore"]

# A small documented vocabulary: enough to filter by, small enough for a model to pick from reliably.
MEMORY_TYPES: dict[str, str] = {
    "fact": "something true about the world, the user or their things",
    "preference": "how the user likes things done",
    "decision": "a choice that was made, ideally with its reason",
    "task": "something to do or follow up",
    "event": "something that happened at a time",
    "person": "who someone is and how they relate to the user",
    "project": "what a project is, its goals and state",
    "procedure": "how to do something, step by step",
    "note": "anything else worth keeping",
    "session": "a conversation transcript saved with session_save",
}


@dataclass(frozen=True)
class MemoryVersion:
    """One version of a memory: its content and fields, with the provenance of the write that made it."""

    version: int
    supersedes: int | None
    content: str
    title: str | None
    type: str
    tags: tuple[str, ...]
    project: str | None
    visibility: Visibility
    confidence: float
    expires_at: datetime | None
    source: str | None
    author: str  # the client that wrote this version (the memory's author, or the local owner)
    transport: str
    created_at: datetime


@dataclass(frozen=True)
class MemoryEvent:
    kind: EventKind
    by_client: str
    transport: str
    at: datetime


@dataclass(frozen=True)
class MemoryRecord:
    """A memory with its whole history, as stored (and as exported)."""

    id: str
    author: str
    created_at: datetime
    session_key: str | None
    forgotten_at: datetime | None
    versions: tuple[MemoryVersion, ...]
    events: tuple[MemoryEvent, ...] = ()

    @property
    def current(self) -> MemoryVersion:
        return self.versions[-1]


@dataclass(frozen=True)
class MemoryScope:
    """Which memories a read may see and which filters apply; `as_of` None means now."""

    viewer: str
    sees_private_of_all: bool
    at: datetime
    as_of: bool = False
    type: str | None = None
    tags: tuple[str, ...] = ()
    project: str | None = None
    author: str | None = None
    since: datetime | None = None
    include_sessions: bool = False
    namespace_without_project: bool = False  # memory://shared: memories filed under no project


@dataclass(frozen=True)
class MemoryMatch:
    """A memory chunk found by the vector or full-text retriever."""

    chunk_id: int
    memory_id: str
    text: str
    context: str
    cosine: float | None


@dataclass(frozen=True)
class MemoryView:
    """A memory as a reader sees it at a time: the version in effect plus the memory's own facts."""

    id: str
    author: str
    created_at: datetime
    forgotten_at: datetime | None
    current: MemoryVersion
    version_count: int


class MemoryStore(Protocol):
    """Memories, versions, events, chunks and vectors. Times are always given by the caller (the service's clock)."""

    def insert_memory(
        self, record: MemoryRecord, chunks: Sequence[Sequence[Chunk]], vectors: Sequence[Sequence[Vector]]
    ) -> None: ...

    def add_version(
        self, memory_id: str, version: MemoryVersion, chunks: Sequence[Chunk], vectors: Sequence[Vector]
    ) -> bool: ...

    def get(self, memory_id: str) -> MemoryRecord | None: ...

    def by_session_key(self, key: str) -> MemoryRecord | None: ...

    def add_event(self, memory_id: str, event: MemoryEvent) -> bool: ...

    def purge_forgotten(self, before: datetime) -> int: ...

    def dense(self, vector: Vector, limit: int, scope: MemoryScope) -> list[MemoryMatch]: ...

    def lexical(self, query: str, limit: int, scope: MemoryScope) -> list[MemoryMatch]: ...

    def cosines(self, vector: Vector, chunk_ids: Sequence[int]) -> dict[int, float]: ...

    def views(self, ids: Sequence[str], scope: MemoryScope) -> dict[str, MemoryView]: ...

    def newest(
        self, scope: MemoryScope, limit: int, after: tuple[datetime, str] | None
    ) -> tuple[list[MemoryView], int]: ...

    def insert_unless_similar(
        self, record: MemoryRecord, chunks: Sequence[Chunk], vectors: Sequence[Vector], threshold: float, at: datetime
    ) -> tuple[str, float] | None:
        """Insert a one-version memory unless its author already has a live one whose first chunk's cosine to
        `vectors[0]` reaches `threshold`: then (that id, cosine) and nothing written. Atomic per author, so two
        concurrent identical remembers (a client retrying after a timeout) store one memory."""
        ...

    def all_records(self) -> Iterator[MemoryRecord]: ...

    def count(self) -> int: ...

    def chunks_without_vectors(self, batch: int) -> list[tuple[int, str]]: ...

    def write_vectors(self, ids: Sequence[int], vectors: Sequence[Vector]) -> None: ...
