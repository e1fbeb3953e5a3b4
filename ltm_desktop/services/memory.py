"""Shared long-term memory: remember, update, forget, restore, get, and session transcripts.

Rules that make memory trustworthy across clients:
- the author is always the caller (from its token, or the local owner), never a parameter;
- only the author (or the local owner) may change a memory, and a refused change writes nothing;
- an update appends a version (the old one is kept); forget is a restorable tombstone, purged after 30 days;
- a near-identical memory from the same author is reported back, never silently overwritten or merged.
Recall and list live in memory_recall.py; export and import in memory_transfer.py.
"""

from __future__ import annotations

import secrets
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field, replace
from datetime import UTC, datetime, timedelta

from ltm_desktop.core.chunking import ChunkSizes, chunk_pages
from ltm_desktop.core.errors import InvalidInput, NotFound
from ltm_desktop.core.memory import (
    MemoryEvent,
    MemoryRecord,
    MemoryStore,
    MemoryVersion,
)
from ltm_desktop.core.models import Caller, Chunk, PageText
from ltm_desktop.core.ports import Embedder, Reranker, Vector
from ltm_desktop.services import memory_rules as rules

MAX_ID_CHARS = 64


class NotYours(InvalidInput):
    """A change to a memory that belongs to another client."""


@dataclass(frozen=True)
class MemoryTuning:
    depth: int = 50  # candidates from each retriever before fusion
    rerank_candidates: int = 20  # memories are short and many match loosely; 20 keeps recall well under a second
    duplicate_cosine: float = 0.96  # measured: a reworded copy scores >= 0.97, "dark" vs "light mode" 0.948
    forget_days: int = 30
    item_chars: int = 1500  # longer memories are shown as a snippet in recall and list; memory_get has all
    chunk_sizes: ChunkSizes = field(default_factory=ChunkSizes)
    housekeeping_every: timedelta = timedelta(minutes=10)


@dataclass(frozen=True)
class Remembered:
    id: str
    status: str  # "created" or "duplicate"
    version: int
    similarity: float | None = None
    hint: str | None = None


@dataclass(frozen=True)
class MemoryDetail:
    """A memory as one caller may see it: the versions it may read, and its state."""

    record: MemoryRecord
    status: str  # active | expired | forgotten
    restorable_until: datetime | None


@dataclass(frozen=True)
class SessionPage:
    session_id: str
    memory_id: str
    version: int
    author: str
    saved_at: datetime
    content: str
    page: int
    page_size: int
    total_chars: int
    total_pages: int
    has_more: bool


def utc_now() -> datetime:
    return datetime.now(UTC)


def new_memory_id() -> str:
    return "mem_" + secrets.token_hex(8)


class MemoryService:
    def __init__(
        self,
        store: MemoryStore,
        embedder: Embedder,
        reranker: Reranker | None,
        tuning: MemoryTuning = MemoryTuning(),
        clock: Callable[[], datetime] = utc_now,
        new_id: Callable[[], str] = new_memory_id,
    ) -> None:
        self.store = store
        self.embedder = embedder
        self.reranker = reranker
        self.tuning = tuning
        self.clock = clock
        self._new_id = new_id
        self._last_housekeeping: datetime | None = None

    # ---- helpers ---------------------------------------------------------------------------------------

    def now(self) -> datetime:
        return self.clock().astimezone(UTC)

    def embed_content(self, content: str, title: str | None) -> tuple[list[Chunk], list[Vector]]:
        """Chunks of a version's content (one for a short memory, many for a transcript) and their vectors."""
        chunks = chunk_pages((PageText(1, content, "text"),), self.tuning.chunk_sizes)
        if not chunks:
            chunks = [Chunk(0, content.strip(), 1, 1, "", 0, len(content))]
        texts = [f"{title}\n{c.text}" if title else c.text for c in chunks]
        return chunks, self.embedder.embed_documents(texts)

    def housekeeping(self) -> int:
        """Purge tombstones past their restore window (at most every few minutes); returns how many."""
        now = self.now()
        last = self._last_housekeeping
        if last is not None and last <= now < last + self.tuning.housekeeping_every:
            return 0
        self._last_housekeeping = now
        return self.store.purge_forgotten(now - timedelta(days=self.tuning.forget_days))

    def can_change(self, caller: Caller, record: MemoryRecord) -> bool:
        return caller.is_owner or record.author == caller.client

    def can_see(self, caller: Caller, record: MemoryRecord) -> bool:
        if self.can_change(caller, record):
            return True
        return record.forgotten_at is None and record.current.visibility == "shared"

    def visible_record(self, caller: Caller, memory_id: str) -> MemoryRecord:
        """The record if this caller may see it; otherwise NotFound (someone's private memory stays unknown)."""
        key = (memory_id or "").strip() if isinstance(memory_id, str) else ""
        if not key or len(key) > MAX_ID_CHARS:
            raise InvalidInput(f"memory id {str(memory_id)[:80]!r} is not valid: pass an id as returned by memory_remember")
        record = self.store.get(key)
        if record is None or not self.can_see(caller, record):
            raise NotFound(
                f"no memory with id {key!r}: it was never stored, is private to another client, "
                f"or was forgotten more than {self.tuning.forget_days} days ago and purged"
            )
        return record

    def owned_record(self, caller: Caller, memory_id: str) -> MemoryRecord:
        record = self.visible_record(caller, memory_id)
        if not self.can_change(caller, record):
            raise NotYours(
                f"memory {record.id} belongs to {record.author!r}; only its author (or the local owner) may change it. "
                "Remember your own memory instead, or ask the user."
            )
        return record

    # ---- writes ----------------------------------------------------------------------------------------

    def remember(
        self,
        caller: Caller,
        content: str,
        title: str | None = None,
        type: str = "note",
        tags: Sequence[str] | None = None,
        project: str | None = None,
        visibility: str = "shared",
        confidence: float = 0.8,
        expires_at: str | datetime | None = None,
        source: str | None = None,
    ) -> Remembered:
        """Store a new memory, or report the author's near-identical one instead of making a copy."""
        now = self.now()
        version = MemoryVersion(
            version=1, supersedes=None,
            content=rules.check_text(content, "content", rules.MAX_CONTENT_CHARS),
            title=rules.check_optional(title, "title", rules.MAX_TITLE_CHARS),
            type=rules.check_type(type), tags=rules.check_tags(tags), project=rules.check_project(project),
            visibility=rules.check_visibility(visibility), confidence=rules.check_confidence(confidence),
            expires_at=rules.check_future(rules.parse_time(expires_at, "expires_at"), now, "expires_at"),
            source=rules.check_optional(source, "source", rules.MAX_SOURCE_CHARS),
            author=caller.client, transport=caller.transport, created_at=now,
        )
        self.housekeeping()
        chunks, vectors = self.embed_content(version.content, version.title)
        record = MemoryRecord(self._new_id(), caller.client, now, None, None, (version,))
        near = self.store.insert_unless_similar(record, chunks, vectors, self.tuning.duplicate_cosine, now)
        if near is not None:
            existing, cosine = near
            record = self.store.get(existing)
            return Remembered(
                id=existing, status="duplicate", version=record.current.version if record else 1,
                similarity=round(cosine, 4),
                hint=(
                    f"a similar memory exists ({existing}, similarity {cosine:.3f}); nothing new was stored. "
                    "Update it with memory_update if this is a change, or rephrase to say what is different."
                ),
            )
        return Remembered(id=record.id, status="created", version=1)

    def update(
        self,
        caller: Caller,
        memory_id: str,
        content: str,
        title: str | None = None,
        type: str | None = None,
        tags: Sequence[str] | None = None,
        project: str | None = None,
        visibility: str | None = None,
        confidence: float | None = None,
        expires_at: str | datetime | None = None,
        source: str | None = None,
    ) -> MemoryVersion:
        """Append a new version; fields left out (None) keep their value, "" clears one. The previous version is kept."""
        now = self.now()
        record = self.owned_record(caller, memory_id)
        if record.forgotten_at is not None:
            raise InvalidInput(f"memory {record.id} is forgotten: restore it with memory_restore before updating it")
        if record.session_key is not None:
            raise InvalidInput(f"memory {record.id} is a session transcript: save it again with session_save")
        cur = record.current
        version = replace(
            cur,
            version=cur.version + 1, supersedes=cur.version,
            content=rules.check_text(content, "content", rules.MAX_CONTENT_CHARS),
            title=cur.title if title is None else rules.check_optional(title, "title", rules.MAX_TITLE_CHARS),
            type=cur.type if type is None else rules.check_type(type),
            tags=cur.tags if tags is None else rules.check_tags(tags),
            project=cur.project if project is None else rules.check_project(project),
            visibility=cur.visibility if visibility is None else rules.check_visibility(visibility),
            confidence=cur.confidence if confidence is None else rules.check_confidence(confidence),
            # An expiry already past is not carried over: updating an expired memory brings it back.
            expires_at=(cur.expires_at if cur.expires_at is None or cur.expires_at > now else None)
            if expires_at is None else rules.check_future(rules.parse_time(expires_at, "expires_at"), now, "expires_at"),
            source=cur.source if source is None else rules.check_optional(source, "source", rules.MAX_SOURCE_CHARS),
            author=caller.client, transport=caller.transport, created_at=max(now, cur.created_at),
        )
        self.housekeeping()
        chunks, vectors = self.embed_content(version.content, version.title)
        if not self.store.add_version(record.id, version, chunks, vectors):
            raise InvalidInput(f"memory {record.id} changed while this update was prepared: get it again and retry")
        return version

    def forget(self, caller: Caller, memory_id: str) -> MemoryDetail:
        """Hide a memory from recall and list; restorable for `forget_days` days, then purged."""
        self.housekeeping()
        record = self.owned_record(caller, memory_id)
        if record.forgotten_at is None:
            self.store.add_event(record.id, MemoryEvent("forget", caller.client, caller.transport, self.now()))
        return self.detail(caller, self.store.get(record.id))

    def restore(self, caller: Caller, memory_id: str) -> MemoryDetail:
        """Undo a forget (within the restore window)."""
        self.housekeeping()
        record = self.owned_record(caller, memory_id)
        if record.forgotten_at is not None:
            self.store.add_event(record.id, MemoryEvent("restore", caller.client, caller.transport, self.now()))
        return self.detail(caller, self.store.get(record.id))

    # ---- reads -----------------------------------------------------------------------------------------

    def get(self, caller: Caller, memory_id: str) -> MemoryDetail:
        """A memory with its version history (versions another client made private are left out)."""
        return self.detail(caller, self.visible_record(caller, memory_id))

    def detail(self, caller: Caller, record: MemoryRecord) -> MemoryDetail:
        now = self.now()
        if not self.can_change(caller, record):
            shown = tuple(v for v in record.versions if v.visibility == "shared")
            record = replace(record, versions=shown)
        cur = record.current
        if record.forgotten_at is not None:
            until = record.forgotten_at + timedelta(days=self.tuning.forget_days)
            return MemoryDetail(record, "forgotten", until)
        if cur.expires_at is not None and cur.expires_at <= now:
            return MemoryDetail(record, "expired", None)
        return MemoryDetail(record, "active", None)

    # ---- sessions --------------------------------------------------------------------------------------

    def session_save(self, caller: Caller, session_id: str, content: str, project: str | None = None) -> Remembered:
        """Save a transcript under a session id: chunked on write, one vector per chunk; a re-save is a new version."""
        sid = rules.check_optional(session_id, "session_id", rules.MAX_NAME_CHARS)
        if sid is None:
            raise InvalidInput("session_id is empty: pass the id of the conversation to save")
        text = rules.check_text(content, "content", rules.MAX_SESSION_CHARS)
        proj = rules.check_project(project)
        now = self.now()
        self.housekeeping()
        existing = self.store.by_session_key(sid)
        title = f"session {sid}"
        if existing is None:
            chunks, vectors = self.embed_content(text, title)
            version = MemoryVersion(1, None, text, title, "session", (), proj, "shared", 1.0, None, None,
                                    caller.client, caller.transport, now)
            record = MemoryRecord(self._new_id(), caller.client, now, sid, None, (version,))
            self.store.insert_memory(record, [chunks], [vectors])
            return Remembered(record.id, "created", 1)
        if not self.can_change(caller, existing):
            raise NotYours(f"session {sid!r} was saved by {existing.author!r}; use another session_id")
        if existing.forgotten_at is not None:
            raise InvalidInput(f"session {sid!r} ({existing.id}) is forgotten: restore it with memory_restore first")
        cur = existing.current
        if cur.content == text and (proj is None or proj == cur.project):
            return Remembered(existing.id, "unchanged", cur.version)
        chunks, vectors = self.embed_content(text, title)
        version = replace(cur, version=cur.version + 1, supersedes=cur.version, content=text,
                          project=proj if proj is not None else cur.project, author=caller.client,
                          transport=caller.transport, created_at=max(now, cur.created_at))
        if not self.store.add_version(existing.id, version, chunks, vectors):
            raise InvalidInput(f"session {sid!r} was saved by someone else meanwhile: load it and retry")
        return Remembered(existing.id, "updated", version.version)

    def session_load(self, caller: Caller, session_id: str, page: int = 0, page_size: int = 8000) -> SessionPage:
        """One page of a saved transcript, by characters, so any length comes back exactly."""
        sid = (session_id or "").strip() if isinstance(session_id, str) else ""
        if not sid:
            raise InvalidInput("session_id is empty: pass the id used with session_save")
        if isinstance(page, bool) or not isinstance(page, int) or page < 0:
            raise InvalidInput(f"page must be 0 or more (got {page!r})")
        if isinstance(page_size, bool) or not isinstance(page_size, int) or not 1 <= page_size <= 100_000:
            raise InvalidInput(f"page_size must be between 1 and 100,000 characters (got {page_size!r})")
        record = self.store.by_session_key(sid)
        if record is None or not self.can_see(caller, record) or record.forgotten_at is not None:
            raise NotFound(f"no saved session {sid!r} visible to you: save it first with session_save")
        text = record.current.content
        pages = max(1, -(-len(text) // page_size))
        if page >= pages:
            raise InvalidInput(f"page {page} is past the end: session {sid!r} has {pages} page(s) of {page_size} characters")
        piece = text[page * page_size : (page + 1) * page_size]
        return SessionPage(sid, record.id, record.current.version, record.author, record.current.created_at, piece,
                           page, page_size, len(text), pages, page + 1 < pages)

    # ---- after an embedding-model change -----------------------------------------------------------------

    def reembed(self, batch: int = 128, progress: Callable[[int], None] | None = None) -> int:
        """Give every memory chunk without a vector one from the current model; returns how many."""
        done = 0
        while rows := self.store.chunks_without_vectors(batch):
            self.store.write_vectors([r[0] for r in rows], self.embedder.embed_documents([r[1] for r in rows]))
            done += len(rows)
            if progress:
                progress(done)
        return done
