"""Small widgets the windows share: a feedback line, a copyable field, a section heading."""

from __future__ import annotations

import html
from collections.abc import Callable

from PySide6.QtCore import Qt
from PySide6.QtGui import QGuiApplication
from PySide6.QtWidgets import QHBoxLayout, QLabel, QLineEdit, QPushButton, QWidget

COLOURS = {"ok": "#15803d", "error": "#b91c1c", "busy": "#1d4ed8", "info": "#475569"}


class Feedback(QLabel):
    """One line that says what just happened: done, busy, or the error with its fix."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setWordWrap(True)
        self.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.kind = "info"
        self.message = ""

    def show_message(self, kind: str, message: str) -> None:
        self.kind, self.message = kind, message
        self.setText(f"<span style='color:{COLOURS[kind]}'>{html.escape(message)}</span>")

    def ok(self, message: str) -> None:
        self.show_message("ok", message)

    def error(self, message: str) -> None:
        self.show_message("error", message)

    def busy(self, message: str) -> None:
        self.show_message("busy", message)

    def info(self, message: str) -> None:
        self.show_message("info", message)


def heading(text: str) -> QLabel:
    label = QLabel(f"<b>{html.escape(text)}</b>")
    label.setStyleSheet("font-size: 14px; margin-top: 6px;")
    return label


def hint(text: str) -> QLabel:
    label = QLabel(text)
    label.setWordWrap(True)
    label.setStyleSheet("color: #475569;")
    return label


class CopyField(QWidget):
    """A read-only line with a Copy button (tokens, URLs, snippets)."""

    def __init__(self, text: str = "", on_copied: Callable[[], None] | None = None, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        row = QHBoxLayout(self)
        row.setContentsMargins(0, 0, 0, 0)
        self.field = QLineEdit(text)
        self.field.setReadOnly(True)
        self.button = QPushButton("Copy")
        self.button.clicked.connect(self.copy)
        self._on_copied = on_copied
        row.addWidget(self.field, 1)
        row.addWidget(self.button)

    def set_text(self, text: str) -> None:
        self.field.setText(text)
        self.button.setEnabled(bool(text))

    def text(self) -> str:
        return self.field.text()

    def copy(self) -> None:
        QGuiApplication.clipboard().setText(self.field.text())
        if self._on_copied:
            self._on_copied()
