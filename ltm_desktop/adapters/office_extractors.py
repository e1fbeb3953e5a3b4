"""Word (.docx), HTML and e-mail (.eml) to text. Headings become Markdown headings so chunks keep them."""

from __future__ import annotations

import email
import email.policy
import zipfile
from email.message import EmailMessage
from pathlib import Path

from ltm_desktop.adapters.text_extractor import read_text_file
from ltm_desktop.core.errors import ExtractionError
from ltm_desktop.core.models import Extracted, PageText


def _html_to_text(html: str) -> tuple[str, str | None]:
    """Visible text of an HTML page with h1-h6 as Markdown headings; and its <title>."""
    from bs4 import BeautifulSoup

    soup = BeautifulSoup(html, "html.parser")
    for tag in soup(["script", "style", "noscript", "template", "head"]):
        if tag.name == "head":
            continue
        tag.decompose()
    title = soup.title.get_text(" ", strip=True) if soup.title else None
    for level in range(1, 7):
        for h in soup.find_all(f"h{level}"):
            h.replace_with(f"\n\n{'#' * level} {h.get_text(' ', strip=True)}\n\n")
    for block in soup.find_all(["p", "div", "li", "tr", "br", "section", "article"]):
        block.insert_after("\n\n" if block.name != "br" else "\n")
    body = soup.body or soup
    lines = [" ".join(line.split()) for line in body.get_text().splitlines()]
    text = "\n".join(lines)
    while "\n\n\n" in text:
        text = text.replace("\n\n\n", "\n\n")
    return text.strip(), title


class HtmlExtractor:
    def extract(self, path: Path) -> Extracted:
        text, title = _html_to_text(read_text_file(path))
        return Extracted(pages=(PageText(1, text + "\n", "text"),), paginated=False, mime="text/html", title=title)


class DocxExtractor:
    def extract(self, path: Path) -> Extracted:
        import docx
        from docx.opc.exceptions import PackageNotFoundError

        try:
            document = docx.Document(str(path))
        except (PackageNotFoundError, zipfile.BadZipFile, KeyError, ValueError) as e:
            raise ExtractionError(f"{path.name} is not a readable .docx (corrupt, encrypted or another format): {e}") from e
        parts: list[str] = []
        for para in document.paragraphs:
            text = para.text.strip()
            if not text:
                continue
            style = (para.style.name or "").lower() if para.style is not None else ""
            if style.startswith("heading") and style[-1:].isdigit():
                parts.append(f"{'#' * int(style[-1])} {text}")
            elif style == "title":
                parts.append(f"# {text}")
            else:
                parts.append(text)
        for table in document.tables:
            for row in table.rows:
                cells = [c.text.strip() for c in row.cells if c.text.strip()]
                if cells:
                    parts.append(" | ".join(cells))
        core = document.core_properties
        title = (core.title or "").strip() or None
        meta = {k: str(v) for k, v in (("author", core.author), ("created", core.created)) if v}
        return Extracted(
            pages=(PageText(1, "\n\n".join(parts) + "\n", "text"),),
            paginated=False,
            mime="application/vnd.openxmlformats-officedocument.wordprocessingml.document",
            title=title,
            metadata=meta,
        )


class EmailExtractor:
    """The message's headers become metadata and a header block; the body prefers text/plain over HTML."""

    def extract(self, path: Path) -> Extracted:
        with open(path, "rb") as fh:
            msg = email.message_from_binary_file(fh, policy=email.policy.default)
        if not isinstance(msg, EmailMessage) or not any(msg[h] for h in ("from", "to", "subject", "date")):
            raise ExtractionError(f"{path.name} is not an e-mail message (no headers found)")
        meta = {k: str(msg[k]) for k in ("from", "to", "cc", "date", "subject") if msg[k]}
        body_part = msg.get_body(preferencelist=("plain", "html"))
        body = ""
        if body_part is not None:
            try:
                content = body_part.get_content()
            except (LookupError, UnicodeDecodeError):
                content = body_part.get_payload(decode=True).decode("latin-1", errors="replace")
            body = _html_to_text(content)[0] if body_part.get_content_type() == "text/html" else content
        attachments = [a.get_filename() for a in msg.iter_attachments() if a.get_filename()]
        if attachments:
            meta["attachments"] = ", ".join(attachments)
        header = "\n".join(f"{k.capitalize()}: {v}" for k, v in meta.items())
        return Extracted(
            pages=(PageText(1, f"{header}\n\n{body.strip()}\n", "text"),),
            paginated=False,
            mime="message/rfc822",
            title=meta.get("subject"),
            metadata=meta,
        )
