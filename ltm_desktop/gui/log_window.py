"""Open logs: each child's output (live) and the app's own log, one tab each, plus the log folder."""

from __future__ import annotations

from pathlib import Path

from PySide6.QtCore import QUrl
from PySide6.QtGui import QDesktopServices, QFont
from PySide6.QtWidgets import QHBoxLayout, QLabel, QPlainTextEdit, QPushButton, QTabWidget, QVBoxLayout, QWidget

from ltm_desktop.gui.icons import app_icon

MAX_BLOCKS = 5000
FILE_TAIL_BYTES = 256 * 1024


def read_tail(path: Path, max_bytes: int = FILE_TAIL_BYTES) -> str:
    """The end of a log file (the start of a large file is rarely what anyone is after)."""
    try:
        with path.open("rb") as f:
            f.seek(0, 2)
            size = f.tell()
            f.seek(max(0, size - max_bytes))
            data = f.read()
    except OSError:
        return ""
    text = data.decode("utf-8", errors="replace")
    return text if size <= max_bytes else text.split("\n", 1)[-1]


class LogWindow(QWidget):
    def __init__(self, supervisor, log_dir: Path, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.supervisor = supervisor
        self.log_dir = log_dir
        self.setWindowTitle("Logs — LTM Desktop")
        self.setWindowIcon(app_icon())
        self.resize(900, 560)
        layout = QVBoxLayout(self)
        self.tabs = QTabWidget()
        self.views: dict[str, QPlainTextEdit] = {}
        layout.addWidget(self.tabs, 1)
        row = QHBoxLayout()
        row.addWidget(QLabel(f"Log files are in {log_dir}"))
        row.addStretch(1)
        reload_button = QPushButton("Reload")
        reload_button.clicked.connect(self.reload)
        folder = QPushButton("Open log folder")
        folder.clicked.connect(lambda: QDesktopServices.openUrl(QUrl.fromLocalFile(str(log_dir))))
        row.addWidget(reload_button)
        row.addWidget(folder)
        layout.addLayout(row)
        self.reload()

    def _view(self, name: str, label: str) -> QPlainTextEdit:
        view = self.views.get(name)
        if view is None:
            view = QPlainTextEdit()
            view.setReadOnly(True)
            view.setMaximumBlockCount(MAX_BLOCKS)
            view.setFont(QFont("monospace"))
            self.views[name] = view
            self.tabs.addTab(view, label)
            child = self.supervisor.children.get(name)
            if child is not None:
                child.output_lines.connect(lambda lines, v=view: v.appendPlainText("\n".join(lines)))
        return view

    def reload(self) -> None:
        """Re-read every log file (supervised children first, then any other log in the folder)."""
        names = {name: child.spec.label for name, child in self.supervisor.children.items()}
        for path in sorted(self.log_dir.glob("*.log")) if self.log_dir.exists() else []:
            names.setdefault(path.stem, path.stem)
        for name, label in names.items():
            view = self._view(name, label)
            view.setPlainText(read_tail(self.log_dir / f"{name}.log"))
            view.verticalScrollBar().setValue(view.verticalScrollBar().maximum())

    def showEvent(self, event) -> None:  # noqa: N802 (Qt override: children may have started since)
        self.reload()
        super().showEvent(event)

    def show_log(self, name: str | None) -> None:
        if name in self.views:
            self.tabs.setCurrentWidget(self.views[name])

    def text_of(self, name: str) -> str:
        return self.views[name].toPlainText() if name in self.views else ""
