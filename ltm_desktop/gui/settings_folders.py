"""Settings → Watched folders: add, remove, and the ignore patterns of each folder."""

from __future__ import annotations

from collections.abc import Callable

from PySide6.QtCore import Qt, Signal
from PySide6.QtWidgets import (
    QFileDialog,
    QHBoxLayout,
    QLineEdit,
    QMessageBox,
    QPushButton,
    QTreeWidget,
    QTreeWidgetItem,
    QVBoxLayout,
    QWidget,
)

from ltm_desktop.gui.tasks import run_task
from ltm_desktop.gui.widgets import Feedback, heading, hint


def parse_globs(text: str) -> list[str]:
    """'*.log, drafts/*' -> ['*.log', 'drafts/*'] (commas or new lines separate patterns)."""
    return [g.strip() for g in text.replace("\n", ",").split(",") if g.strip()]


class FoldersPage(QWidget):
    folders_listed = Signal(list)
    done = Signal(str)
    failed = Signal(str)

    def __init__(self, app, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.app = app
        self.available = hasattr(type(app.container), "watch_folders")
        # Replaced in tests: "hide" (documents leave search), "keep" (stay searchable) or "cancel".
        self.confirm_remove: Callable[[str], str] = self._confirm_remove
        layout = QVBoxLayout(self)
        layout.addWidget(heading("Watched folders"))
        layout.addWidget(hint(
            "Files in these folders are indexed in the background and kept in sync: new and changed files are added, "
            "deleted ones leave search. Nothing is copied or moved."
        ))
        self.table = QTreeWidget()
        self.table.setHeaderLabels(["Folder", "State", "Ignored", "Note"])
        self.table.setRootIsDecorated(False)
        self.table.setColumnWidth(0, 280)
        self.table.currentItemChanged.connect(lambda item, _p: self._selected(item))
        layout.addWidget(self.table, 1)
        row = QHBoxLayout()
        self.add_button = QPushButton("Add folder…")
        self.add_button.clicked.connect(self._choose_folder)
        self.remove_button = QPushButton("Remove")
        self.remove_button.clicked.connect(self.remove_selected)
        row.addWidget(self.add_button)
        row.addWidget(self.remove_button)
        row.addStretch(1)
        layout.addLayout(row)
        layout.addWidget(heading("Ignore patterns of the selected folder"))
        layout.addWidget(hint("Comma-separated globs matched against file names and paths, e.g. *.log, drafts/*, */private/*. "
                              "Temporary and lock files (~$*, *.part, .git/ …) are always ignored."))
        ignore_row = QHBoxLayout()
        self.ignore = QLineEdit()
        self.ignore.setPlaceholderText("*.log, drafts/*")
        self.save_ignore = QPushButton("Save patterns")
        self.save_ignore.clicked.connect(self.save_patterns)
        ignore_row.addWidget(self.ignore, 1)
        ignore_row.addWidget(self.save_ignore)
        layout.addLayout(ignore_row)
        self.feedback = Feedback()
        layout.addWidget(self.feedback)
        if not self.available:
            for w in (self.add_button, self.remove_button, self.save_ignore, self.ignore):
                w.setEnabled(False)
            self.feedback.info("Watching folders needs the background worker, which this installation does not include.")

    # ---- reading ------------------------------------------------------------------------------------

    def refresh(self) -> None:
        if not self.available:
            return
        c = self.app.container
        run_task(lambda: c.watch_folders.list(), self._show, self.feedback.error, owner=self)

    def _show(self, folders) -> None:
        current = self.selected_path()
        self.table.clear()
        for f in folders:
            note = f.reason or (f"last scanned {f.scanned_at[:16].replace('T', ' ')}" if f.scanned_at else "waiting for the worker")
            item = QTreeWidgetItem([f.path, f.state, ", ".join(f.ignore), note])
            item.setData(0, Qt.ItemDataRole.UserRole, f.path)
            item.setData(2, Qt.ItemDataRole.UserRole, list(f.ignore))
            item.setToolTip(0, f.path)
            item.setToolTip(3, note)
            self.table.addTopLevelItem(item)
            if f.path == current:
                self.table.setCurrentItem(item)
        if not folders:
            self.feedback.info("No folder is watched yet. Add one, for example your Documents folder.")
        self.folders_listed.emit(list(folders))

    def selected_path(self) -> str | None:
        item = self.table.currentItem()
        return item.data(0, Qt.ItemDataRole.UserRole) if item else None

    def _selected(self, item: QTreeWidgetItem | None) -> None:
        self.ignore.setText(", ".join(item.data(2, Qt.ItemDataRole.UserRole) or []) if item else "")

    # ---- changing -----------------------------------------------------------------------------------

    def add_folder(self, path: str, ignore: list[str] | None = None) -> None:
        c = self.app.container
        self.feedback.busy(f"Adding {path}…")
        run_task(lambda: c.watch_folders.add(path, ignore or []),
                 lambda f: self._changed(f"Watching {f.path}: the worker is indexing it in the background."),
                 self._failed, owner=self)

    def save_patterns(self) -> None:
        path = self.selected_path()
        if not path:
            self.feedback.error("Select a folder first.")
            return
        globs = parse_globs(self.ignore.text())
        c = self.app.container
        run_task(lambda: c.watch_folders.add(path, globs),
                 lambda f: self._changed(f"Saved: {len(f.ignore)} ignore pattern(s) for {f.path}."), self._failed, owner=self)

    def remove_selected(self) -> None:
        path = self.selected_path()
        if not path:
            self.feedback.error("Select a folder first.")
            return
        choice = self.confirm_remove(path)
        if choice == "cancel":
            return
        c = self.app.container
        keep = choice == "keep"
        run_task(lambda: c.watch_folders.remove(path, keep_documents=keep),
                 lambda n: self._changed(f"Stopped watching {path}" + ("; its documents stay searchable." if keep else
                                         f"; {n} document(s) left search.")), self._failed, owner=self)

    def _changed(self, message: str) -> None:
        self.feedback.ok(message)
        self.done.emit(message)
        if self.app.watcher is not None:
            self.app.watcher.request_refresh()
        self.refresh()

    def _failed(self, message: str) -> None:
        self.feedback.error(message)
        self.failed.emit(message)

    def _choose_folder(self) -> None:
        folder = QFileDialog.getExistingDirectory(self, "Watch a folder")
        if folder:
            self.add_folder(folder, parse_globs(self.ignore.text()) if not self.selected_path() else [])

    def _confirm_remove(self, path: str) -> str:
        box = QMessageBox(self)
        box.setWindowTitle("Stop watching")
        box.setText(f"Stop watching {path}?")
        box.setInformativeText("Its documents can leave search (they are kept hidden for a few days, so moving the "
                               "folder back costs nothing), or stay searchable as they are now.")
        hide = box.addButton("Stop and remove from search", QMessageBox.ButtonRole.DestructiveRole)
        keep = box.addButton("Stop, keep searchable", QMessageBox.ButtonRole.AcceptRole)
        box.addButton(QMessageBox.StandardButton.Cancel)
        box.exec()
        return "hide" if box.clickedButton() is hide else "keep" if box.clickedButton() is keep else "cancel"
