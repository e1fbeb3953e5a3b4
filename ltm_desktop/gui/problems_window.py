"""Files that could not be indexed, with the reason, and what to do: open, show the folder, try again."""

from __future__ import annotations

import html
import os
from dataclasses import dataclass
from pathlib import Path

from PySide6.QtCore import Qt, Signal
from PySide6.QtWidgets import QHBoxLayout, QLabel, QPushButton, QTreeWidget, QTreeWidgetItem, QVBoxLayout, QWidget

from ltm_desktop.gui.icons import app_icon
from ltm_desktop.gui.open_file import open_document
from ltm_desktop.gui.outcome_text import describe_outcome
from ltm_desktop.gui.tasks import run_task

LIMIT = 500


@dataclass(frozen=True)
class Problem:
    path: str
    kind: str  # failed | skipped
    reason: str
    when: str


def read_problems(container) -> list[Problem]:
    """Failed and skipped files from the index's issue list and the worker's queue, newest first, one per path."""
    found: dict[str, Problem] = {}
    if hasattr(container, "worker_status"):
        for job in container.worker_status().failed_files:
            found[job.path] = Problem(job.path, "failed", job.error or "unknown reason", job.updated or "")
    for issue in container.search_index.issues(LIMIT):
        if issue.reason == "temporary or system file":
            continue
        found.setdefault(issue.path, Problem(issue.path, issue.kind, issue.reason, str(issue.at)))
    newest_first = sorted(found.values(), key=lambda p: p.when, reverse=True)
    return sorted(newest_first, key=lambda p: p.kind != "failed")


class ProblemsWindow(QWidget):
    loaded = Signal(int)
    retried = Signal(object)  # IngestOutcome

    def __init__(self, app, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.app = app
        self._select_after_load: str | None = None
        self.setWindowTitle("Files that could not be indexed — LTM Desktop")
        self.setWindowIcon(app_icon())
        self.resize(860, 460)
        layout = QVBoxLayout(self)
        self.table = QTreeWidget()
        self.table.setHeaderLabels(["File", "Problem", "Reason", "When"])
        self.table.setRootIsDecorated(False)
        self.table.setColumnWidth(0, 220)
        self.table.setColumnWidth(1, 70)
        self.table.setColumnWidth(2, 420)
        self.table.currentItemChanged.connect(lambda item, _prev: self._show_detail(item))
        layout.addWidget(self.table, 1)
        self.detail = QLabel("")
        self.detail.setWordWrap(True)
        self.detail.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        layout.addWidget(self.detail)
        row = QHBoxLayout()
        self.open_button = QPushButton("Open file")
        self.open_button.clicked.connect(lambda: self._with_path(lambda p: self._say(open_document(p))))
        self.folder_button = QPushButton("Show folder")
        self.folder_button.clicked.connect(lambda: self._with_path(lambda p: self._say(open_document(os.path.dirname(p)))))
        self.retry_button = QPushButton("Try again")
        self.retry_button.clicked.connect(self.retry)
        refresh = QPushButton("Refresh")
        refresh.clicked.connect(self.refresh)
        for b in (self.open_button, self.folder_button, self.retry_button):
            row.addWidget(b)
        row.addStretch(1)
        row.addWidget(refresh)
        layout.addLayout(row)

    def showEvent(self, event) -> None:  # noqa: N802 (Qt override)
        self.refresh()
        super().showEvent(event)

    def refresh(self) -> None:
        container = self.app.container
        run_task(lambda: read_problems(container), self._show, self._say, owner=self)

    def select_path(self, path: str | None) -> None:
        """Select a file's row (now, or once the list has loaded)."""
        self._select_after_load = path
        self._apply_selection()

    def _show(self, problems: list[Problem]) -> None:
        self.table.clear()
        for p in problems:
            item = QTreeWidgetItem([Path(p.path).name, p.kind, p.reason, p.when[:19].replace("T", " ")])
            item.setData(0, Qt.ItemDataRole.UserRole, p.path)
            item.setToolTip(0, p.path)
            item.setToolTip(2, p.reason)
            self.table.addTopLevelItem(item)
        self.detail.setText("" if problems else "No problems: every file was indexed.")
        self._apply_selection()
        self.loaded.emit(len(problems))

    def _apply_selection(self) -> None:
        if not self._select_after_load:
            return
        for i in range(self.table.topLevelItemCount()):
            item = self.table.topLevelItem(i)
            if item.data(0, Qt.ItemDataRole.UserRole) == self._select_after_load:
                self.table.setCurrentItem(item)
                return

    def selected_path(self) -> str | None:
        item = self.table.currentItem()
        return item.data(0, Qt.ItemDataRole.UserRole) if item else None

    def _show_detail(self, item: QTreeWidgetItem | None) -> None:
        if item is not None:
            self.detail.setText(f"<b>{html.escape(item.toolTip(0))}</b><br>{html.escape(item.text(2))}")

    def _with_path(self, fn) -> None:
        path = self.selected_path()
        if path:
            fn(path)

    def retry(self) -> None:
        path = self.selected_path()
        if not path:
            return
        c = self.app.container
        self.detail.setText(f"Trying {html.escape(Path(path).name)} again…")
        run_task(lambda: c.ingest.ingest_file(Path(path)), self._retried, self._say, pool=self.app.ingest_pool, owner=self)

    def _retried(self, outcome) -> None:
        result, detail = describe_outcome(outcome)
        self.detail.setText(f"<b>{html.escape(Path(outcome.path).name)}</b>: {result}. {html.escape(detail)}")
        self.retried.emit(outcome)
        self.refresh()

    def _say(self, message: str | None) -> None:
        if message:
            self.detail.setText(html.escape(message))
