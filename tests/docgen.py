"""Test documents made by the tests themselves: born-digital PDFs, image-only "scans", docx, eml, html."""

from __future__ import annotations

import random
from email.message import EmailMessage
from pathlib import Path

import pymupdf


def text_pdf(path: Path, pages: list[str], title: str | None = None) -> Path:
    """A born-digital PDF: each string becomes one page with a real text layer."""
    doc = pymupdf.open()
    for text in pages:
        page = doc.new_page(width=612, height=792)
        page.insert_textbox(pymupdf.Rect(54, 54, 558, 738), text, fontsize=11, fontname="helv")
    if title:
        doc.set_metadata({"title": title})
    doc.save(path)
    doc.close()
    return path


def _page_image(text: str, dpi: int = 200, skew: float = 0.0, grey: bool = False) -> bytes:
    """Render text onto a page and return it as a PNG (what a scanner would produce)."""
    tmp = pymupdf.open()
    page = tmp.new_page(width=612, height=792)
    if grey:
        page.draw_rect(page.rect, color=None, fill=(0.93, 0.93, 0.93))
    page.insert_textbox(pymupdf.Rect(54, 54, 558, 738), text, fontsize=12, fontname="helv")
    matrix = pymupdf.Matrix(dpi / 72, dpi / 72)
    if skew:
        matrix.prerotate(skew)
    pix = page.get_pixmap(matrix=matrix, colorspace=pymupdf.csGRAY)
    tmp.close()
    return pix.tobytes("png")


def scanned_pdf(path: Path, pages: list[str], skew: float = 0.0, grey: bool = False) -> Path:
    """An image-only PDF: no text layer at all, so only OCR can read it."""
    doc = pymupdf.open()
    for text in pages:
        png = _page_image(text, skew=skew, grey=grey)
        page = doc.new_page(width=612, height=792)
        page.insert_image(page.rect, stream=png)
    doc.save(path)
    doc.close()
    return path


def scan_png(path: Path, text: str) -> Path:
    path.write_bytes(_page_image(text))
    return path


def multipage_tiff(path: Path, pages: list[str]) -> Path:
    import io

    from PIL import Image

    images = [Image.open(io.BytesIO(_page_image(t))) for t in pages]
    images[0].save(path, save_all=True, append_images=images[1:], compression="tiff_deflate")
    return path


def docx_file(path: Path, heading: str, paragraphs: list[str]) -> Path:
    import docx

    d = docx.Document()
    d.add_heading(heading, level=1)
    for p in paragraphs:
        d.add_paragraph(p)
    d.save(str(path))
    return path


def eml_file(path: Path, sender: str, to: str, subject: str, body: str, date: str = "Mon, 02 Jun 2025 09:30:00 -0400") -> Path:
    msg = EmailMessage()
    msg["From"], msg["To"], msg["Subject"], msg["Date"] = sender, to, subject, date
    msg.set_content(body)
    path.write_bytes(bytes(msg))
    return path


def encrypted_pdf(path: Path, text: str) -> Path:
    doc = pymupdf.open()
    doc.new_page().insert_text((72, 72), text)
    doc.save(path, encryption=pymupdf.PDF_ENCRYPT_AES_256, user_pw="secret", owner_pw="owner")
    doc.close()
    return path


def corrupt_pdf(path: Path) -> Path:
    rng = random.Random(7)
    path.write_bytes(b"%PDF-1.7\n" + bytes(rng.randrange(256) for _ in range(2000)))
    return path
