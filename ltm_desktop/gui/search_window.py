"""The search window: a question in, hits out (title, path, page, snippet, scores, verdict); plus the Memory tab."""

from __future__ import annotations

import html
import os

from PySide6.QtCore import Qt, Signal
from PySide6.QtGui import QGuiApplication
from PySide6.QtWidgets import (
    QCheckBox,
    QFrame,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QPushButton,
    QScrollArea,
    QTabWidget,
    QVBoxLayout,
    QWidget,
)

from ltm_desktop.core.models import Hit, SearchResult
from ltm_desktop.gui.icons import app_icon
from ltm_desktop.gui.open_file import citation, open_document
from ltm_desktop.gui.tasks import run_task

K = 10
VERDICT_STYLE = {
    "high": ("#dcfce7", "#166534", "High confidence"),
    "medium": ("#fef9c3", "#854d0e", "Medium confidence"),
    "low": ("#fee2e2", "#991b1b", "Low confidence"),
}


def page_text(hit: Hit) -> str:
    if hit.page_from is None:
        return ""
    return f"p. {hit.page_from}" if hit.page_to in (None, hit.page_from) else f"pp. {hit.page_from}–{hit.page_to}"


def score_text(hit: Hit) -> str:
    parts = []
    if hit.rerank_score is not None:
        parts.append(f"rerank {hit.rerank_score:+.2f}")
    if hit.cosine is not None:
        parts.append(f"cosine {hit.cosine:.3f}")
    parts.append(f"fused {hit.fused_score:.4f}")
    return " · ".join(parts)


class HitCard(QFrame):
    """One hit: what it is, where it is, the passage, the scores, and what to do with it."""

    message = Signal(str)

    def __init__(self, rank: int, hit: Hit, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.hit = hit
        self.setObjectName("hitCard")
        self.setStyleSheet("#hitCard { border: 1px solid #e2e8f0; border-radius: 8px; background: white; }")
        layout = QVBoxLayout(self)
        layout.setSpacing(3)
        where = page_text(hit)
        head = QLabel(
            f"<b>{rank}. {html.escape(hit.title)}</b>"
            f" <span style='color:#6366f1'>[{html.escape(hit.doc_type)}]</span>"
            + (f" <span style='color:#0f172a'>{where}</span>" if where else "")
            + (f" <span style='color:#64748b'>— {html.escape(hit.heading)}</span>" if hit.heading else "")
        )
        path = QLabel(f"<span style='color:#64748b'>{html.escape(hit.path)}</span>")
        path.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        snippet = QLabel(hit.snippet)
        snippet.setTextFormat(Qt.TextFormat.PlainText)  # document text is never markup
        snippet.setWordWrap(True)
        snippet.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        scores = QLabel(f"<span style='color:#64748b; font-size:small'>{score_text(hit)}</span>")
        for w in (head, path, snippet, scores):
            layout.addWidget(w)
        if hit.also_at:
            layout.addWidget(QLabel(f"<span style='color:#64748b'>also at: {html.escape(', '.join(hit.also_at))}</span>"))
        buttons = QHBoxLayout()
        self.open_button = QPushButton(f"Open at {where}" if where else "Open")
        self.open_button.clicked.connect(self.open)
        self.copy_button = QPushButton("Copy citation")
        self.copy_button.clicked.connect(self.copy_citation)
        folder = QPushButton("Show folder")
        folder.clicked.connect(self.show_folder)
        buttons.addWidget(self.open_button)
        buttons.addWidget(self.copy_button)
        buttons.addWidget(folder)
        buttons.addStretch(1)
        layout.addLayout(buttons)

    def citation(self) -> str:
        h = self.hit
        return citation(h.title, h.path, h.page_from, h.page_to, h.snippet)

    def copy_citation(self) -> None:
        QGuiApplication.clipboard().setText(self.citation())
        self.message.emit("Citation copied to the clipboard.")

    def open(self) -> None:
        problem = open_document(self.hit.path, self.hit.page_from)
        self.message.emit(problem or f"Opened {os.path.basename(self.hit.path)}.")

    def show_folder(self) -> None:
        problem = open_document(os.path.dirname(self.hit.path))
        if problem:
            self.message.emit(problem)


class DocumentSearchTab(QWidget):
    results_shown = Signal(object)  # SearchResult
    search_failed = Signal(str)

    def __init__(self, container, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.container = container
        self.cards: list[HitCard] = []
        layout = QVBoxLayout(self)
        row = QHBoxLayout()
        self.query = QLineEdit()
        self.query.setPlaceholderText("Ask a question or type keywords, e.g. “when was the boiler serviced?”")
        self.query.returnPressed.connect(self.run_search)
        self.rerank = QCheckBox("Rerank (most accurate)")
        self.rerank.setChecked(True)
        self.button = QPushButton("Search")
        self.button.setDefault(True)
        self.button.clicked.connect(self.run_search)
        row.addWidget(self.query, 1)
        row.addWidget(self.rerank)
        row.addWidget(self.button)
        layout.addLayout(row)
        self.verdict = QLabel("")
        self.verdict.setWordWrap(True)
        self.verdict.hide()
        layout.addWidget(self.verdict)
        self.status = QLabel("")
        self.status.setStyleSheet("color: #475569;")
        layout.addWidget(self.status)
        self.results = QVBoxLayout()
        self.results.addStretch(1)
        holder = QWidget()
        holder.setLayout(self.results)
        scroll = QScrollArea()
        scroll.setWidgetResizable(True)
        scroll.setWidget(holder)
        layout.addWidget(scroll, 1)

    def run_search(self) -> None:
        text = self.query.text()
        if not text.strip():
            self.status.setText("Type a question or some keywords first.")
            return
        self.button.setEnabled(False)
        self.status.setText("Searching…")
        rerank = self.rerank.isChecked()
        run_task(lambda: self.container.search.search(text, k=K, rerank=rerank), self.show_result, self._failed, owner=self)

    def show_result(self, result: SearchResult) -> None:
        self.button.setEnabled(True)
        self._clear()
        bg, fg, label = VERDICT_STYLE[result.confidence]
        basis = {"rerank": "judged by the reranker", "cosine": "judged by vector similarity only", "none": "nothing matched"}[result.confidence_basis]
        self.verdict.setText(f"<b>{label}</b> ({basis}). {html.escape(result.advice)}")
        self.verdict.setStyleSheet(f"background: {bg}; color: {fg}; padding: 8px; border-radius: 6px;")
        self.verdict.show()
        self.status.setText(f"{len(result.hits)} passage{'s' if len(result.hits) != 1 else ''}" if result.hits else "")
        for rank, hit in enumerate(result.hits, start=1):
            card = HitCard(rank, hit)
            card.message.connect(self.status.setText)
            self.cards.append(card)
            self.results.insertWidget(self.results.count() - 1, card)
        self.results_shown.emit(result)

    def _failed(self, message: str) -> None:
        self.button.setEnabled(True)
        self._clear()
        self.verdict.hide()
        self.status.setText(f"<span style='color:#b91c1c'>{html.escape(message)}</span>")
        self.search_failed.emit(message)

    def _clear(self) -> None:
        for card in self.cards:
            card.setParent(None)
            card.deleteLater()
        self.cards = []


class SearchWindow(QWidget):
    """Documents and Memory, one tab each."""

    def __init__(self, container, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setWindowTitle("Search — LTM Desktop")
        self.setWindowIcon(app_icon())
        self.resize(860, 680)
        layout = QVBoxLayout(self)
        self.tabs = QTabWidget()
        self.documents = DocumentSearchTab(container)
        self.tabs.addTab(self.documents, "Documents")
        self.memory = None
        if hasattr(type(container), "memory"):
            from ltm_desktop.gui.memory_tab import MemoryTab

            self.memory = MemoryTab(container)
            self.tabs.addTab(self.memory, "Memory")
        layout.addWidget(self.tabs)

    def focus_query(self) -> None:
        self.tabs.setCurrentWidget(self.documents)
        self.documents.query.setFocus()
        self.documents.query.selectAll()
