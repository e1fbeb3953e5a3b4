"""Sample documents for the smoke test, written with the venv's PyMuPDF (never with the bundle under test)."""

from __future__ import annotations

from pathlib import Path

import pymupdf

LEASE_FACT = "The greenhouse key is kept under the blue flowerpot beside the shed door."
LEASE_QUERY = "where is the greenhouse key kept"
SCAN_FACT = "Invoice 4711 from Acme Tooling: total due 980 euros by March 31."
SCAN_QUERY = "how much is due on the Acme invoice"


def born_digital_pdf(path: Path, lines: list[str]) -> Path:
    """A PDF with a real text layer, one line per paragraph."""
    doc = pymupdf.open()
    page = doc.new_page()
    page.insert_textbox(pymupdf.Rect(72, 72, 540, 770), "\n\n".join(lines), fontsize=11)
    doc.save(path)
    doc.close()
    return path


def scanned_pdf(path: Path, text: str, dpi: int = 200) -> Path:
    """An image-only PDF (no text layer), like a scanner's output: text rendered to pixels, then embedded."""
    source = pymupdf.open()
    page = source.new_page()
    page.insert_textbox(pymupdf.Rect(72, 72, 540, 300), text, fontsize=16)
    pixmap = page.get_pixmap(dpi=dpi)
    scan = pymupdf.open()
    scan.new_page(width=page.rect.width, height=page.rect.height).insert_image(page.rect, pixmap=pixmap)
    scan.save(path)
    scan.close()
    source.close()
    return path


def long_pdf(path: Path, pages: int, tag: str) -> Path:
    """Many pages of distinct text: enough rows to need new database pages (the full-disk check)."""
    doc = pymupdf.open()
    for i in range(pages):
        words = " ".join(f"{tag}{i}w{j} ledger entry" for j in range(250))
        doc.new_page().insert_textbox(pymupdf.Rect(36, 36, 576, 806), words, fontsize=6)
    doc.save(path)
    doc.close()
    return path


def sample_folder(folder: Path) -> dict[str, Path]:
    """The main sample: a lease (born-digital), a garden note (distractor) and a scanned invoice."""
    folder.mkdir(parents=True, exist_ok=True)
    return {
        "lease": born_digital_pdf(folder / "house-notes.pdf", [
            "House notes for the summer tenant.", LEASE_FACT,
            "Rent of 1450 euros is paid on the first day of each month."]),
        "garden": born_digital_pdf(folder / "garden.pdf", [
            "Tomatoes need six hours of sun.", "Water the beans every second evening in July."]),
        "scan": scanned_pdf(folder / "invoice-scan.pdf", SCAN_FACT),
    }
