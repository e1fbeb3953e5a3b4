"""The shapes the document tools return: structured output with a JSON schema clients can rely on."""

from typing import Any, Literal

from pydantic import BaseModel, Field

HEADING_CHARS = 200
TITLE_CHARS = 300


class SearchHit(BaseModel):
    doc_id: int
    path: str
    title: str
    doc_type: str
    page_from: int | None = Field(description="First page of the passage (null for files without pages).")
    page_to: int | None
    heading: str = Field(description="The section heading above the passage, if any.")
    snippet: str = Field(description="The part of the passage that best matches the query (capped).")
    cosine: float | None = Field(description="Vector similarity of the passage to the query, 0-1.")
    rerank_score: float | None = Field(description="Cross-encoder score; above ~5 is a strong answer, below 1 weak.")
    also_at: list[str] = Field(default_factory=list, description="Other paths holding identical content.")


class SearchOutput(BaseModel):
    query: str
    confidence: Literal["high", "medium", "low"] = Field(
        description="Is the answer likely in the user's documents? Judged on the absolute score of the best passage "
        "that names the question's year, month, unit, amount and street (see verdict_score)."
    )
    confidence_basis: Literal["rerank", "cosine", "none"]
    advice: str = Field(description="How to use these results in the answer.")
    hits: list[SearchHit]
    unmatched_terms: list[str] = Field(
        default_factory=list,
        description="Words of the question found in none of the user's documents; if the question is about them, "
        "the answer is likely not there.",
    )
    unmentioned_details: list[str] = Field(
        default_factory=list,
        description="The question's year, month, numbered unit or form, amount or street that none of the best "
        "passages mentions; a passage about another one does not answer the question (the verdict is then low).",
    )
    verdict_score: float | None = Field(
        default=None,
        description="The score the confidence rests on (rerank or cosine, per confidence_basis); lower than the "
        "first hit's when that passage does not name the question's details; null when no passage does.",
    )


class DocumentCandidate(BaseModel):
    doc_id: int
    path: str
    title: str
    doc_type: str


class DocumentOutput(BaseModel):
    status: Literal["ok", "ambiguous"] = Field(
        description="'ambiguous': the path fragment matched several documents; pick one from candidates."
    )
    doc_id: int | None = None
    path: str | None = None
    title: str | None = None
    doc_type: str | None = None
    mime: str | None = None
    page_count: int | None = None
    paginated: bool | None = None
    lifecycle: str | None = None
    ocr_pages: int | None = None
    metadata: dict[str, str] = Field(default_factory=dict)
    pages_returned: str | None = Field(default=None, description="e.g. '3-5'; null for files without pages.")
    text: str = ""
    offset: int = 0
    next_offset: int | None = Field(default=None, description="Pass as offset to read on; null at the end.")
    total_chars: int = 0
    candidates: list[DocumentCandidate] = Field(default_factory=list)
    total_matches: int | None = None
    advice: str = ""


class StatsOutput(BaseModel):
    documents: int
    documents_by_type: dict[str, int]
    superseded_documents: int
    pages: int
    ocr_pages: int
    pages_without_text: int
    low_confidence_ocr_pages: int
    chunks: int
    embedded_chunks: int
    embedding_coverage: float
    hnsw_index: bool
    model_pin: dict[str, Any] | None
    failed_files: int
    skipped_files: int
    warnings: int = Field(default=0, description="Files indexed with a warning (e.g. low OCR confidence).")
    recent_issues: list[dict[str, str]]
    database_bytes: int
    worker: dict[str, Any] | None = Field(description="The ingestion worker's state, when a worker is installed.")


class SearchResultItem(BaseModel):
    id: str
    title: str
    url: str
    text: str = Field(description="A short snippet of the best passage.")


class ConnectorSearchOutput(BaseModel):
    """The shape ChatGPT connectors and deep research expect from `search`."""

    results: list[SearchResultItem]


class ConnectorFetchOutput(BaseModel):
    """The shape ChatGPT connectors and deep research expect from `fetch`."""

    id: str
    title: str
    text: str
    url: str
    metadata: dict[str, Any] | None = None
