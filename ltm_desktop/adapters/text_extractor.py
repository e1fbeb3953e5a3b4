"""Plain text and Markdown, with YAML frontmatter rules.

Frontmatter keys honoured: `rag: false` (do not index), `lifecycle: superseded` (keep, but hide from search),
`rag_chunk: headings` (one chunk per section), `title:` and `doc_type:`; other scalar keys become metadata.
"""

from __future__ import annotations

import re
from pathlib import Path

import yaml

from ltm_desktop.core.errors import ExtractionError
from ltm_desktop.core.models import Extracted, PageText

_FRONTMATTER = re.compile(r"\A---[ \t]*\r?\n(.*?)\r?\n(?:---|\.\.\.)[ \t]*(?:\r?\n|\Z)", re.S)


def read_text_file(path: Path) -> str:
    """Decode as UTF-8 (with or without BOM), falling back to cp1252 for old Windows files."""
    raw = path.read_bytes()
    if b"\x00" in raw[:4096]:
        raise ExtractionError(f"{path.name} looks binary (NUL bytes), not text")
    for encoding in ("utf-8-sig", "cp1252"):
        try:
            return raw.decode(encoding)
        except UnicodeDecodeError:
            continue
    return raw.decode("latin-1")


def split_frontmatter(text: str) -> tuple[dict[str, object], str]:
    m = _FRONTMATTER.match(text)
    if not m:
        return {}, text
    try:
        data = yaml.safe_load(m.group(1)) or {}
    except yaml.YAMLError:
        return {}, text  # not frontmatter after all: index the text as written
    if not isinstance(data, dict):
        return {}, text
    return data, text[m.end() :]


def _is_false(value: object) -> bool:
    return value is False or str(value).strip().lower() in ("false", "no", "off", "0")


class TextExtractor:
    def extract(self, path: Path) -> Extracted:
        text = read_text_file(path)
        is_md = path.suffix.lower() in (".md", ".markdown")
        front, body = split_frontmatter(text)
        mime = "text/markdown" if is_md else "text/plain"
        skip = "frontmatter says rag: false" if "rag" in front and _is_false(front["rag"]) else None
        lifecycle = "superseded" if str(front.get("lifecycle", "")).strip().lower() == "superseded" else "active"
        meta = {str(k): str(v) for k, v in front.items() if isinstance(v, (str, int, float, bool)) or v is None}
        title = str(front["title"]).strip() if front.get("title") else None
        if title is None and is_md:
            m = re.search(r"^#\s+(.+)$", body, flags=re.M)
            title = m.group(1).strip() if m else None
        return Extracted(
            pages=(PageText(1, body.strip() + "\n", "text"),),
            paginated=False,
            mime=mime,
            title=title,
            doc_type=str(front["doc_type"]).strip() if front.get("doc_type") else None,
            lifecycle=lifecycle,
            split_on_headings=str(front.get("rag_chunk", "")).strip().lower() == "headings",
            metadata=meta,
            skip_reason=skip,
        )
