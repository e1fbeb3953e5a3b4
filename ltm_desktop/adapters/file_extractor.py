"""FileExtractor: picks the extractor for a file by its extension. Picklable, for extraction processes."""

from __future__ import annotations

from pathlib import Path

from ltm_desktop.adapters.office_extractors import DocxExtractor, EmailExtractor, HtmlExtractor
from ltm_desktop.adapters.pymupdf_extractor import IMAGE_MIME, PyMuPdfExtractor
from ltm_desktop.adapters.tesseract_ocr import TesseractOcr
from ltm_desktop.adapters.text_extractor import TextExtractor
from ltm_desktop.core.errors import ExtractionError
from ltm_desktop.core.models import Extracted

SUPPORTED_SUFFIXES = (
    ".pdf", ".txt", ".text", ".md", ".markdown", ".docx", ".html", ".htm", ".eml", *IMAGE_MIME,
)


class FileExtractor:
    def __init__(self, ocr_languages: str = "eng", dpi: int = 300) -> None:
        self.ocr_languages = ocr_languages
        self.dpi = dpi

    def supports(self, path: Path) -> bool:
        return path.suffix.lower() in SUPPORTED_SUFFIXES

    def extract(self, path: Path) -> Extracted:
        suffix = path.suffix.lower()
        if suffix == ".pdf" or suffix in IMAGE_MIME:
            return PyMuPdfExtractor(TesseractOcr(self.ocr_languages), self.dpi).extract(path)
        if suffix in (".txt", ".text", ".md", ".markdown"):
            return TextExtractor().extract(path)
        if suffix == ".docx":
            return DocxExtractor().extract(path)
        if suffix in (".html", ".htm"):
            return HtmlExtractor().extract(path)
        if suffix == ".eml":
            return EmailExtractor().extract(path)
        raise ExtractionError(
            f"unsupported file type {suffix or '(no extension)'}; supported: {', '.join(SUPPORTED_SUFFIXES)}"
        )
