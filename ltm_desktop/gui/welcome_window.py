"""First run: watch a folder (Documents, say), see it being indexed, connect Claude Desktop or LM Studio."""

from __future__ import annotations

from pathlib import Path

from PySide6.QtCore import QStandardPaths, Signal
from PySide6.QtWidgets import QFileDialog, QHBoxLayout, QLabel, QProgressBar, QPushButton, QVBoxLayout, QWidget

from ltm_desktop.gui.app_status import AppStatus
from ltm_desktop.gui.icons import app_icon
from ltm_desktop.gui.settings_apps import describe_connect
from ltm_desktop.gui.tasks import run_task
from ltm_desktop.gui.widgets import Feedback, heading, hint

SUGGESTED_APPS = (("claude-desktop", "Claude Desktop"), ("lm-studio", "LM Studio"))


def suggested_folder() -> Path | None:
    """The user's Documents folder, when it exists."""
    location = QStandardPaths.writableLocation(QStandardPaths.StandardLocation.DocumentsLocation)
    return Path(location) if location and Path(location).is_dir() else None


class WelcomeWindow(QWidget):
    folder_watched = Signal(str)
    app_connected = Signal(str, bool)

    def __init__(self, app, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.app = app
        c = app.container
        self.setWindowTitle("Welcome — LTM Desktop")
        self.setWindowIcon(app_icon())
        self.resize(620, 520)
        layout = QVBoxLayout(self)
        title = QLabel("<h2>Welcome to LTM Desktop</h2>")
        layout.addWidget(title)
        layout.addWidget(hint("Your AI apps can search your own documents, and share one memory, without anything "
                              "leaving this computer. Two steps and you are done."))

        layout.addWidget(heading("1. Choose a folder to keep indexed"))
        self.suggested = suggested_folder()
        row = QHBoxLayout()
        can_watch = hasattr(type(c), "watch_folders")
        self.watch_suggested = QPushButton(f"Watch {self.suggested}" if self.suggested else "Watch my Documents")
        self.watch_suggested.setEnabled(can_watch and self.suggested is not None)
        self.watch_suggested.clicked.connect(lambda: self.watch(str(self.suggested)))
        other = QPushButton("Choose another folder…")
        other.setEnabled(can_watch)
        other.clicked.connect(self._choose)
        row.addWidget(self.watch_suggested)
        row.addWidget(other)
        row.addStretch(1)
        layout.addLayout(row)
        self.folder_feedback = Feedback()
        layout.addWidget(self.folder_feedback)
        self.progress_label = QLabel("")
        self.progress = QProgressBar()
        self.progress.setRange(0, 1000)
        self.progress.hide()
        layout.addWidget(self.progress_label)
        layout.addWidget(self.progress)

        layout.addWidget(heading("2. Connect an AI app"))
        layout.addWidget(hint("This adds LTM Desktop to the app's settings and checks that it answers. Restart the app "
                              "afterwards. Other apps (Claude Code, Cursor, VS Code, Codex, Windsurf) are in Settings."))
        apps = QHBoxLayout()
        self.connect_buttons: dict[str, QPushButton] = {}
        for client, label in SUGGESTED_APPS:
            button = QPushButton(f"Connect {label}")
            button.setEnabled(hasattr(type(c), "client_registration"))
            button.clicked.connect(lambda _checked=False, client=client: self.connect_app(client))
            self.connect_buttons[client] = button
            apps.addWidget(button)
        more = QPushButton("Other apps…")
        more.clicked.connect(lambda: app.windows.show("settings", "apps"))
        apps.addWidget(more)
        apps.addStretch(1)
        layout.addLayout(apps)
        self.app_feedback = Feedback()
        layout.addWidget(self.app_feedback)
        layout.addStretch(1)
        done = QPushButton("Done")
        done.setDefault(True)
        done.clicked.connect(self.close)
        end = QHBoxLayout()
        end.addStretch(1)
        end.addWidget(done)
        layout.addLayout(end)
        app.status_changed.connect(self.show_progress)

    def watch(self, folder: str) -> None:
        c = self.app.container
        self.folder_feedback.busy(f"Adding {folder}…")
        run_task(lambda: c.watch_folders.add(folder), self._watched, self.folder_feedback.error, owner=self)

    def _watched(self, watched) -> None:
        self.folder_feedback.ok(f"Watching {watched.path}. Indexing runs in the background; you can close this window.")
        self.folder_watched.emit(watched.path)
        if self.app.watcher is not None:
            self.app.watcher.request_refresh()

    def show_progress(self, status: AppStatus) -> None:
        self.progress_label.setText(status.headline)
        self.progress.setVisible(status.progress is not None)
        if status.progress is not None:
            self.progress.setValue(int(status.progress * 1000))

    def connect_app(self, client: str) -> None:
        c = self.app.container
        self.app_feedback.busy("Connecting and checking…")
        run_task(lambda: c.client_registration.connect(client, "stdio"), lambda o: self._connected(client, o),
                 self.app_feedback.error, owner=self)

    def _connected(self, client: str, outcome) -> None:
        ok, message = describe_connect(outcome)
        (self.app_feedback.ok if ok else self.app_feedback.error)(message)
        self.app_connected.emit(client, ok)

    def _choose(self) -> None:
        folder = QFileDialog.getExistingDirectory(self, "Choose a folder to keep indexed")
        if folder:
            self.watch(folder)

    def closeEvent(self, event) -> None:  # noqa: N802 (Qt override: the welcome is shown once)
        self.app.state.mark_welcomed()
        super().closeEvent(event)
