"""The Memory tab: browse, search, edit, forget and restore the memories every connected AI shares."""

from __future__ import annotations

import html

from PySide6.QtCore import Qt, Signal
from PySide6.QtWidgets import (
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QPlainTextEdit,
    QPushButton,
    QSplitter,
    QTreeWidget,
    QTreeWidgetItem,
    QVBoxLayout,
    QWidget,
)

from ltm_desktop.core.models import LOCAL_OWNER
from ltm_desktop.gui.tasks import run_task

LIST_LIMIT = 50
FORGOTTEN_SCAN_LIMIT = 200


def forgotten_records(memory, limit: int = FORGOTTEN_SCAN_LIMIT) -> list:
    """Forgotten memories that can still be restored, newest first (a scan of the store: fine at desktop sizes)."""
    found = [r for r in memory.store.all_records() if r.forgotten_at is not None]
    found.sort(key=lambda r: r.forgotten_at, reverse=True)
    return found[:limit]


class MemoryTab(QWidget):
    listed = Signal(int)  # number of rows shown
    changed = Signal(str)  # memory id that was saved, forgotten or restored
    failed = Signal(str)

    def __init__(self, container, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.container = container
        self.current_id: str | None = None
        self._mode = "recent"
        self._generation = 0  # a listing answered after a newer one was asked for is dropped
        layout = QVBoxLayout(self)
        row = QHBoxLayout()
        self.query = QLineEdit()
        self.query.setPlaceholderText("Search memories (leave empty to browse the newest)")
        self.query.returnPressed.connect(self.refresh)
        search = QPushButton("Search")
        search.clicked.connect(self.refresh)
        recent = QPushButton("Newest")
        recent.clicked.connect(self.show_recent)
        forgotten = QPushButton("Forgotten")
        forgotten.clicked.connect(self.show_forgotten)
        for w in (self.query, search, recent, forgotten):
            row.addWidget(w, 1 if w is self.query else 0)
        layout.addLayout(row)

        split = QSplitter(Qt.Orientation.Vertical)
        self.table = QTreeWidget()
        self.table.setHeaderLabels(["Memory", "Type", "Author", "Project", "Saved", "State"])
        self.table.setRootIsDecorated(False)
        self.table.setColumnWidth(0, 340)
        self.table.currentItemChanged.connect(lambda item, _prev: self._select(item))
        split.addWidget(self.table)

        detail = QWidget()
        d = QVBoxLayout(detail)
        self.title = QLineEdit()
        self.title.setPlaceholderText("Title (optional)")
        self.content = QPlainTextEdit()
        self.history = QLabel("")
        self.history.setWordWrap(True)
        self.history.setStyleSheet("color: #475569;")
        buttons = QHBoxLayout()
        self.save_button = QPushButton("Save as new version")
        self.save_button.clicked.connect(self.save)
        self.forget_button = QPushButton("Forget")
        self.forget_button.clicked.connect(self.forget)
        self.restore_button = QPushButton("Restore")
        self.restore_button.clicked.connect(self.restore)
        for b in (self.save_button, self.forget_button, self.restore_button):
            b.setEnabled(False)
            buttons.addWidget(b)
        buttons.addStretch(1)
        self.status = QLabel("")
        for w in (self.title, self.content, self.history):
            d.addWidget(w)
        d.addLayout(buttons)
        d.addWidget(self.status)
        split.addWidget(detail)
        layout.addWidget(split, 1)

    # ---- listing ------------------------------------------------------------------------------------

    def refresh(self) -> None:
        q = self.query.text().strip()
        if not q and self._mode == "forgotten":
            self.show_forgotten()
            return
        self._mode = "recent"
        c = self.container
        show = self._latest(self._show_items)
        if q:
            run_task(lambda: c.memory_reader.recall(LOCAL_OWNER, q, limit=LIST_LIMIT).items, show, self._failed, owner=self)
        else:
            run_task(lambda: c.memory_reader.list(LOCAL_OWNER, limit=LIST_LIMIT).items, show, self._failed, owner=self)

    def show_recent(self) -> None:
        self.query.clear()
        self._mode = "recent"
        self.refresh()

    def show_forgotten(self) -> None:
        self._mode = "forgotten"
        c = self.container
        run_task(lambda: forgotten_records(c.memory), self._latest(self._show_forgotten), self._failed, owner=self)

    def _latest(self, show):
        self._generation += 1
        generation = self._generation

        def deliver(result) -> None:
            if generation == self._generation:
                show(result)

        return deliver

    def _show_items(self, items) -> None:
        self.table.clear()
        for item in items:
            v = item.view
            cur = v.current
            row = QTreeWidgetItem([
                (cur.title or item.text).replace("\n", " ")[:200], cur.type, v.author, cur.project or "",
                cur.created_at.strftime("%Y-%m-%d %H:%M"), "active",
            ])
            row.setData(0, Qt.ItemDataRole.UserRole, v.id)
            self.table.addTopLevelItem(row)
        self.status.setText("" if items else "No memories yet: the AI apps you connect add them with memory_remember.")
        self.listed.emit(len(items))

    def _show_forgotten(self, records) -> None:
        self.table.clear()
        for r in records:
            cur = r.current
            row = QTreeWidgetItem([
                (cur.title or cur.content).replace("\n", " ")[:200], cur.type, r.author, cur.project or "",
                cur.created_at.strftime("%Y-%m-%d %H:%M"), "forgotten",
            ])
            row.setData(0, Qt.ItemDataRole.UserRole, r.id)
            self.table.addTopLevelItem(row)
        self.status.setText("" if records else "Nothing forgotten.")
        self.listed.emit(len(records))

    # ---- one memory ---------------------------------------------------------------------------------

    def _select(self, item: QTreeWidgetItem | None) -> None:
        if item is None:
            return
        memory_id = item.data(0, Qt.ItemDataRole.UserRole)
        c = self.container
        run_task(lambda: c.memory.get(LOCAL_OWNER, memory_id), self._show_detail, self._failed, owner=self)

    def _show_detail(self, detail) -> None:
        record = detail.record
        cur = record.current
        self.current_id = record.id
        self.title.setText(cur.title or "")
        self.content.setPlainText(cur.content)
        versions = "; ".join(
            f"v{v.version} by {html.escape(v.author)} ({v.transport}) {v.created_at:%Y-%m-%d %H:%M}" for v in record.versions
        )
        state = detail.status
        if detail.restorable_until is not None:
            state += f", restorable until {detail.restorable_until:%Y-%m-%d}"
        self.history.setText(f"<b>{html.escape(record.id)}</b> · {state} · versions: {versions}")
        editable = record.session_key is None and state.startswith("active")
        self.save_button.setEnabled(editable)
        self.forget_button.setEnabled(detail.status != "forgotten")
        self.restore_button.setEnabled(detail.status == "forgotten")

    def save(self) -> None:
        memory_id, content, title = self.current_id, self.content.toPlainText(), self.title.text().strip()
        c = self.container
        run_task(lambda: c.memory.update(LOCAL_OWNER, memory_id, content, title=title or None),
                 lambda v: self._done(memory_id, f"Saved as version {v.version}."), self._failed, owner=self)

    def forget(self) -> None:
        memory_id = self.current_id
        c = self.container
        run_task(lambda: c.memory.forget(LOCAL_OWNER, memory_id),
                 lambda d: self._done(memory_id, f"Forgotten; restorable until {d.restorable_until:%Y-%m-%d}."), self._failed, owner=self)

    def restore(self) -> None:
        memory_id = self.current_id
        c = self.container
        run_task(lambda: c.memory.restore(LOCAL_OWNER, memory_id), lambda d: self._done(memory_id, "Restored."), self._failed, owner=self)

    def _done(self, memory_id: str, message: str) -> None:
        self.status.setText(message)
        self.changed.emit(memory_id)
        self.refresh()

    def _failed(self, message: str) -> None:
        self.status.setText(f"<span style='color:#b91c1c'>{html.escape(message)}</span>")
        self.failed.emit(message)
