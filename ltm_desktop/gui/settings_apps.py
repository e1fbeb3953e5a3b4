"""Settings → AI apps: one-click connect per app (written, read back, verified), or a snippet to paste by hand."""

from __future__ import annotations

from PySide6.QtCore import Qt, QUrl, Signal
from PySide6.QtGui import QDesktopServices, QGuiApplication
from PySide6.QtWidgets import (
    QComboBox,
    QDialog,
    QDialogButtonBox,
    QHBoxLayout,
    QPlainTextEdit,
    QPushButton,
    QTreeWidget,
    QTreeWidgetItem,
    QVBoxLayout,
    QWidget,
)

from ltm_desktop.gui.tasks import run_task
from ltm_desktop.gui.widgets import Feedback, heading, hint


def describe_connect(outcome) -> tuple[bool, str]:
    """(ok, message) for a ConnectOutcome."""
    if not hasattr(outcome, "path"):
        return False, outcome.reason
    verify = outcome.verify
    done = f"{outcome.display_name}: {'added to' if outcome.changed else 'already in'} {outcome.path}."
    if outcome.backup:
        done += f" The previous file is saved as {outcome.backup}."
    if verify is None:
        return True, f"{done} {outcome.restart_hint}"
    if hasattr(verify, "problem"):
        return False, f"{done} But the check failed: {verify.problem}. {verify.fix}"
    return True, f"{done} Checked: {len(verify.tools)} tools answered in {verify.seconds:.1f} s. {outcome.restart_hint}"


class SnippetDialog(QDialog):
    """The entry to paste by hand, where it goes, and the app's install link when it has one."""

    def __init__(self, snippet, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setWindowTitle(f"Connect by hand: {snippet.client_id}")
        self.resize(640, 420)
        layout = QVBoxLayout(self)
        layout.addWidget(hint(f"Add this to {snippet.path} ({snippet.format_name}), keeping what is already there:"))
        self.text = QPlainTextEdit(snippet.text)
        self.text.setReadOnly(True)
        layout.addWidget(self.text, 1)
        buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Close)
        copy = buttons.addButton("Copy", QDialogButtonBox.ButtonRole.ActionRole)
        copy.clicked.connect(lambda: QGuiApplication.clipboard().setText(snippet.text))
        if snippet.deeplink:
            link = buttons.addButton("Open install link", QDialogButtonBox.ButtonRole.ActionRole)
            link.clicked.connect(lambda: QDesktopServices.openUrl(QUrl(snippet.deeplink)))
        buttons.rejected.connect(self.reject)
        layout.addWidget(buttons)


class AppsPage(QWidget):
    listed = Signal(list)  # ClientStatus values
    connected = Signal(bool, str)  # ok, message
    snippet_ready = Signal(object)

    def __init__(self, app, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.app = app
        self.available = hasattr(type(app.container), "client_registration")
        self.show_snippets = True  # tests switch the dialog off and read snippet_ready instead
        layout = QVBoxLayout(self)
        layout.addWidget(heading("Connect your AI apps"))
        layout.addWidget(hint(
            "Connect writes LTM Desktop into the app's own config file (other entries are kept, a backup is made), "
            "reads it back and runs a real check. Restart the app afterwards. Local apps start the server themselves "
            "(stdio); HTTP uses the running server with a token made for that app."
        ))
        self.table = QTreeWidget()
        self.table.setHeaderLabels(["App", "Installed", "Connected", "Config file"])
        self.table.setRootIsDecorated(False)
        self.table.setColumnWidth(0, 150)
        self.table.setColumnWidth(1, 70)
        self.table.setColumnWidth(2, 90)
        layout.addWidget(self.table, 1)
        row = QHBoxLayout()
        self.transport = QComboBox()
        self.transport.addItem("stdio (the app starts the server)", "stdio")
        self.transport.addItem("HTTP (the running server, with a token)", "http")
        self.connect_button = QPushButton("Connect")
        self.connect_button.clicked.connect(self.connect_selected)
        self.remove_button = QPushButton("Remove")
        self.remove_button.clicked.connect(self.remove_selected)
        self.snippet_button = QPushButton("Show snippet…")
        self.snippet_button.clicked.connect(self.snippet_selected)
        for w in (self.transport, self.connect_button, self.remove_button, self.snippet_button):
            row.addWidget(w)
        row.addStretch(1)
        layout.addLayout(row)
        self.feedback = Feedback()
        layout.addWidget(self.feedback)
        if not self.available:
            for b in (self.connect_button, self.remove_button, self.snippet_button):
                b.setEnabled(False)
            self.feedback.info("Connecting apps is not available in this installation.")

    def refresh(self) -> None:
        if self.available:
            c = self.app.container
            run_task(lambda: c.client_registration.statuses(), self._show, self.feedback.error, owner=self)

    def _show(self, statuses) -> None:
        current = self.selected_client()
        self.table.clear()
        for s in statuses:
            item = QTreeWidgetItem([s.display_name, "yes" if s.installed else "no", s.transport or "—", str(s.path)])
            item.setData(0, Qt.ItemDataRole.UserRole, s.client_id)
            item.setToolTip(3, s.detail or str(s.path))
            self.table.addTopLevelItem(item)
            if s.client_id == current:
                self.table.setCurrentItem(item)
        self.listed.emit(list(statuses))

    def select(self, client_id: str) -> None:
        for i in range(self.table.topLevelItemCount()):
            item = self.table.topLevelItem(i)
            if item.data(0, Qt.ItemDataRole.UserRole) == client_id:
                self.table.setCurrentItem(item)

    def selected_client(self) -> str | None:
        item = self.table.currentItem()
        return item.data(0, Qt.ItemDataRole.UserRole) if item else None

    def connect_selected(self) -> None:
        client = self.selected_client()
        if not client:
            self.feedback.error("Select an app first.")
            return
        transport = self.transport.currentData()
        c = self.app.container
        self.feedback.busy(f"Connecting {client} and checking that it works (this starts the server once)…")
        run_task(lambda: c.client_registration.connect(client, transport), self._connected, self._failed, owner=self)

    def _connected(self, outcome) -> None:
        ok, message = describe_connect(outcome)
        (self.feedback.ok if ok else self.feedback.error)(message)
        self.connected.emit(ok, message)
        self.refresh()

    def remove_selected(self) -> None:
        client = self.selected_client()
        if not client:
            self.feedback.error("Select an app first.")
            return
        c = self.app.container
        run_task(lambda: c.client_registration.remove(client), self._removed, self._failed, owner=self)

    def _removed(self, outcome) -> None:
        if not hasattr(outcome, "path"):
            self._failed(outcome.reason)
            return
        revoked = " Its token was revoked." if outcome.token_revoked else ""
        self.feedback.ok(f"Removed from {outcome.path}.{revoked}" if outcome.changed else f"It was not in {outcome.path}.")
        self.refresh()

    def snippet_selected(self) -> None:
        client = self.selected_client()
        if not client:
            self.feedback.error("Select an app first.")
            return
        transport = self.transport.currentData()
        c = self.app.container
        run_task(lambda: c.client_registration.snippet(client, transport), self._snippet, self._failed, owner=self)

    def _snippet(self, snippet) -> None:
        self.snippet_ready.emit(snippet)
        if self.show_snippets:
            SnippetDialog(snippet, self).open()

    def _failed(self, message: str) -> None:
        self.feedback.error(message)
        self.connected.emit(False, message)

