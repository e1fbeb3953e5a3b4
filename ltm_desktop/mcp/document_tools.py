"""The document tools: thin shells over the search and document services, read-only by construction.

No annotations future-import here: the SDK builds each tool's JSON schema from these hints at runtime.
"""

from pathlib import PurePath
from typing import Annotated, Any

from mcp.server import MCPServer
from mcp.types import ToolAnnotations
from pydantic import Field

from ltm_desktop.core.models import DocumentText, SearchFilters, SearchResult
from ltm_desktop.mcp.schemas import (
    HEADING_CHARS,
    TITLE_CHARS,
    ConnectorFetchOutput,
    ConnectorSearchOutput,
    DocumentCandidate,
    DocumentOutput,
    SearchHit,
    SearchOutput,
    SearchResultItem,
    StatsOutput,
)
from ltm_desktop.mcp.tool_errors import tool_errors

READ_ONLY = ToolAnnotations(read_only_hint=True, destructive_hint=False, idempotent_hint=True, open_world_hint=False)
MAX_FILTER_CHARS = 500
FETCH_CHARS = 100_000
CONNECTOR_RESULTS = 10

SEARCH_HELP = (
    "Search the user's own documents (PDFs, scans, Office files, notes, email) indexed on this computer. "
    "Use it whenever the answer may be in the user's files. Read `confidence` before answering: "
    "high = answer from the hits and cite path and page; medium = answer only what the passages support and say "
    "what is missing; low = tell the user it does not appear to be in their documents instead of guessing. "
    "Follow `advice`. To read more around a hit, call ltm_get_document with its doc_id and pages."
)
GET_HELP = (
    "Read a document's text from the index (not from disk) by doc_id (from ltm_search) or by path, or part of a "
    "path. `pages` ('3' or '3-5') reads a page range of a paginated file; `offset` continues a long text where "
    "the previous call stopped (next_offset). A path fragment that matches several documents returns "
    "status 'ambiguous' with candidates: call again with one doc_id."
)
STATS_HELP = (
    "What is indexed: documents by type, chunk and embedding coverage, OCR'd pages, files that failed, the "
    "vector index, the embedding model and the ingestion worker. Use it to tell the user what you can search, "
    "or why a search finds nothing."
)
CONNECTOR_SEARCH_HELP = (
    "Search the user's documents; returns results with id, title, url and a snippet. Use fetch(id) to read one. "
    "Same index as ltm_search (which adds a confidence verdict and page numbers)."
)
CONNECTOR_FETCH_HELP = (
    "Read the text of a document found by search, by its id (long files from the matching page on, up to "
    "100,000 characters). Cite the url."
)


def _pages(hit_from: int | None, hit_to: int | None) -> str | None:
    if hit_from is None:
        return None
    return str(hit_from) if hit_from == hit_to else f"{hit_from}-{hit_to}"


def _url(path: str, page: int | None = None) -> str:
    p = PurePath(path)
    url = p.as_uri() if p.is_absolute() else path
    return f"{url}#page={page}" if page else url


def search_output(result: SearchResult) -> SearchOutput:
    hits = [
        SearchHit(
            doc_id=h.doc_id, path=h.path, title=h.title[:TITLE_CHARS], doc_type=h.doc_type, page_from=h.page_from,
            page_to=h.page_to, heading=h.heading[:HEADING_CHARS], snippet=h.snippet, cosine=h.cosine,
            rerank_score=h.rerank_score, also_at=list(h.also_at[:5]),
        )
        for h in result.hits
    ]
    return SearchOutput(
        query=result.query, confidence=result.confidence, confidence_basis=result.confidence_basis,
        advice=result.advice, hits=hits, unmatched_terms=list(result.unmatched_terms),
        unmentioned_details=list(result.unmentioned_details), verdict_score=result.verdict_score,
    )


def document_output(doc: DocumentText) -> DocumentOutput:
    i = doc.info
    advice = (
        f"Cut at {doc.next_offset} of {doc.total_chars} characters: call again with offset={doc.next_offset} to read on."
        if doc.next_offset is not None else "This is the end of the requested text."
    )
    return DocumentOutput(
        status="ok", doc_id=i.doc_id, path=i.path, title=i.title, doc_type=i.doc_type, mime=i.mime,
        page_count=i.page_count, paginated=i.paginated, lifecycle=i.lifecycle, ocr_pages=i.ocr_pages,
        metadata={str(k): str(v) for k, v in i.metadata.items()},
        pages_returned=_pages(*doc.pages) if doc.pages else None, text=doc.text, offset=doc.offset,
        next_offset=doc.next_offset, total_chars=doc.total_chars, advice=advice,
    )


def _filter(value: str | None, name: str) -> str | None:
    from ltm_desktop.core.errors import InvalidInput

    value = (value or "").strip()
    if len(value) > MAX_FILTER_CHARS:
        raise InvalidInput(f"{name} is {len(value)} characters; the limit is {MAX_FILTER_CHARS}")
    return value or None  # models often send "" for "no filter"


def register(server: MCPServer, container: Any) -> None:
    """Add ltm_search, ltm_get_document, ltm_stats and the connector pair search/fetch."""

    @server.tool(name="ltm_search", title="Search my documents", description=SEARCH_HELP, annotations=READ_ONLY)
    def ltm_search(
        query: Annotated[str, Field(description="The question or keywords, in the user's words (max 2000 chars).")],
        k: Annotated[int, Field(ge=1, le=50, description="How many passages to return (1-50).")] = 8,
        rerank: Annotated[bool, Field(description="Rescore with the cross-encoder (better verdict; keep on).")] = True,
        doc_type: Annotated[str | None, Field(description="Only this type, e.g. pdf, docx, email, markdown.")] = None,
        path_contains: Annotated[str | None, Field(description="Only files whose path contains this text.")] = None,
    ) -> SearchOutput:
        with tool_errors("ltm_search"):
            filters = SearchFilters(_filter(doc_type, "doc_type"), _filter(path_contains, "path_contains"))
            return search_output(container.search.search(query, k=k, filters=filters, rerank=rerank))

    @server.tool(name="ltm_get_document", title="Read a document", description=GET_HELP, annotations=READ_ONLY)
    def ltm_get_document(
        path_or_id: Annotated[str, Field(description="A doc_id from ltm_search, a full path, or part of a path.")],
        max_chars: Annotated[int, Field(ge=1, le=500_000, description="Most characters to return (max 500,000).")] = 20_000,
        pages: Annotated[str | int | None, Field(description="A page or range of a paginated file: '3' or '3-5'.")] = None,
        offset: Annotated[int, Field(ge=0, description="Character offset to continue from (next_offset).")] = 0,
    ) -> DocumentOutput:
        from ltm_desktop.services.documents import AmbiguousDocument

        with tool_errors("ltm_get_document"):
            try:
                doc = container.documents.read(str(path_or_id), None if pages is None else str(pages), max_chars, offset)
            except AmbiguousDocument as e:
                return DocumentOutput(
                    status="ambiguous",
                    candidates=[DocumentCandidate(doc_id=c.doc_id, path=c.path, title=c.title[:TITLE_CHARS],
                                                  doc_type=c.doc_type) for c in e.candidates],
                    total_matches=e.total,
                    advice=f"{e.total} documents match; call ltm_get_document again with one doc_id "
                    "(or a longer part of the path).",
                )
            return document_output(doc)

    @server.tool(name="ltm_stats", title="What is indexed", description=STATS_HELP, annotations=READ_ONLY)
    def ltm_stats() -> StatsOutput:
        with tool_errors("ltm_stats"):
            stats = dict(container.search_index.stats())
            issues = [
                {"path": i.path, "kind": i.kind, "reason": i.reason, "at": i.at}
                for i in container.search_index.issues(10)
            ]
            known = set(StatsOutput.model_fields) - {"recent_issues", "worker"}
            return StatsOutput(
                **{k: v for k, v in stats.items() if k in known}, recent_issues=issues, worker=worker_status(container)
            )

    @server.tool(name="search", title="Search documents", description=CONNECTOR_SEARCH_HELP, annotations=READ_ONLY)
    def search(query: Annotated[str, Field(description="What to look for.")]) -> ConnectorSearchOutput:
        with tool_errors("search"):
            result = container.search.search(query, k=min(50, CONNECTOR_RESULTS * 2))
            results: list[SearchResultItem] = []
            seen: set[int] = set()
            for h in result.hits:
                if h.doc_id in seen:
                    continue  # one result per document; fetch returns the document from the hit's page on
                seen.add(h.doc_id)
                ref = f"{h.doc_id}#page={h.page_from}" if h.page_from else str(h.doc_id)
                results.append(SearchResultItem(id=ref, title=h.title[:TITLE_CHARS], url=_url(h.path, h.page_from),
                                                text=h.snippet))
                if len(results) >= CONNECTOR_RESULTS:
                    break
            return ConnectorSearchOutput(results=results)

    @server.tool(name="fetch", title="Fetch a document", description=CONNECTOR_FETCH_HELP, annotations=READ_ONLY)
    def fetch(id: Annotated[str, Field(description="An id returned by search.")]) -> ConnectorFetchOutput:
        with tool_errors("fetch"):
            doc_ref, page = parse_fetch_id(id)
            info = container.documents.resolve(doc_ref)
            # Deep research wants the full text; a long file is read from the page before the hit onward.
            first = max(1, page - 1) if page and info.paginated else None
            pages = f"{first}-{info.page_count}" if first else None
            doc = container.documents.read(str(info.doc_id), pages, FETCH_CHARS, 0)
            meta: dict[str, Any] = {"path": info.path, "doc_type": info.doc_type, "mime": info.mime,
                                    "page_count": info.page_count, "total_chars": doc.total_chars,
                                    "truncated": doc.next_offset is not None}
            if doc.pages:
                meta["pages"] = _pages(*doc.pages)
            return ConnectorFetchOutput(id=id, title=info.title, text=doc.text, url=_url(info.path, page), metadata=meta)


def parse_fetch_id(ref: str) -> tuple[str, int | None]:
    """'12' or '12#page=4' (as search returns them) -> ('12', 4)."""
    from ltm_desktop.core.errors import InvalidInput

    ref = (ref or "").strip()
    head, _, tail = ref.partition("#page=")
    if not head.isdigit() or (tail and not tail.isdigit()):
        raise InvalidInput(f"{ref!r} is not an id returned by search (expected e.g. 12 or 12#page=4)")
    return head, int(tail) if tail else None


def worker_status(container: Any, list_limit: int = 10) -> dict[str, Any] | None:
    """The worker's state from Container.worker_status() when the worker feature is installed (lists capped)."""
    import dataclasses
    import json

    from ltm_desktop.core.errors import KnownError

    probe = getattr(container, "worker_status", None)
    if probe is None:
        return None
    try:
        status = probe()
    except KnownError as e:
        return {"available": False, "error": str(e)}
    summary = getattr(status, "summary", None)
    data = dataclasses.asdict(status) if dataclasses.is_dataclass(status) else {"status": status}
    data = {k: v[:list_limit] if isinstance(v, list) else v for k, v in data.items()}
    if isinstance(summary, str):
        data["summary"] = summary
    return json.loads(json.dumps(data, default=str))  # datetimes, paths: plain JSON for the schema
