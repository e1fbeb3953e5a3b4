"""Reading documents back from the index (never from disk): whole, by page range, or in slices."""

from __future__ import annotations

import re

from ltm_desktop.core.errors import InvalidInput, NotFound
from ltm_desktop.core.models import DocumentInfo, DocumentText
from ltm_desktop.core.ports import SearchIndex

MAX_CHARS_CAP = 500_000
CANDIDATE_LIMIT = 20


class AmbiguousDocument(InvalidInput):
    """A path fragment matched several documents; the candidates let the caller choose."""

    def __init__(self, fragment: str, candidates: list[DocumentInfo], total: int) -> None:
        self.candidates = candidates
        self.total = total
        listed = "; ".join(f"{c.doc_id}: {c.path}" for c in candidates[:10])
        more = f" (and {total - 10} more)" if total > 10 else ""
        super().__init__(f"{fragment!r} matches {total} documents: {listed}{more}. Pass the id or a longer path.")


def parse_pages(spec: str | None) -> tuple[int, int] | None:
    """'3' -> (3, 3); '3-5' -> (3, 5); None -> None."""
    if spec is None or str(spec).strip() == "":
        return None
    m = re.fullmatch(r"\s*(\d+)\s*(?:-\s*(\d+)\s*)?", str(spec))
    if not m:
        raise InvalidInput(f"pages must look like 3 or 3-5 (got {spec!r})")
    first, last = int(m.group(1)), int(m.group(2) or m.group(1))
    if first < 1 or last < first:
        raise InvalidInput(f"page range {spec!r} is empty or starts before page 1")
    return first, last


class DocumentService:
    def __init__(self, index: SearchIndex) -> None:
        self._index = index

    def resolve(self, path_or_id: str) -> DocumentInfo:
        key = str(path_or_id).strip()
        if not key:
            raise InvalidInput("give a document id or a path (or part of one)")
        found = self._index.find_documents(key, CANDIDATE_LIMIT + 1)
        if not found:
            raise NotFound(f"no document matches {key!r}: check the path, or search first and use the doc_id")
        exact = [d for d in found if str(d.doc_id) == key or d.path == key]
        if exact:
            return exact[0]
        if len(found) > 1:
            total = self._index.count_documents_matching(key)
            raise AmbiguousDocument(key, found[:CANDIDATE_LIMIT], total)
        return found[0]

    def read(
        self, path_or_id: str, pages: str | None = None, max_chars: int = 20_000, offset: int = 0
    ) -> DocumentText:
        if not 1 <= max_chars <= MAX_CHARS_CAP:
            raise InvalidInput(f"max_chars must be between 1 and {MAX_CHARS_CAP:,} (got {max_chars})")
        if offset < 0:
            raise InvalidInput("offset must be 0 or more")
        info = self.resolve(path_or_id)
        page_range = parse_pages(pages)
        if page_range and not info.paginated:
            raise InvalidInput(f"{info.path} has no pages ({info.mime}); omit pages and use offset/max_chars")
        if page_range and page_range[0] > info.page_count:
            raise InvalidInput(f"{info.path} has {info.page_count} page(s); page {page_range[0]} does not exist")
        rows = self._index.page_texts(info.doc_id, *(page_range or (None, None)))
        if info.paginated:
            text = "".join(f"[page {n}]\n{t.strip()}\n\n" for n, t in rows)
        else:
            text = "".join(t for _, t in rows)
        total = len(text)
        if offset > total:
            raise InvalidInput(f"offset {offset} is past the end of the text ({total} characters)")
        piece = text[offset : offset + max_chars]
        end = offset + len(piece)
        returned = (rows[0][0], rows[-1][0]) if rows and info.paginated else None
        return DocumentText(info, piece, returned, offset, end if end < total else None, total)
