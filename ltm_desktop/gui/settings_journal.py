"""Settings → Tool-call journal: what each AI app asked, when, how long it took and whether it worked."""

from __future__ import annotations

from PySide6.QtCore import Signal
from PySide6.QtWidgets import (
    QCheckBox,
    QFormLayout,
    QHBoxLayout,
    QPushButton,
    QSpinBox,
    QTreeWidget,
    QTreeWidgetItem,
    QVBoxLayout,
    QWidget,
)

from ltm_desktop.core.errors import KnownError
from ltm_desktop.gui.tasks import run_task
from ltm_desktop.gui.widgets import Feedback, heading, hint

RECENT = 200


class JournalPage(QWidget):
    loaded = Signal(int)
    applied = Signal(object)

    def __init__(self, app, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.app = app
        self.available = hasattr(type(app.container), "journal")
        layout = QVBoxLayout(self)
        layout.addWidget(heading("Last 24 hours"))
        self.summary = QTreeWidget()
        self.summary.setHeaderLabels(["Tool", "App", "Calls", "Errors"])
        self.summary.setRootIsDecorated(False)
        self.summary.setMaximumHeight(150)
        layout.addWidget(self.summary)
        layout.addWidget(heading("Recent calls"))
        self.calls = QTreeWidget()
        self.calls.setHeaderLabels(["When", "Tool", "App", "Took", "Result", "Query"])
        self.calls.setRootIsDecorated(False)
        self.calls.setColumnWidth(0, 150)
        self.calls.setColumnWidth(1, 150)
        layout.addWidget(self.calls, 1)
        refresh = QPushButton("Refresh")
        refresh.clicked.connect(self.refresh)
        row = QHBoxLayout()
        row.addStretch(1)
        row.addWidget(refresh)
        layout.addLayout(row)
        layout.addWidget(heading("What is recorded"))
        form = QFormLayout()
        self.log_queries = QCheckBox("Also record the query text of searches")
        form.addRow(self.log_queries)
        self.days = QSpinBox()
        self.days.setRange(1, 3650)
        self.days.setSuffix(" days")
        form.addRow("Keep the journal for:", self.days)
        layout.addLayout(form)
        layout.addWidget(hint("Without query text, the journal keeps only the tool, the app, the time and the outcome."))
        save = QPushButton("Apply")
        save.clicked.connect(self.apply)
        row2 = QHBoxLayout()
        row2.addWidget(save)
        row2.addStretch(1)
        layout.addLayout(row2)
        self.feedback = Feedback()
        layout.addWidget(self.feedback)

    def refresh(self) -> None:
        s = self.app.container.settings
        self.log_queries.setChecked(s.log_queries)
        self.days.setValue(s.journal_days)
        if not self.available or not self.app.facts.store_ready:
            return
        c = self.app.container
        run_task(lambda: (c.journal.summary(24), c.journal.recent(RECENT)), self._show, self.feedback.error, owner=self)

    def _show(self, data) -> None:
        summary, recent = data
        self.summary.clear()
        for tool, client, calls, errors in summary:
            self.summary.addTopLevelItem(QTreeWidgetItem([tool, client, str(calls), str(errors)]))
        self.calls.clear()
        for call in recent:
            result = "ok" if call.ok else f"error: {call.error or ''}"
            item = QTreeWidgetItem([(call.at or "")[:19].replace("T", " "), call.tool, call.client,
                                    f"{call.duration_ms:.0f} ms", result, call.query or ""])
            item.setToolTip(4, result)
            self.calls.addTopLevelItem(item)
        if not recent:
            self.feedback.info("No tool calls yet: connect an AI app and ask it something about your documents.")
        self.loaded.emit(len(recent))

    def apply(self) -> None:
        try:
            new = self.app.apply_settings({"log_queries": self.log_queries.isChecked(), "journal_days": self.days.value()})
        except KnownError as e:
            self.feedback.error(str(e))
            return
        self.feedback.ok("Saved; the server restarted with it.")
        self.applied.emit(new)
