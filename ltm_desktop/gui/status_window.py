"""The main window used when the desktop has no system tray: the tray's state and menu as a normal window."""

from __future__ import annotations

import html

from PySide6.QtCore import Qt, Signal
from PySide6.QtGui import QCloseEvent
from PySide6.QtWidgets import QGridLayout, QLabel, QProgressBar, QPushButton, QVBoxLayout, QWidget

from ltm_desktop.gui.app_status import AppStatus
from ltm_desktop.gui.icons import app_icon, state_icon

NO_TRAY_NOTICE = (
    "This desktop has no system tray (notification area), so LTM Desktop runs in this window instead. "
    "Closing it quits the app and stops the services your AI apps use."
)


class StatusWindow(QWidget):
    closed = Signal()

    def __init__(self, actions, *, tray_missing: bool, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self._actions = actions
        self.setWindowTitle("LTM Desktop")
        self.setWindowIcon(app_icon())
        self.resize(520, 360)
        layout = QVBoxLayout(self)
        self.notice = QLabel(NO_TRAY_NOTICE)
        self.notice.setWordWrap(True)
        self.notice.setStyleSheet("background: #fef9c3; color: #713f12; padding: 8px; border-radius: 6px;")
        self.notice.setVisible(tray_missing)
        layout.addWidget(self.notice)
        self.icon = QLabel()
        self.headline = QLabel("Starting…")
        self.headline.setStyleSheet("font-size: 16px; font-weight: 600;")
        head = QGridLayout()
        head.addWidget(self.icon, 0, 0, 2, 1)
        head.addWidget(self.headline, 0, 1)
        self.detail = QLabel("")
        self.detail.setWordWrap(True)
        self.detail.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        head.addWidget(self.detail, 1, 1)
        head.setColumnStretch(1, 1)
        layout.addLayout(head)
        self.progress = QProgressBar()
        self.progress.setRange(0, 1000)
        self.progress.hide()
        layout.addWidget(self.progress)
        grid = QGridLayout()
        self.buttons: dict[str, QPushButton] = {}
        for i, (key, text) in enumerate((
            ("search", "Search…"), ("add_files", "Add files…"), ("watched_folders", "Watched folders…"),
            ("toggle_pause", "Pause indexing"), ("connect_app", "Connect an AI app…"), ("settings", "Settings…"),
            ("open_logs", "Open logs"), ("quit", "Quit"),
        )):
            button = QPushButton(text)
            button.clicked.connect(lambda _checked=False, key=key: getattr(self._actions, key)())
            self.buttons[key] = button
            grid.addWidget(button, i // 2, i % 2)
        layout.addLayout(grid)
        layout.addStretch(1)

    def show_status(self, status: AppStatus, paused: bool) -> None:
        self.icon.setPixmap(state_icon("idle" if status.state == "starting" else status.state, status.progress).pixmap(48, 48))
        self.headline.setText(status.headline)
        lines = status.tooltip.split("\n", 1)
        self.detail.setText(html.escape(lines[1] if len(lines) > 1 else "").replace("\n", "<br>"))
        self.progress.setVisible(status.progress is not None)
        if status.progress is not None:
            self.progress.setValue(int(status.progress * 1000))
        self.buttons["toggle_pause"].setText("Resume indexing" if paused else "Pause indexing")

    def closeEvent(self, event: QCloseEvent) -> None:  # noqa: N802 (Qt override)
        # Without a tray this window is the app: closing it quits, as the notice says.
        event.accept()
        self.closed.emit()
        self._actions.quit()
