"""The drop window: drag files or folders in to index them now, or to watch the folders; per-file results."""

from __future__ import annotations

import os
from collections.abc import Callable
from pathlib import Path

from PySide6.QtCore import QThreadPool, QUrl, Signal
from PySide6.QtGui import QColor, QDesktopServices, QDragEnterEvent, QDropEvent
from PySide6.QtWidgets import (
    QButtonGroup,
    QFileDialog,
    QFrame,
    QHBoxLayout,
    QLabel,
    QMessageBox,
    QProgressBar,
    QPushButton,
    QRadioButton,
    QTreeWidget,
    QTreeWidgetItem,
    QVBoxLayout,
    QWidget,
)

from ltm_desktop.core.models import Failed, IngestOutcome
from ltm_desktop.gui.icons import app_icon
from ltm_desktop.gui.outcome_text import describe_outcome, summarise
from ltm_desktop.gui.tasks import run_task

LARGE_BATCH_FILES = 2000  # above this, watching (background, resumable) beats a one-off batch
MAX_PREVIEW_ROWS = 5000  # rows listed before a batch starts; beyond it rows appear as files finish
RESULT_COLOURS = {"ingested": "#15803d", "unchanged": "#475569", "moved": "#475569", "copy": "#475569",
                  "skipped": "#b45309", "failed": "#b91c1c", "watching": "#1d4ed8", "waiting": "#64748b",
                  "reading…": "#1d4ed8"}


class DropArea(QFrame):
    """The dashed target that accepts local files and folders."""

    paths_dropped = Signal(list)

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setAcceptDrops(True)
        self.setObjectName("dropArea")
        self.setMinimumHeight(120)
        self._idle_style = "#dropArea { border: 2px dashed #94a3b8; border-radius: 12px; background: #f8fafc; }"
        self.setStyleSheet(self._idle_style)
        layout = QVBoxLayout(self)
        icon = QLabel()
        icon.setPixmap(app_icon().pixmap(40, 40))
        title = QLabel("<b>Drop files or folders here</b>")
        hint = QLabel("PDF, Word, text, Markdown, HTML and scans. Nothing is copied: files are indexed where they are.")
        hint.setStyleSheet("color: #475569;")
        hint.setWordWrap(True)
        for w in (icon, title, hint):
            w.setAlignment(w.alignment() | _center())
            layout.addWidget(w)

    def dragEnterEvent(self, event: QDragEnterEvent) -> None:  # noqa: N802 (Qt override)
        if local_paths(event.mimeData().urls()):
            event.acceptProposedAction()
            self.setStyleSheet("#dropArea { border: 2px dashed #4f46e5; border-radius: 12px; background: #eef2ff; }")

    def dragLeaveEvent(self, event) -> None:  # noqa: N802
        self.setStyleSheet(self._idle_style)

    def dropEvent(self, event: QDropEvent) -> None:  # noqa: N802
        self.setStyleSheet(self._idle_style)
        paths = local_paths(event.mimeData().urls())
        if paths:
            event.acceptProposedAction()
            self.paths_dropped.emit(paths)


def _center():
    from PySide6.QtCore import Qt

    return Qt.AlignmentFlag.AlignHCenter


def local_paths(urls: list[QUrl]) -> list[Path]:
    """The local files among dropped URLs (web links and the like are not ours to index)."""
    return [Path(u.toLocalFile()) for u in urls if u.isLocalFile() and u.toLocalFile()]


class DropWindow(QWidget):
    """Drop target, mode choice (index now / watch), and a table of per-file results."""

    batch_finished = Signal(list)  # list[IngestOutcome]
    batch_failed = Signal(str)
    progress_changed = Signal(int, int)  # done, total
    folder_watched = Signal(str)

    def __init__(
        self,
        container,
        watch_folder: Callable[[str], object] | None,
        pool: QThreadPool,
        parent: QWidget | None = None,
    ) -> None:
        super().__init__(parent)
        self.container = container
        self._watch_folder = watch_folder
        self._pool = pool
        self._rows: dict[str, QTreeWidgetItem] = {}
        self._waiting: list[str] = []  # this batch's files in order, to show which one is being read
        self._next_waiting = 0
        self._running = 0
        # Replaced in tests; asks whether a very large batch should be watched instead: "watch" | "ingest" | "cancel".
        self.ask_large_batch: Callable[[int], str] = self._ask_large_batch
        self.setWindowTitle("Add files — LTM Desktop")
        self.setWindowIcon(app_icon())
        self.resize(760, 520)
        self._build()

    def _build(self) -> None:
        layout = QVBoxLayout(self)
        self.drop_area = DropArea()
        self.drop_area.paths_dropped.connect(self.add_paths)
        layout.addWidget(self.drop_area)

        row = QHBoxLayout()
        row.addWidget(QLabel("Folders:"))
        self.mode_now = QRadioButton("Index now")
        self.mode_watch = QRadioButton("Watch them (keep in sync as files change)")
        self.mode_now.setChecked(True)
        if self._watch_folder is None:
            self.mode_watch.setEnabled(False)
            self.mode_watch.setToolTip("Watching needs the background worker, which this installation does not have.")
        group = QButtonGroup(self)
        group.addButton(self.mode_now)
        group.addButton(self.mode_watch)
        row.addWidget(self.mode_now)
        row.addWidget(self.mode_watch)
        row.addStretch(1)
        choose_files = QPushButton("Choose files…")
        choose_files.clicked.connect(self._choose_files)
        choose_folder = QPushButton("Choose folder…")
        choose_folder.clicked.connect(self._choose_folder)
        row.addWidget(choose_files)
        row.addWidget(choose_folder)
        layout.addLayout(row)

        self.progress = QProgressBar()
        self.progress.setFormat("%v of %m files")
        self.progress.hide()
        layout.addWidget(self.progress)
        self.summary = QLabel("")
        self.summary.setWordWrap(True)
        layout.addWidget(self.summary)

        self.table = QTreeWidget()
        self.table.setHeaderLabels(["File", "Result", "Detail"])
        self.table.setRootIsDecorated(False)
        self.table.setColumnWidth(0, 260)
        self.table.setColumnWidth(1, 90)
        self.table.itemDoubleClicked.connect(self._open_item)
        layout.addWidget(self.table, 1)

    # ---- entry points -------------------------------------------------------------------------------

    def add_paths(self, paths: list[Path]) -> None:
        """Handle dropped or chosen paths according to the chosen mode."""
        paths = [Path(os.path.abspath(p)) for p in paths]
        gone = [p for p in paths if not p.exists()]
        for p in gone:
            self._set_row(str(p), "failed", "it no longer exists (moved or deleted after it was dropped)")
        paths = [p for p in paths if p.exists()]
        if self.mode_watch.isChecked() and self._watch_folder is not None:
            for folder in [p for p in paths if p.is_dir()]:
                self._watch(folder)
            paths = [p for p in paths if not p.is_dir()]
        if paths:
            self._plan_ingest(paths)

    def outcome_rows(self) -> dict[str, tuple[str, str]]:
        """Path -> (result, detail) as the table shows them."""
        return {path: (item.text(1), item.text(2)) for path, item in self._rows.items()}

    # ---- watching -----------------------------------------------------------------------------------

    def _watch(self, folder: Path) -> None:
        self._set_row(str(folder), "waiting", "adding to watched folders…")
        run_task(
            lambda: self._watch_folder(str(folder)),
            lambda _result: self._watched(folder),
            lambda msg: self._set_row(str(folder), "failed", msg), owner=self)

    def _watched(self, folder: Path) -> None:
        self._set_row(str(folder), "watching", "the worker indexes it in the background and keeps it in sync")
        self.folder_watched.emit(str(folder))

    # ---- ingesting ----------------------------------------------------------------------------------

    def _plan_ingest(self, paths: list[Path]) -> None:
        self.summary.setText("Looking for files…")
        run_task(
            lambda: self.container.ingest.list_files(paths),
            lambda files: self._confirm_and_ingest(paths, files),
            self._failed, owner=self)

    def _confirm_and_ingest(self, paths: list[Path], files: list[tuple[Path, Path]]) -> None:
        if len(files) > LARGE_BATCH_FILES and self._watch_folder is not None and any(p.is_dir() for p in paths):
            choice = self.ask_large_batch(len(files))
            if choice == "cancel":
                self.summary.setText("Cancelled.")
                return
            if choice == "watch":
                for folder in [p for p in paths if p.is_dir()]:
                    self._watch(folder)
                paths = [p for p in paths if not p.is_dir()]
                files = [(f, r) for f, r in files if f in paths]
                if not paths:
                    self.summary.setText("")
                    return
        if not files:
            self.summary.setText("No files to index there (only temporary or system files, or empty folders).")
            return
        self._waiting, self._next_waiting = [], 0
        if len(files) <= MAX_PREVIEW_ROWS:
            for f, _root in files:
                self._set_row(str(f), "waiting", "")
                self._waiting.append(str(f))
        self._running += 1
        self.progress.setRange(0, len(files))
        self.progress.setValue(0)
        self.progress.show()
        self.summary.setText(f"Indexing {len(files):,} file{'s' if len(files) != 1 else ''}…")
        self._mark_next_reading()
        run_task(
            lambda report: self.container.ingest.ingest_paths(paths, lambda d, t, o: report((d, t, o))),
            self._finished,
            self._failed,
            self._on_progress,
            pool=self._pool, owner=self)

    def _on_progress(self, update: tuple[int, int, IngestOutcome]) -> None:
        done, total, outcome = update
        result, detail = describe_outcome(outcome)
        self._set_row(outcome.path, result, detail)
        self.progress.setRange(0, total)
        self.progress.setValue(done)
        self._mark_next_reading()
        self.progress_changed.emit(done, total)

    def _finished(self, outcomes: list[IngestOutcome]) -> None:
        self._running -= 1
        self.progress.hide()
        failed = sum(isinstance(o, Failed) for o in outcomes)
        hint = " Double-click a row to open the file." if failed else ""
        self.summary.setText(f"Done: {summarise(outcomes)}.{hint}")
        self.batch_finished.emit(outcomes)

    def _failed(self, message: str) -> None:
        self._running = max(0, self._running - 1)
        self.progress.hide()
        self.summary.setText(f"<span style='color:#b91c1c'>Could not index: {message}</span>")
        self.batch_failed.emit(message)

    def _ask_large_batch(self, count: int) -> str:
        box = QMessageBox(self)
        box.setWindowTitle("A large folder")
        box.setText(f"This adds {count:,} files.")
        box.setInformativeText(
            "Watching the folder is better for this many: it runs in the background, survives restarts, "
            "and keeps the index in sync when files change."
        )
        watch = box.addButton("Watch the folder", QMessageBox.ButtonRole.AcceptRole)
        now = box.addButton("Index now anyway", QMessageBox.ButtonRole.DestructiveRole)
        box.addButton(QMessageBox.StandardButton.Cancel)
        box.exec()
        return "watch" if box.clickedButton() is watch else "ingest" if box.clickedButton() is now else "cancel"

    # ---- table --------------------------------------------------------------------------------------

    def _set_row(self, path: str, result: str, detail: str) -> None:
        item = self._rows.get(path)
        if item is None:
            item = QTreeWidgetItem([Path(path).name or path, "", ""])
            item.setToolTip(0, path)
            self.table.addTopLevelItem(item)
            self._rows[path] = item
        item.setText(1, result)
        item.setText(2, detail)
        item.setToolTip(2, detail)
        item.setForeground(1, QColor(RESULT_COLOURS.get(result, "#0f172a")))

    def _mark_next_reading(self) -> None:
        while self._next_waiting < len(self._waiting):
            item = self._rows[self._waiting[self._next_waiting]]
            if item.text(1) == "waiting":
                item.setText(1, "reading…")
                item.setForeground(1, QColor(RESULT_COLOURS["reading…"]))
                return
            if item.text(1) != "reading…":
                self._next_waiting += 1
            else:
                return

    def _open_item(self, item: QTreeWidgetItem) -> None:
        path = item.toolTip(0)
        if os.path.exists(path):
            QDesktopServices.openUrl(QUrl.fromLocalFile(path))

    def _choose_files(self) -> None:
        files, _ = QFileDialog.getOpenFileNames(self, "Add files to your index")
        if files:
            self.add_paths([Path(f) for f in files])

    def _choose_folder(self) -> None:
        folder = QFileDialog.getExistingDirectory(self, "Add a folder to your index")
        if folder:
            self.add_paths([Path(folder)])
