"""The interfaces services need from the outside world. Adapters implement them; tests use the real ones."""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Protocol

from ltm_desktop.core.models import (
    ApiToken,
    Candidate,
    Chunk,
    DocumentInfo,
    Extracted,
    FileFacts,
    IssueRecord,
    ModelPin,
    SearchFilters,
    ToolCall,
)

Vector = Sequence[float]


class Embedder(Protocol):
    @property
    def pin(self) -> ModelPin: ...

    def embed_documents(self, texts: Sequence[str]) -> list[list[float]]: ...

    def embed_query(self, text: str) -> list[float]: ...


class Reranker(Protocol):
    def score(self, query: str, passages: Sequence[str]) -> list[float]: ...


@dataclass(frozen=True)
class OcrText:
    text: str
    confidence: float  # mean word confidence, 0-100


class Ocr(Protocol):
    def is_available(self) -> str | None:
        """None when OCR can run; otherwise the reason and the fix."""
        ...

    def recognize(self, png: bytes) -> OcrText: ...


class Extractor(Protocol):
    def extract(self, path: Path) -> Extracted: ...


@dataclass(frozen=True)
class StoredDocument:
    doc_id: int
    path: str
    sha256: str
    size: int
    mtime: float
    pipeline: str
    title: str
    doc_type: str


@dataclass(frozen=True)
class ChunkDetail:
    chunk_id: int
    sha256: str
    text: str
    page_from: int
    page_to: int
    heading: str
    paginated: bool
    doc_id: int
    path: str
    title: str
    doc_type: str
    also_at: tuple[str, ...]


class DocumentStore(Protocol):
    """The write side: documents, their content, chunks and vectors."""

    def document_at(self, path: str) -> StoredDocument | None: ...

    def documents_with_content(self, sha256: str) -> list[StoredDocument]: ...

    def save_new_content(
        self,
        facts: FileFacts,
        sha256: str,
        extracted: Extracted,
        title: str,
        doc_type: str,
        chunks: Sequence[Chunk],
        vectors: Sequence[Vector],
        pipeline: str,
    ) -> int: ...

    def link_existing_content(
        self, facts: FileFacts, sha256: str, title: str, doc_type: str, pipeline: str
    ) -> int: ...

    def move_document(self, doc_id: int, facts: FileFacts) -> None: ...

    def touch_document(self, doc_id: int, facts: FileFacts) -> None: ...

    def record_issue(self, path: str, kind: str, reason: str) -> None: ...

    def clear_issue(self, path: str) -> None: ...

    def remove_document(self, path: str) -> bool: ...


class SearchIndex(Protocol):
    """The read side. Implementations run read-only and never create anything."""

    def dense(self, vector: Vector, limit: int, filters: SearchFilters) -> list[Candidate]: ...

    def lexical(self, query: str, limit: int, filters: SearchFilters) -> list[Candidate]: ...

    def chunk_details(self, chunk_ids: Sequence[int], filters: SearchFilters) -> dict[int, ChunkDetail]: ...

    def doc_types(self) -> list[str]: ...

    def model_pin(self) -> ModelPin | None: ...

    def find_documents(self, path_or_id: str, limit: int) -> list[DocumentInfo]: ...

    def count_documents_matching(self, fragment: str) -> int: ...

    def cosines(self, vector: Vector, chunk_ids: Sequence[int]) -> dict[int, float]: ...

    def unmatched_terms(self, words: Sequence[str]) -> list[str]:
        """The words (in order) whose stemmed form occurs in no chunk; stop words are never reported."""
        ...

    def leads(self, chunk_ids: Sequence[int], chars: int) -> dict[int, str]:
        """The opening `chars` of each chunk's document, for chunks that are not its opening."""
        ...

    def page_texts(self, doc_id: int, first: int | None, last: int | None) -> list[tuple[int, str]]: ...

    def stats(self) -> dict[str, object]: ...

    def issues(self, limit: int) -> list[IssueRecord]: ...


class FileLister(Protocol):
    def walk(self, root: Path) -> Iterator[Path]: ...


class TokenStore(Protocol):
    """Hashed bearer tokens, one per client."""

    def add(self, name: str, token_sha256: str) -> ApiToken: ...

    def find_active(self, token_sha256: str) -> tuple[ApiToken, str] | None:
        """The live token with this hash, and the stored hash (for a constant-time comparison)."""
        ...

    def active(self) -> list[ApiToken]: ...

    def revoke(self, name: str) -> bool: ...

    def touch(self, token_id: int) -> None: ...


class JournalStore(Protocol):
    """The audit journal of tool calls."""

    def record(self, call: ToolCall) -> None: ...

    def prune(self, older_than_days: int) -> int: ...

    def recent(self, limit: int) -> list[ToolCall]: ...

    def summary(self, since_hours: int) -> list[tuple[str, str, int, int]]:
        """(tool, client, calls, errors) over the last hours, busiest first."""
        ...
