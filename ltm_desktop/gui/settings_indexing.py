"""Settings → Indexing & OCR: OCR languages, file size cap, extraction processes, and the embedding model."""

from __future__ import annotations

import dataclasses
import re
from collections.abc import Callable

from PySide6.QtCore import Signal
from PySide6.QtWidgets import (
    QComboBox,
    QFormLayout,
    QHBoxLayout,
    QLineEdit,
    QMessageBox,
    QProgressBar,
    QPushButton,
    QSpinBox,
    QVBoxLayout,
    QWidget,
)

from ltm_desktop.core.errors import KnownError
from ltm_desktop.gui.tasks import run_task
from ltm_desktop.gui.widgets import Feedback, heading, hint

LANGS = re.compile(r"^[A-Za-z_]+(\+[A-Za-z_]+)*$")
PASSAGES_PER_SECOND = 100  # measured on 2 cores with the bundled int8 model; a rough guide for the estimate
KNOWN_MODELS = ("local/bge-small-en-v1.5-int8", "BAAI/bge-small-en-v1.5", "sentence-transformers/paraphrase-multilingual-MiniLM-L12-v2",
                "intfloat/multilingual-e5-large")


def reembed_estimate(chunks: int, per_second: float = PASSAGES_PER_SECOND) -> str:
    """What changing the model costs, in words."""
    seconds = chunks / per_second
    took = f"about {max(1, round(seconds / 60))} minute(s)" if seconds >= 60 else "under a minute"
    return (f"Changing the model re-embeds every passage: {chunks:,} passages, {took} on this computer. "
            "Until that finishes, search refuses to mix the two models and asks you to wait.")


def reembed_paused(container, report) -> int:
    """Re-embed everything with the queue paused (new files would otherwise meet a half-switched index)."""
    queue = container.job_queue if hasattr(type(container), "job_queue") else None
    was_paused = queue.is_paused() if queue is not None else True
    if queue is not None:
        queue.set_paused(True)
    try:
        return container.reembed_all(lambda done, total: report((done, total)))
    finally:
        if not was_paused:
            queue.set_paused(False)


class IndexingPage(QWidget):
    applied = Signal(object)  # Settings
    failed = Signal(str)
    reembedded = Signal(int)

    def __init__(self, app, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.app = app
        self._chunks = 0
        # Replaced in tests: confirm a model change (and its re-embedding) before doing it.
        self.confirm_model_change: Callable[[str, str], bool] = self._confirm_model_change
        layout = QVBoxLayout(self)
        layout.addWidget(heading("Reading files"))
        form = QFormLayout()
        self.ocr = QLineEdit()
        self.ocr.setPlaceholderText("eng+spa")
        form.addRow("OCR languages:", self.ocr)
        self.max_mb = QSpinBox()
        self.max_mb.setRange(1, 100_000)
        self.max_mb.setSuffix(" MiB")
        form.addRow("Largest file to index:", self.max_mb)
        self.workers = QSpinBox()
        self.workers.setRange(0, 64)
        self.workers.setSpecialValueText("automatic (one per core, minus one)")
        form.addRow("Extraction processes:", self.workers)
        layout.addLayout(form)
        layout.addWidget(hint("OCR languages are Tesseract codes joined by '+' (eng, spa, deu, fra, chi_sim …); each needs "
                              "its language pack installed. Changes apply to files indexed from now on."))
        self.apply_button = QPushButton("Apply")
        self.apply_button.clicked.connect(self.apply)
        row = QHBoxLayout()
        row.addWidget(self.apply_button)
        row.addStretch(1)
        layout.addLayout(row)

        layout.addWidget(heading("Embedding model"))
        self.model = QComboBox()
        self.model.setEditable(True)
        self.model.addItems(KNOWN_MODELS)
        layout.addWidget(self.model)
        self.consequence = hint("")
        layout.addWidget(self.consequence)
        model_row = QHBoxLayout()
        self.model_button = QPushButton("Change model and re-embed…")
        self.model_button.clicked.connect(self.change_model)
        model_row.addWidget(self.model_button)
        model_row.addStretch(1)
        layout.addLayout(model_row)
        self.progress = QProgressBar()
        self.progress.hide()
        layout.addWidget(self.progress)
        self.feedback = Feedback()
        layout.addWidget(self.feedback)
        layout.addStretch(1)
        self.refresh()

    def refresh(self) -> None:
        s = self.app.container.settings
        self.ocr.setText(s.ocr_languages)
        self.max_mb.setValue(s.max_file_mb)
        self.workers.setValue(s.ingest_workers)
        self.model.setCurrentText(s.embed_model)
        if self.app.facts.store_ready:
            c = self.app.container
            run_task(lambda: int(c.search_index.stats().get("chunks", 0)), self._show_estimate, lambda _m: None, owner=self)
        else:
            self._show_estimate(0)

    def _show_estimate(self, chunks: int) -> None:
        self._chunks = chunks
        self.consequence.setText(
            f"In use: {self.app.container.settings.embed_model}. The bundled model works offline; other fastembed models "
            f"download once (internet needed). {reembed_estimate(chunks)}"
        )

    # ---- plain settings -----------------------------------------------------------------------------

    def apply(self) -> None:
        langs = self.ocr.text().strip()
        if not LANGS.match(langs):
            self._failed(f"OCR languages {langs!r} are not valid: use Tesseract codes joined by '+', e.g. eng+spa")
            return
        changes = {"ocr_languages": langs, "max_file_mb": self.max_mb.value(), "ingest_workers": self.workers.value()}
        container = self.app.container
        self.feedback.busy("Checking the OCR languages…")
        run_task(lambda: container.ocr_check(langs), lambda problem: self._checked(problem, changes), self._failed, owner=self)

    def _checked(self, problem: str | None, changes: dict) -> None:
        if problem:
            self._failed(problem)
            return
        try:
            new = self.app.apply_settings(changes)
        except KnownError as e:
            self._failed(str(e))
            return
        self.feedback.ok("Saved and applied: the worker restarted with the new settings.")
        self.applied.emit(new)

    # ---- model --------------------------------------------------------------------------------------

    def change_model(self) -> None:
        model = self.model.currentText().strip()
        current = self.app.container.settings.embed_model
        if not model or model == current:
            self.feedback.info(f"{current} is already in use.")
            return
        if not self.confirm_model_change(current, model):
            return
        container = self.app.container
        probe_settings = dataclasses.replace(container.settings, embed_model=model)
        self.feedback.busy(f"Loading {model}…")
        # Load the new model before saving anything: a model that cannot load must not break the index.
        run_task(lambda: type(container)(probe_settings).embedder.pin, lambda _pin: self._model_loads(model),
                 self._failed, owner=self)

    def _model_loads(self, model: str) -> None:
        try:
            self.app.apply_settings({"embed_model": model})
        except KnownError as e:
            self._failed(str(e))
            return
        container = self.app.container
        self.progress.setRange(0, max(1, self._chunks))
        self.progress.setValue(0)
        self.progress.show()
        self.feedback.busy(f"Re-embedding with {model}…")
        run_task(lambda report: reembed_paused(container, report), self._reembedded,
                 self._failed, lambda p: (self.progress.setRange(0, max(1, p[1])), self.progress.setValue(p[0])), owner=self)

    def _reembedded(self, count: int) -> None:
        self.progress.hide()
        self.feedback.ok(f"Done: {count:,} passages re-embedded; search uses {self.app.container.settings.embed_model} now.")
        self.reembedded.emit(count)
        self.refresh()

    def _failed(self, message: str) -> None:
        self.progress.hide()
        self.feedback.error(message)
        self.failed.emit(message)

    def _confirm_model_change(self, current: str, new: str) -> bool:
        answer = QMessageBox.question(
            self, "Change the embedding model",
            f"Switch from {current} to {new}?\n\n{reembed_estimate(self._chunks)}\n\nIndexing pauses meanwhile.",
        )
        return answer == QMessageBox.StandardButton.Yes
