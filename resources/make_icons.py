"""Render the SVG icons in resources/icons to PNGs (for the installer, docs and desktops that want bitmaps).

Run: QT_QPA_PLATFORM=offscreen python resources/make_icons.py   (the app itself loads the SVGs directly)
"""

from __future__ import annotations

import sys
from pathlib import Path

from PySide6.QtCore import Qt
from PySide6.QtGui import QGuiApplication, QImage, QPainter
from PySide6.QtSvg import QSvgRenderer

ICONS = Path(__file__).resolve().parent / "icons"
SIZES = (16, 22, 32, 48, 64, 128, 256)


def render(svg: Path, size: int) -> QImage:
    image = QImage(size, size, QImage.Format.Format_ARGB32_Premultiplied)
    image.fill(Qt.GlobalColor.transparent)
    painter = QPainter(image)
    painter.setRenderHint(QPainter.RenderHint.Antialiasing)
    QSvgRenderer(str(svg)).render(painter)
    painter.end()
    return image


def main() -> int:
    app = QGuiApplication(sys.argv[:1])  # noqa: F841  (QImage painting needs a Gui application)
    out = ICONS / "png"
    out.mkdir(exist_ok=True)
    for svg in sorted(ICONS.glob("*.svg")):
        for size in SIZES:
            target = out / f"{svg.stem}-{size}.png"
            if not render(svg, size).save(str(target)):
                print(f"could not write {target}", file=sys.stderr)
                return 1
    print(f"wrote {len(SIZES) * len(list(ICONS.glob('*.svg')))} PNGs to {out}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
