"""Can Qt start here? Used by `ltm doctor` and by `make run` to choose between the tray and headless mode."""

from __future__ import annotations

import os

from ltm_desktop.core.errors import KnownError

XCB_HINT = (
    "sudo apt-get install libxcb-cursor0 libxkbcommon-x11-0 libxcb-icccm4 libxcb-image0 libxcb-keysyms1 "
    "libxcb-randr0 libxcb-render-util0 libxcb-shape0 libxcb-xinerama0 libxcb-xkb1 libegl1 libgl1 libfontconfig1 libdbus-1-3"
)


def has_display() -> bool:
    return bool(os.environ.get("DISPLAY") or os.environ.get("WAYLAND_DISPLAY")) or os.name == "nt" or _is_macos()


def _is_macos() -> bool:
    import sys

    return sys.platform == "darwin"


def qt_platform_report() -> str:
    """A one-line description of the Qt platform, or a KnownError with the fix."""
    try:
        import PySide6
        from PySide6 import QtCore
    except ImportError as e:
        raise KnownError(f"PySide6 does not import ({e}): reinstall with `pip install pyside6-essentials`") from e
    if not has_display():
        return f"PySide6 {PySide6.__version__} (Qt {QtCore.qVersion()}); no display: `make run` starts headless"
    return f"PySide6 {PySide6.__version__} (Qt {QtCore.qVersion()}); display {os.environ.get('DISPLAY') or os.environ.get('WAYLAND_DISPLAY') or 'native'}"
