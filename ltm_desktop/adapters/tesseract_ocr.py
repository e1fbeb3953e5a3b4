"""TesseractOcr: page images to text with per-word confidence, through pytesseract."""

from __future__ import annotations

import io
import shutil

from ltm_desktop.core.errors import OcrUnavailable
from ltm_desktop.core.ports import OcrText

INSTALL_HINT = (
    "install Tesseract: `sudo apt-get install tesseract-ocr tesseract-ocr-eng` (Debian/Ubuntu), "
    "`brew install tesseract` (macOS), or the UB-Mannheim installer (Windows)"
)


class TesseractOcr:
    def __init__(self, languages: str = "eng") -> None:
        self.languages = languages

    def is_available(self) -> str | None:
        import pytesseract

        if shutil.which(pytesseract.pytesseract.tesseract_cmd) is None:
            return f"tesseract is not installed: {INSTALL_HINT}"
        try:
            installed = set(pytesseract.get_languages(config=""))
        except Exception as e:  # a broken install raises TesseractError or OSError
            return f"tesseract does not run ({e}): {INSTALL_HINT}"
        missing = [lang for lang in self.languages.split("+") if lang not in installed]
        if missing:
            pkgs = " ".join(f"tesseract-ocr-{m.replace('_', '-').lower()}" for m in missing)
            return f"tesseract language data missing for {'+'.join(missing)}: `sudo apt-get install {pkgs}`"
        return None

    def version(self) -> str:
        import pytesseract

        return str(pytesseract.get_tesseract_version())

    def recognize(self, png: bytes) -> OcrText:
        import pytesseract
        from PIL import Image

        try:
            image = Image.open(io.BytesIO(png))
            if image.mode not in ("RGB", "L"):
                image = image.convert("RGB")
            data = pytesseract.image_to_data(
                image, lang=self.languages, config="--psm 3", output_type=pytesseract.Output.DICT
            )
        except pytesseract.TesseractNotFoundError as e:
            raise OcrUnavailable(f"tesseract is not installed: {INSTALL_HINT}") from e
        except pytesseract.TesseractError as e:
            raise OcrUnavailable(f"tesseract failed: {e.message.strip()[:200]}") from e
        return _assemble(data)


def _assemble(data: dict[str, list]) -> OcrText:
    """Rebuild lines and paragraphs from tesseract's word boxes; mean confidence over real words."""
    lines: dict[tuple[int, int, int], list[str]] = {}
    confs: list[float] = []
    for i, word in enumerate(data["text"]):
        conf = float(data["conf"][i])
        if not word.strip() or conf < 0:
            continue
        key = (data["block_num"][i], data["par_num"][i], data["line_num"][i])
        lines.setdefault(key, []).append(word)
        confs.append(conf)
    out: list[str] = []
    last_par = None
    for (block, par, _), words in lines.items():
        if last_par is not None and (block, par) != last_par:
            out.append("")
        out.append(" ".join(words))
        last_par = (block, par)
    return OcrText(text="\n".join(out), confidence=round(sum(confs) / len(confs), 1) if confs else 0.0)
