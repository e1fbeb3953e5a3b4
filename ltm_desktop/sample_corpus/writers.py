"""Write sample documents as real files: PDFs, scans and .docx through the document-writer adapter; .md and .eml here."""

from __future__ import annotations

import zlib
from email.message import EmailMessage
from pathlib import Path

from ltm_desktop.adapters.document_writers import write_docx, write_pdf, write_scan
from ltm_desktop.sample_corpus.model import SampleDoc


def _md(doc: SampleDoc, path: Path) -> None:
    path.write_text("\n\n".join(doc.blocks) + "\n", encoding="utf-8")


def _eml(doc: SampleDoc, path: Path) -> None:
    msg = EmailMessage()
    for key in ("From", "To", "Cc", "Date", "Subject"):
        if key in doc.headers:
            msg[key] = doc.headers[key]
    msg["Message-ID"] = f"<{doc.doc_id}@sample.harborviewpm.example>"  # fixed: a generated one is random
    msg.set_content("\n\n".join(doc.blocks) + "\n")
    path.write_bytes(bytes(msg))


def write_document(doc: SampleDoc, root: Path) -> Path:
    """Write one document under root at its relative path; returns the path."""
    path = root / doc.rel_path
    path.parent.mkdir(parents=True, exist_ok=True)
    if doc.fmt == "pdf":
        write_pdf(path, doc.blocks, doc.title, doc.mono, doc.page_breaks)
    elif doc.fmt == "scan":
        write_scan(path, doc.blocks, zlib.crc32(doc.doc_id.encode()), doc.mono, doc.page_breaks)
    elif doc.fmt == "docx":
        write_docx(path, doc.blocks, doc.title, "Dana Whitfield")
    elif doc.fmt == "md":
        _md(doc, path)
    else:
        _eml(doc, path)
    return path
