"""Settings → General: start at login, where the data lives and how much disk it takes, restart the services."""

from __future__ import annotations

import os
from pathlib import Path

from PySide6.QtCore import QUrl, Signal
from PySide6.QtGui import QDesktopServices
from PySide6.QtWidgets import QCheckBox, QHBoxLayout, QLabel, QPushButton, QVBoxLayout, QWidget

from ltm_desktop.core.errors import KnownError
from ltm_desktop.gui import autostart
from ltm_desktop.gui.tasks import run_task
from ltm_desktop.gui.widgets import Feedback, heading, hint


def folder_bytes(path: Path) -> int:
    """Total size of the files below path (0 when it does not exist); unreadable entries are skipped."""
    total = 0
    stack = [path]
    while stack:
        try:
            with os.scandir(stack.pop()) as entries:
                for entry in entries:
                    try:
                        if entry.is_dir(follow_symlinks=False):
                            stack.append(Path(entry.path))
                        elif entry.is_file(follow_symlinks=False):
                            total += entry.stat(follow_symlinks=False).st_size
                    except OSError:
                        continue
        except OSError:
            continue
    return total


def human_bytes(n: int) -> str:
    size = float(n)
    for unit in ("B", "KB", "MB", "GB"):
        if size < 1000 or unit == "GB":
            return f"{size:.0f} {unit}" if unit == "B" else f"{size:.1f} {unit}"
        size /= 1000
    return f"{size:.1f} TB"


def disk_usage(container) -> list[tuple[str, int]]:
    """(what, bytes) for the database, the model pack and the logs."""
    s = container.settings
    rows = [("Database (index, memories, journal)", folder_bytes(s.data_dir))] if not s.database_url else []
    if s.database_url:
        rows.append(("Database (external; its size there)", int(container.search_index.stats().get("database_bytes", 0))))
    rows.append(("Model pack", folder_bytes(Path(container.models_dir))))
    rows.append(("Logs", folder_bytes(s.log_dir)))
    return rows


class GeneralPage(QWidget):
    usage_shown = Signal(list)
    login_changed = Signal(bool)

    def __init__(self, app, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.app = app
        layout = QVBoxLayout(self)
        layout.addWidget(heading("Start"))
        self.at_login = QCheckBox("Start LTM Desktop when I log in")
        self.at_login.setChecked(autostart.is_enabled())
        self.at_login.toggled.connect(self.set_login)
        layout.addWidget(self.at_login)
        layout.addWidget(heading("Your data"))
        home = app.container.settings.home
        layout.addWidget(hint(f"Everything LTM Desktop keeps is in {home}: the database (your index, memories and the "
                              "journal), the model pack, logs and settings. Your documents stay where they are."))
        row = QHBoxLayout()
        open_folder = QPushButton("Open data folder")
        open_folder.clicked.connect(lambda: QDesktopServices.openUrl(QUrl.fromLocalFile(str(home))))
        row.addWidget(open_folder)
        row.addStretch(1)
        layout.addLayout(row)
        self.usage = QLabel("Measuring disk usage…")
        layout.addWidget(self.usage)
        layout.addWidget(heading("Services"))
        layout.addWidget(hint("The MCP server and the indexing worker run in the background while the app runs. "
                              "Restart them after fixing a problem that made them stop."))
        row2 = QHBoxLayout()
        restart = QPushButton("Restart services")
        restart.clicked.connect(self._restart)
        welcome = QPushButton("Show the welcome again")
        welcome.clicked.connect(lambda: app.windows.show("welcome"))
        row2.addWidget(restart)
        row2.addWidget(welcome)
        row2.addStretch(1)
        layout.addLayout(row2)
        self.feedback = Feedback()
        layout.addWidget(self.feedback)
        layout.addStretch(1)

    def refresh(self) -> None:
        self.at_login.blockSignals(True)
        self.at_login.setChecked(autostart.is_enabled())
        self.at_login.blockSignals(False)
        container = self.app.container
        run_task(lambda: disk_usage(container), self._show_usage, self.feedback.error, owner=self)

    def _show_usage(self, rows: list[tuple[str, int]]) -> None:
        total = sum(n for _, n in rows)
        lines = "".join(f"<tr><td>{what}</td><td align='right'>&nbsp;&nbsp;{human_bytes(n)}</td></tr>" for what, n in rows)
        self.usage.setText(f"<table>{lines}<tr><td><b>Total</b></td><td align='right'><b>{human_bytes(total)}</b></td></tr></table>")
        self.usage_shown.emit(rows)

    def set_login(self, enabled: bool) -> None:
        try:
            autostart.set_enabled(enabled, autostart.launch_command(self.app.container.settings.home))
        except KnownError as e:
            self.feedback.error(str(e))
            return
        self.feedback.ok("LTM Desktop starts when you log in." if enabled else "LTM Desktop no longer starts at login.")
        self.login_changed.emit(enabled)

    def _restart(self) -> None:
        self.app.restart_services()
        self.feedback.ok("Restarting the server and the worker…")
