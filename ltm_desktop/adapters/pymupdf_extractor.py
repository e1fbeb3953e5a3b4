"""PyMuPdfExtractor: PDFs and images, page by page, text layer first and OCR only where it is missing.

A page's text layer is used when it reads as language (core.text_quality); an empty or garbled layer
(typical of scans and broken font encodings) sends that page alone to OCR at the configured dpi.
Images (PNG, JPEG, TIFF with any number of pages) open as documents and are OCR'd at native resolution.
"""

from __future__ import annotations

from pathlib import Path

from ltm_desktop.core.errors import ExtractionError, OcrUnavailable
from ltm_desktop.core.models import Extracted, PageText
from ltm_desktop.core.ports import Ocr
from ltm_desktop.core.text_quality import has_real_text

IMAGE_MIME = {".png": "image/png", ".jpg": "image/jpeg", ".jpeg": "image/jpeg", ".tif": "image/tiff", ".tiff": "image/tiff"}


def _open(path: Path):  # -> pymupdf.Document
    import pymupdf

    try:
        doc = pymupdf.open(path)
    except (pymupdf.FileDataError, RuntimeError, ValueError) as e:
        raise ExtractionError(f"cannot open {path.name}: the file is corrupt or not a {path.suffix[1:].upper()} ({e})") from e
    if doc.needs_pass and not doc.authenticate(""):
        doc.close()
        raise ExtractionError(f"{path.name} is password-protected: save an unprotected copy to index it")
    return doc


class PyMuPdfExtractor:
    def __init__(self, ocr: Ocr, dpi: int = 300) -> None:
        self._ocr = ocr
        self._dpi = dpi

    def _ocr_png(self, png: bytes, number: int) -> PageText:
        reason = self._ocr.is_available()
        if reason:
            raise OcrUnavailable(f"page {number} is a scan and needs OCR, but {reason}")
        result = self._ocr.recognize(png)
        text = result.text.strip()
        if not text:
            return PageText(number, "\n\n", "none", result.confidence)
        return PageText(number, text + "\n\n", "ocr", result.confidence)

    def extract(self, path: Path) -> Extracted:
        suffix = path.suffix.lower()
        if suffix in IMAGE_MIME:
            return self._extract_image(path, IMAGE_MIME[suffix])
        doc = _open(path)
        try:
            pages = []
            for page in doc:
                try:
                    # Text blocks in reading order: the same text as get_text("text", sort=True) up to blank lines and
                    # spacing, at a tenth of the cost (that regroups every word in Python; 12 vs 1.1 ms per page,
                    # the largest cost of ingestion after embedding; see docs/benchmarks.md).
                    text = "\n".join(b[4] for b in page.get_text("blocks", sort=True) if b[6] == 0)
                except RuntimeError as e:
                    raise ExtractionError(f"{path.name}: page {page.number + 1} cannot be read ({e})") from e
                number = page.number + 1
                if has_real_text(text):
                    pages.append(PageText(number, text.strip() + "\n\n", "text"))
                else:
                    png = page.get_pixmap(dpi=self._dpi, colorspace="gray").tobytes("png")
                    pages.append(self._ocr_png(png, number))
            meta = {k: str(v) for k, v in (doc.metadata or {}).items() if v and k in ("title", "author", "subject", "creationDate")}
        finally:
            doc.close()
        if not pages:
            raise ExtractionError(f"{path.name} has no pages")
        title = meta.get("title", "").strip()
        return Extracted(
            pages=tuple(pages), paginated=True, mime="application/pdf",
            title=title if 3 <= len(title) <= 200 else None, metadata=meta,
        )

    def _extract_image(self, path: Path, mime: str) -> Extracted:
        import pymupdf

        doc = _open(path)
        try:
            pages = []
            for page in doc:
                images = page.get_images()
                if images:
                    pix = pymupdf.Pixmap(doc, images[0][0])
                    if pix.alpha or pix.colorspace is None or pix.colorspace.n not in (1, 3):
                        pix = pymupdf.Pixmap(pymupdf.csRGB, pix)
                else:
                    pix = page.get_pixmap(dpi=self._dpi)
                pages.append(self._ocr_png(pix.tobytes("png"), page.number + 1))
        except RuntimeError as e:
            raise ExtractionError(f"cannot decode image {path.name} ({e})") from e
        finally:
            doc.close()
        return Extracted(pages=tuple(pages), paginated=True, mime=mime)
