"""`ltm desktop`: the Qt application around DesktopApp (single instance, logging, signals, excepthook)."""

from __future__ import annotations

import logging
import logging.handlers
import signal
import sys

from PySide6.QtCore import QTimer
from PySide6.QtWidgets import QApplication

from ltm_desktop.gui.desktop_app import DesktopApp
from ltm_desktop.gui.icons import app_icon
from ltm_desktop.gui.single_instance import SingleInstance, instance_name

log = logging.getLogger(__name__)


def _log_to_file(log_dir) -> None:
    log_dir.mkdir(parents=True, exist_ok=True)
    handler = logging.handlers.RotatingFileHandler(log_dir / "desktop.log", maxBytes=2_000_000, backupCount=1, encoding="utf-8")
    handler.setFormatter(logging.Formatter("%(asctime)s %(levelname)s %(name)s: %(message)s"))
    handler.setLevel(logging.INFO)
    root = logging.getLogger()
    for existing in root.handlers:  # the terminal keeps its level (warnings, or debug with -v)
        if existing.level == logging.NOTSET:
            existing.setLevel(root.level or logging.WARNING)
    root.addHandler(handler)
    root.setLevel(min(root.level or logging.WARNING, logging.INFO))


def _excepthook(kind, value, tb) -> None:
    # A bug in a Qt slot must not kill the tray silently: log it with its traceback and keep running.
    log.error("unhandled error in the desktop app", exc_info=(kind, value, tb))


def run_desktop(container, argv: list[str] | None = None) -> int:
    """Run the tray app until Quit; returns the exit status (0 when another instance was brought forward)."""
    _log_to_file(container.settings.log_dir)
    qapp = QApplication.instance() or QApplication(argv or [sys.argv[0]])
    qapp.setApplicationName("LTM Desktop")
    qapp.setWindowIcon(app_icon())
    qapp.setQuitOnLastWindowClosed(False)
    single = SingleInstance(instance_name(container.settings.home))
    if not single.claim():
        print("ltm: LTM Desktop is already running; it was asked to show itself", file=sys.stderr)
        return 0
    app = DesktopApp(container)
    single.activation_requested.connect(lambda: app.windows.show("search" if app.tray is not None else "status"))
    sys.excepthook = _excepthook
    for sig in (signal.SIGINT, signal.SIGTERM):
        signal.signal(sig, lambda *_: QTimer.singleShot(0, app.quit))
    # Python runs signal handlers only between bytecodes; a idle timer gives it the chance while Qt waits.
    heartbeat = QTimer()
    heartbeat.start(300)
    heartbeat.timeout.connect(lambda: None)
    if app.tray is None:
        log.warning("no system tray on this desktop: running in a normal window")
    app.start()
    code = qapp.exec()
    single.release()
    return code
