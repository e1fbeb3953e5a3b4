"""Domain values shared by services and adapters. Frozen: a value once made is never edited in place."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Literal

PageSource = Literal["text", "ocr", "none"]
Lifecycle = Literal["active", "superseded"]
Confidence = Literal["high", "medium", "low"]


@dataclass(frozen=True)
class PageText:
    """The text of one page, and where it came from (the PDF's text layer or OCR)."""

    number: int
    text: str
    source: PageSource
    ocr_confidence: float | None = None


@dataclass(frozen=True)
class Extracted:
    """What an extractor read from a file, before chunking."""

    pages: tuple[PageText, ...]
    paginated: bool
    mime: str
    title: str | None = None
    doc_type: str | None = None
    lifecycle: Lifecycle = "active"
    split_on_headings: bool = False
    metadata: dict[str, str] = field(default_factory=dict)
    skip_reason: str | None = None  # set when the file asks not to be indexed (frontmatter `rag: false`)

    @property
    def full_text(self) -> str:
        return "".join(p.text for p in self.pages)


@dataclass(frozen=True)
class Chunk:
    """A passage cut for embedding, with its place in the document for citations."""

    ordinal: int
    text: str
    page_from: int
    page_to: int
    heading: str
    char_start: int
    char_end: int


@dataclass(frozen=True)
class FileFacts:
    """What the file system says about a file, taken before reading it."""

    path: str
    root: str
    rel_path: str
    size: int
    mtime: float


@dataclass(frozen=True)
class Ingested:
    path: str
    doc_id: int
    chunks: int
    pages: int
    ocr_pages: int


@dataclass(frozen=True)
class Unchanged:
    path: str
    doc_id: int


@dataclass(frozen=True)
class Repointed:
    """Known content at a new place: a move, rename or copy, recorded without re-embedding."""

    path: str
    doc_id: int
    from_path: str | None


@dataclass(frozen=True)
class Skipped:
    path: str
    reason: str


@dataclass(frozen=True)
class Failed:
    path: str
    reason: str


IngestOutcome = Ingested | Unchanged | Repointed | Skipped | Failed


@dataclass(frozen=True)
class SearchFilters:
    doc_type: str | None = None
    path_contains: str | None = None


@dataclass(frozen=True)
class Candidate:
    """A chunk found by the dense or lexical retriever, before fusion and rerank."""

    chunk_id: int
    text: str
    context: str
    cosine: float | None
    lexical_rank: int | None
    dense_rank: int | None


@dataclass(frozen=True)
class Hit:
    doc_id: int
    path: str
    title: str
    doc_type: str
    page_from: int | None
    page_to: int | None
    heading: str
    snippet: str
    cosine: float | None
    rerank_score: float | None
    fused_score: float
    chunk_id: int
    also_at: tuple[str, ...] = ()


@dataclass(frozen=True)
class SearchResult:
    query: str
    confidence: Confidence
    confidence_basis: Literal["rerank", "cosine", "none"]
    advice: str
    hits: tuple[Hit, ...]
    # Words of the question that appear in none of the documents: when they are what the question is about, the
    # answer is likely not there, whatever the scores say (an AI reading the result can judge that; a score can't).
    unmatched_terms: tuple[str, ...] = ()
    # The question's year, month, numbered unit/form or amount that none of the best passages mentions: the
    # confident misses measured are passages about the right thing with one such detail wrong.
    unmentioned_details: tuple[str, ...] = ()
    # The score the verdict judged: the best passage's or, when the question has such details, the best of the
    # leading passages that names them all (None: no passage does, or nothing matched).
    verdict_score: float | None = None


@dataclass(frozen=True)
class DocumentInfo:
    doc_id: int
    path: str
    root: str
    rel_path: str
    title: str
    doc_type: str
    mime: str
    sha256: str
    size: int
    mtime: float
    page_count: int
    paginated: bool
    lifecycle: Lifecycle
    metadata: dict[str, str]
    ocr_pages: int


@dataclass(frozen=True)
class DocumentText:
    info: DocumentInfo
    text: str
    pages: tuple[int, int] | None  # the page range returned, for paginated documents
    offset: int
    next_offset: int | None  # where to continue when the text was cut at max_chars
    total_chars: int


@dataclass(frozen=True)
class ModelPin:
    """The embedding model an index was built with; vectors from different models never mix."""

    model_id: str
    dim: int
    files_sha256: str
    query_prefix: str


@dataclass(frozen=True)
class IssueRecord:
    path: str
    kind: Literal["failed", "skipped", "warning"]
    reason: str
    at: str


@dataclass(frozen=True)
class Caller:
    """Who is calling a service: the author of memories and the name in the audit journal.

    It always comes from the transport (a verified token, or the local owner over stdio and the desktop app),
    never from a tool parameter.
    """

    client: str
    transport: Literal["stdio", "http", "local"]
    is_owner: bool


LOCAL_OWNER = Caller(client="local-owner", transport="local", is_owner=True)


@dataclass(frozen=True)
class ApiToken:
    """A bearer token's record: never the token itself, only its hash and the client it names."""

    token_id: int
    name: str
    created_at: str
    last_used_at: str | None
    revoked_at: str | None


@dataclass(frozen=True)
class ToolCall:
    """One journaled MCP tool call; `query` is set only when the user turned query logging on."""

    tool: str
    client: str
    transport: str
    duration_ms: float
    ok: bool
    error: str | None = None
    query: str | None = None
    at: str | None = None  # set by the store when read back
