"""The app and tray icons from resources/icons, with the indexing progress drawn as a ring on top."""

from __future__ import annotations

import sys
from functools import lru_cache
from pathlib import Path

from PySide6.QtCore import QRectF, Qt
from PySide6.QtGui import QColor, QIcon, QPainter, QPen, QPixmap
from PySide6.QtSvg import QSvgRenderer

TRAY_STATES = ("idle", "indexing", "paused", "error")
SIZES = (16, 22, 32, 48, 64, 128)


def resources_dir() -> Path:
    """resources/ next to the package (source checkout) or inside the PyInstaller bundle."""
    bundle = getattr(sys, "_MEIPASS", None)
    if bundle and (Path(bundle) / "resources").is_dir():
        return Path(bundle) / "resources"
    return Path(__file__).resolve().parents[2] / "resources"


def _svg(name: str) -> Path:
    return resources_dir() / "icons" / f"{name}.svg"


def _render(name: str, size: int) -> QPixmap:
    pixmap = QPixmap(size, size)
    pixmap.fill(Qt.GlobalColor.transparent)
    renderer = QSvgRenderer(str(_svg(name)))
    painter = QPainter(pixmap)
    painter.setRenderHint(QPainter.RenderHint.Antialiasing)
    if renderer.isValid():
        renderer.render(painter)
    else:  # a broken install: a plain coloured square still shows that the app runs
        painter.fillRect(pixmap.rect(), QColor("#4f46e5"))
    painter.end()
    return pixmap


@lru_cache(maxsize=None)
def app_icon() -> QIcon:
    icon = QIcon()
    for size in SIZES:
        icon.addPixmap(_render("app", size))
    return icon


def state_icon(state: str, progress: float | None = None) -> QIcon:
    """The tray icon for idle | indexing | paused | error; indexing shows progress (0..1) as a ring."""
    name = f"tray-{state if state in TRAY_STATES else 'idle'}"
    if progress is None or state != "indexing":
        return _cached_state_icon(name)
    icon = QIcon()
    step = round(max(0.0, min(1.0, progress)) * 20) / 20  # 5% steps: fewer redraws of the tray
    for size in SIZES:
        icon.addPixmap(_with_ring(_render(name, size), step))
    return icon


@lru_cache(maxsize=None)
def _cached_state_icon(name: str) -> QIcon:
    icon = QIcon()
    for size in SIZES:
        icon.addPixmap(_render(name, size))
    return icon


def _with_ring(pixmap: QPixmap, fraction: float) -> QPixmap:
    size = pixmap.width()
    painter = QPainter(pixmap)
    painter.setRenderHint(QPainter.RenderHint.Antialiasing)
    width = max(1.5, size / 12)
    # The ring sits on the badge (centre 44/64, radius 15/64 of the icon, as in the SVGs).
    centre, radius = size * 44 / 64, size * 15 / 64
    rect = QRectF(centre - radius, centre - radius, 2 * radius, 2 * radius)
    painter.setPen(QPen(QColor("#bfdbfe"), width))
    painter.drawEllipse(rect)
    painter.setPen(QPen(QColor("#22c55e"), width, Qt.PenStyle.SolidLine, Qt.PenCapStyle.RoundCap))
    painter.drawArc(rect, 90 * 16, -int(360 * 16 * fraction))
    painter.end()
    return pixmap
