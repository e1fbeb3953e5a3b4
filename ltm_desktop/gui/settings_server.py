"""Settings → Server & tokens: the HTTP port and public host, and one bearer token per AI app."""

from __future__ import annotations

import re

from PySide6.QtCore import Qt, Signal
from PySide6.QtWidgets import (
    QCheckBox,
    QFormLayout,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QPushButton,
    QSpinBox,
    QTreeWidget,
    QTreeWidgetItem,
    QVBoxLayout,
    QWidget,
)

from ltm_desktop.core.errors import KnownError
from ltm_desktop.gui.port_check import port_problem, probe_port
from ltm_desktop.gui.tasks import run_task
from ltm_desktop.gui.widgets import CopyField, Feedback, heading, hint

HOST_NAME = re.compile(r"^(?=.{1,253}$)([A-Za-z0-9]([A-Za-z0-9-]{0,61}[A-Za-z0-9])?)(\.[A-Za-z0-9]([A-Za-z0-9-]{0,61}[A-Za-z0-9])?)*$")


def check_public_host(text: str) -> str | None:
    """None when text is empty or a plain host name; otherwise what is wrong with it."""
    if not text:
        return None
    if "://" in text or "/" in text or ":" in text:
        return f"public host {text!r} must be a bare host name such as my-box.example.com (no scheme, port or path)"
    if not HOST_NAME.match(text):
        return f"public host {text!r} is not a valid host name"
    return None


class ServerPage(QWidget):
    applied = Signal(object)  # Settings
    failed = Signal(str)
    token_created = Signal(str, str)  # name, secret (shown once, never logged)
    token_failed = Signal(str)
    tokens_listed = Signal(list)

    def __init__(self, app, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.app = app
        layout = QVBoxLayout(self)
        layout.addWidget(heading("HTTP server for AI apps"))
        layout.addWidget(hint("The MCP server listens on this computer only (127.0.0.1). Apps that cannot start a "
                              "program themselves connect to it with a token; remote ones go through Remote access."))
        self.server_state = QLabel("")
        self.server_state.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        layout.addWidget(self.server_state)
        app.status_changed.connect(lambda _status: self._show_server_state())
        form = QFormLayout()
        self.port = QSpinBox()
        self.port.setRange(1024, 65535)
        form.addRow("Port:", self.port)
        self.public_host = QLineEdit()
        self.public_host.setPlaceholderText("(none) e.g. my-box.tailnet.ts.net")
        form.addRow("Public host name:", self.public_host)
        layout.addLayout(form)
        row = QHBoxLayout()
        self.apply_button = QPushButton("Apply and restart the server")
        self.apply_button.clicked.connect(self.apply)
        row.addWidget(self.apply_button)
        row.addStretch(1)
        layout.addLayout(row)
        self.feedback = Feedback()
        layout.addWidget(self.feedback)

        layout.addWidget(heading("Tokens"))
        layout.addWidget(hint("One token per app: it is the app's identity in the journal and for its memories. "
                              "A token is shown once, when it is created; revoke it to cut that app off at once."))
        self.tokens = QTreeWidget()
        self.tokens.setHeaderLabels(["App", "Created", "Last used"])
        self.tokens.setRootIsDecorated(False)
        self.tokens.setColumnWidth(0, 200)
        self.tokens.setColumnWidth(1, 180)
        layout.addWidget(self.tokens, 1)
        create_row = QHBoxLayout()
        self.token_name = QLineEdit()
        self.token_name.setPlaceholderText("app name, e.g. claude-code")
        self.replace = QCheckBox("replace an existing one")
        self.create_button = QPushButton("Create token")
        self.create_button.clicked.connect(self.create_token)
        self.revoke_button = QPushButton("Revoke selected")
        self.revoke_button.clicked.connect(self.revoke_selected)
        for w in (self.token_name, self.replace, self.create_button, self.revoke_button):
            create_row.addWidget(w, 1 if w is self.token_name else 0)
        layout.addLayout(create_row)
        self.secret = CopyField(on_copied=lambda: self.token_feedback.ok("Token copied. It will not be shown again."))
        self.secret.set_text("")
        layout.addWidget(self.secret)
        self.token_feedback = Feedback()
        layout.addWidget(self.token_feedback)
        self.refresh()

    # ---- server -------------------------------------------------------------------------------------

    def _show_server_state(self) -> None:
        url = self.app.facts.server_url
        problem = next((p for p in self.app.facts.child_problems if "port" in p or "MCP server" in p), None)
        self.server_state.setText(f"Running: {url}" if url else f"Not running: {problem}" if problem else "Not running.")

    def refresh(self) -> None:
        self._show_server_state()
        s = self.app.container.settings
        self.port.setValue(s.http_port)
        self.public_host.setText(s.public_host)
        if hasattr(type(self.app.container), "tokens") and self.app.facts.store_ready:
            c = self.app.container
            run_task(lambda: c.tokens.list(), self._show_tokens, self.token_feedback.error, owner=self)

    def apply(self) -> None:
        port, host = self.port.value(), self.public_host.text().strip()
        problem = check_public_host(host)
        if problem:
            self._failed(problem)
            return
        s = self.app.container.settings
        if port == s.http_port and host == s.public_host:
            self.feedback.info("Nothing changed.")
            return
        self.feedback.busy(f"Checking port {port}…")
        bind = s.http_host
        running_here = port == s.http_port  # our own server holds it: not a conflict
        run_task(lambda: "free" if running_here else probe_port(bind, port),
                 lambda state: self._port_checked(state, port, host), self._failed, owner=self)

    def _port_checked(self, state: str, port: int, host: str) -> None:
        if state != "free":
            self._failed(port_problem(self.app.container.settings.http_host, port) if state == "busy"
                         else f"port {port} is already served by another LTM server; choose a free port")
            return
        try:
            new = self.app.apply_settings({"http_port": port, "public_host": host})
        except KnownError as e:
            self._failed(str(e))
            return
        self.feedback.ok(f"Saved. The server restarts on http://{new.http_host}:{new.http_port}/mcp — "
                         "apps connected over HTTP need the new address (Settings → AI apps → Connect again).")
        self.applied.emit(new)

    def _failed(self, message: str) -> None:
        self.feedback.error(message)
        self.failed.emit(message)

    # ---- tokens -------------------------------------------------------------------------------------

    def _show_tokens(self, tokens) -> None:
        self.tokens.clear()
        for t in tokens:
            item = QTreeWidgetItem([t.name, (t.created_at or "")[:19].replace("T", " "),
                                    (t.last_used_at or "never")[:19].replace("T", " ")])
            item.setData(0, Qt.ItemDataRole.UserRole, t.name)
            self.tokens.addTopLevelItem(item)
        self.tokens_listed.emit([t.name for t in tokens])

    def create_token(self) -> None:
        name, replace = self.token_name.text().strip(), self.replace.isChecked()
        c = self.app.container
        run_task(lambda: c.tokens.create(name, replace=replace), self._created, self._token_failed, owner=self)

    def _created(self, result) -> None:
        record, secret = result
        self.secret.set_text(secret)
        self.token_feedback.ok(f"Token for {record.name} created. Copy it now: it is not stored and cannot be shown again.")
        self.token_created.emit(record.name, secret)
        self.token_name.clear()
        self.refresh()

    def revoke_selected(self) -> None:
        item = self.tokens.currentItem()
        if item is None:
            self.token_feedback.error("Select a token first.")
            return
        name = item.data(0, Qt.ItemDataRole.UserRole)
        c = self.app.container
        run_task(lambda: c.tokens.revoke(name), lambda _r: self._revoked(name), self._token_failed, owner=self)

    def _token_failed(self, message: str) -> None:
        # The store speaks the command line's language; here the switch is a checkbox.
        message = message.replace("(`ltm token revoke ", "(Revoke selected, or `ltm token revoke ").replace(
            "or use --replace", "or tick “replace an existing one”")
        self.token_feedback.error(message)
        self.token_failed.emit(message)

    def _revoked(self, name: str) -> None:
        self.secret.set_text("")
        self.token_feedback.ok(f"Revoked {name}: its requests are refused from now on.")
        self.refresh()
