"""Write PDFs (born-digital and image-only "scans") and .docx files, byte-for-byte reproducibly.

Used by the sample corpus generator. PDFs get fixed dates and no random file id; .docx zips get fixed
member times; a scan's grey paper, dust specks and slight rotation come from the seed it is given.
Blocks are paragraphs; a block starting with '# ' or '## ' is a heading.
"""

from __future__ import annotations

import datetime
import io
import random
import zipfile
from collections.abc import Sequence
from pathlib import Path

import pymupdf

PAGE_W, PAGE_H = 612, 792
MARGIN = 60
FIXED_PDF_DATE = "D:20241231120000Z"
FIXED_TIME = datetime.datetime(2024, 12, 31, 12, 0, 0)
SCAN_DPI = 150


def _block_style(block: str, mono: bool) -> tuple[str, str, float]:
    """(text, font, size) for one block: headings bold, statements fixed-width."""
    if block.startswith("## "):
        return block[3:], "hebo", 11.5
    if block.startswith("# "):
        return block[2:], "hebo", 14
    return block, ("cour" if mono else "helv"), (9.0 if mono else 10.5)


def _lay_out(doc: pymupdf.Document, blocks: Sequence[str], mono: bool, breaks: Sequence[int]) -> int:
    """Flow blocks onto as many pages as they need; a block that does not fit starts the next page."""
    page = doc.new_page(width=PAGE_W, height=PAGE_H)
    y = MARGIN
    for i, block in enumerate(blocks):
        text, font, size = _block_style(block, mono)
        if i in breaks and y > MARGIN:
            page, y = doc.new_page(width=PAGE_W, height=PAGE_H), MARGIN
        for attempt in range(2):
            rect = pymupdf.Rect(MARGIN, y, PAGE_W - MARGIN, PAGE_H - MARGIN)
            spare = page.insert_textbox(rect, text, fontsize=size, fontname=font)
            if spare >= 0:
                y = PAGE_H - MARGIN - spare + size * 0.9
                break
            if attempt == 1:
                raise ValueError(f"a block of {len(text)} characters does not fit on one page: split it")
            page, y = doc.new_page(width=PAGE_W, height=PAGE_H), MARGIN
    return doc.page_count


def _save_pdf(doc: pymupdf.Document, path: Path, title: str) -> None:
    doc.set_metadata({
        "title": title, "author": "", "subject": "", "keywords": "", "creator": "ltm sample corpus",
        "producer": "ltm sample corpus", "creationDate": FIXED_PDF_DATE, "modDate": FIXED_PDF_DATE,
    })
    doc.save(path, garbage=3, deflate=True, no_new_id=True)


def write_pdf(path: Path, blocks: Sequence[str], title: str, mono: bool = False, breaks: Sequence[int] = ()) -> None:
    """A born-digital PDF with a real text layer."""
    pdf = pymupdf.open()
    _lay_out(pdf, blocks, mono, breaks)
    _save_pdf(pdf, path, title)
    pdf.close()


def write_scan(path: Path, blocks: Sequence[str], seed: int, mono: bool = False, breaks: Sequence[int] = ()) -> None:
    """An image-only PDF, as a flatbed scanner makes: grey paper, dust specks, a page set slightly crooked."""
    rng = random.Random(seed)
    layout = pymupdf.open()
    pages = _lay_out(layout, blocks, mono, breaks)
    out = pymupdf.open()
    for number in range(pages):
        paper = pymupdf.open()
        sheet = paper.new_page(width=PAGE_W, height=PAGE_H)
        shade = rng.uniform(0.86, 0.92)
        sheet.draw_rect(sheet.rect, color=None, fill=(shade, shade, shade - 0.02))
        for _ in range(rng.randrange(80, 160)):
            x, y = rng.uniform(0, PAGE_W), rng.uniform(0, PAGE_H)
            sheet.draw_circle((x, y), rng.uniform(0.2, 0.7), color=None, fill=(0.55, 0.55, 0.55))
        sheet.show_pdf_page(sheet.rect, layout, number)  # the laid-out text, over the paper
        matrix = pymupdf.Matrix(SCAN_DPI / 72, SCAN_DPI / 72).prerotate(rng.uniform(-1.2, 1.2))
        png = sheet.get_pixmap(matrix=matrix, colorspace=pymupdf.csGRAY).tobytes("png")
        paper.close()
        target = out.new_page(width=PAGE_W, height=PAGE_H)
        target.insert_image(target.rect, stream=png)
    layout.close()
    _save_pdf(out, path, "")
    out.close()


def write_docx(path: Path, blocks: Sequence[str], title: str, author: str) -> None:
    """A Word document with headings and paragraphs."""
    import docx

    d = docx.Document()
    props = d.core_properties
    props.title, props.author, props.last_modified_by, props.comments = title, author, "", ""
    props.revision = 1
    props.created = props.modified = FIXED_TIME
    for block in blocks:
        if block.startswith("## "):
            d.add_heading(block[3:], level=2)
        elif block.startswith("# "):
            d.add_heading(block[2:], level=1)
        else:
            d.add_paragraph(block)
    buf = io.BytesIO()
    d.save(buf)
    path.write_bytes(_normalise_zip(buf.getvalue()))


def _normalise_zip(data: bytes) -> bytes:
    """The same members in the same order with fixed timestamps, so the bytes depend only on the content."""
    out = io.BytesIO()
    with zipfile.ZipFile(io.BytesIO(data)) as src, zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED) as dst:
        for info in src.infolist():
            fixed = zipfile.ZipInfo(info.filename, date_time=FIXED_TIME.timetuple()[:6])
            fixed.compress_type = zipfile.ZIP_DEFLATED
            fixed.external_attr = 0o644 << 16
            dst.writestr(fixed, src.read(info.filename))
    return out.getvalue()
