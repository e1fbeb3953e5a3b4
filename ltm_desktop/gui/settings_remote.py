"""Settings → Remote access: a tunnel (cloudflare, tailscale, ngrok) so claude.ai or ChatGPT can reach the server."""

from __future__ import annotations

from PySide6.QtCore import QTimer, Signal
from PySide6.QtWidgets import QComboBox, QHBoxLayout, QLabel, QPushButton, QVBoxLayout, QWidget

from ltm_desktop.gui import children
from ltm_desktop.gui.supervisor import ChildState
from ltm_desktop.gui.tasks import run_task
from ltm_desktop.gui.widgets import CopyField, Feedback, heading, hint

PROVIDERS = (("cloudflare", "Cloudflare quick tunnel (no account)"), ("tailscale", "Tailscale Funnel"), ("ngrok", "ngrok"))
CONNECTOR_TOKEN = "connector"
POLL_MS = 1000


class RemotePage(QWidget):
    tunnel_changed = Signal(object)  # TunnelStatus
    failed = Signal(str)

    def __init__(self, app, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.app = app
        self.available = hasattr(type(app.container), "tunnel_control")
        self._announced_url: str | None = None
        layout = QVBoxLayout(self)
        layout.addWidget(heading("Remote access through a tunnel"))
        layout.addWidget(hint(
            "claude.ai and ChatGPT run in the cloud and cannot reach this computer. A tunnel gives the local server a "
            "public HTTPS address without opening any port; the server itself stays on 127.0.0.1."
        ))
        row = QHBoxLayout()
        self.provider = QComboBox()
        for key, label in PROVIDERS:
            self.provider.addItem(label, key)
        self.start_button = QPushButton("Start tunnel")
        self.start_button.clicked.connect(self.start_tunnel)
        self.stop_button = QPushButton("Stop tunnel")
        self.stop_button.clicked.connect(self.stop_tunnel)
        row.addWidget(self.provider, 1)
        row.addWidget(self.start_button)
        row.addWidget(self.stop_button)
        layout.addLayout(row)
        self.state = QLabel("No tunnel.")
        layout.addWidget(self.state)
        layout.addWidget(QLabel("Public URL:"))
        self.public_url = CopyField()
        layout.addWidget(self.public_url)
        layout.addWidget(QLabel("Connector URL to paste into claude.ai (Settings → Connectors) or ChatGPT (developer mode):"))
        self.connector = CopyField(on_copied=lambda: self.feedback.ok("Connector URL copied. Treat it like a password."))
        layout.addWidget(self.connector)
        self.exposure = hint("")
        layout.addWidget(self.exposure)
        self.feedback = Feedback()
        layout.addWidget(self.feedback)
        layout.addStretch(1)
        self.timer = QTimer(self)
        self.timer.setInterval(POLL_MS)
        self.timer.timeout.connect(self.refresh)
        if not self.available:
            self.start_button.setEnabled(False)
            self.stop_button.setEnabled(False)
            self.feedback.info("Tunnels are not available in this installation.")

    def showEvent(self, event) -> None:  # noqa: N802 (Qt override: poll only while visible)
        if self.available:
            self.timer.start()
        super().showEvent(event)

    def hideEvent(self, event) -> None:  # noqa: N802
        self.timer.stop()
        super().hideEvent(event)

    def refresh(self) -> None:
        if self.available:
            c = self.app.container
            run_task(lambda: c.tunnel_control.status(), self._show, lambda _m: None, owner=self)

    def _show(self, status) -> None:
        words = {"none": "No tunnel.", "starting": "Starting…", "running": "Running.", "restarting": "Restarting…",
                 "failed": "Failed.", "stopped": "Stopped."}
        text = words.get(status.state, status.state)
        if status.provider and status.state != "none":
            text = f"{status.provider}: {text}"
        self.state.setText(text + (f" {status.message}" if status.message else ""))
        self.public_url.set_text(status.public_url or "")
        if status.state == "running" and status.public_url and status.public_url != self._announced_url:
            self._announce(status.public_url)
        if status.state != "running":
            self.connector.set_text("")
            self._announced_url = None
        active = status.state in ("starting", "running", "restarting")
        self.start_button.setEnabled(not active)
        self.stop_button.setEnabled(active)
        self.tunnel_changed.emit(status)

    def _announce(self, public_url: str) -> None:
        """A fresh connector token for this URL (the token rides in the URL path; it is never written to a log)."""
        from ltm_desktop.services.tunnels import EXPOSURE, connector_url

        self._announced_url = public_url
        c = self.app.container
        run_task(lambda: c.tokens.create(CONNECTOR_TOKEN, replace=True)[1],
                 lambda secret: self.connector.set_text(connector_url(public_url, secret)), self._failed, owner=self)
        self.exposure.setText(EXPOSURE.format(name=CONNECTOR_TOKEN))

    def start_tunnel(self) -> None:
        provider = self.provider.currentData()
        container = self.app.container
        self.feedback.busy(f"Starting the {provider} tunnel…")
        # Building the supervisor finds the binary: a missing one fails here, with the install hint.
        run_task(lambda: container.tunnel_supervisor(provider) and provider, self._binary_found, self._failed, owner=self)

    def _binary_found(self, provider: str) -> None:
        sup = self.app.supervisor
        existing = sup.children.get(children.TUNNEL)
        spec = children.tunnel_spec(self.app.container.settings, provider)
        if existing is not None and existing.spec.command != spec.command:
            existing.stop()
            existing.spec = spec
        child = existing or sup.add(spec)
        if child.state in (ChildState.STOPPED, ChildState.GAVE_UP):
            child.start()
        self.feedback.info("The public URL appears here in a few seconds.")
        self.refresh()

    def stop_tunnel(self) -> None:
        child = self.app.supervisor.children.get(children.TUNNEL)
        if child is not None:
            child.stop()
        container = self.app.container
        run_task(lambda: (container.tunnel_control.stop(), _revoke_quietly(container)), lambda _r: self._stopped(),
                 self._failed, owner=self)

    def _stopped(self) -> None:
        self.feedback.ok("Tunnel stopped and the connector token revoked: old connector URLs no longer work.")
        self.refresh()

    def _failed(self, message: str) -> None:
        self.feedback.error(message)
        self.failed.emit(message)


def _revoke_quietly(container) -> bool:
    from ltm_desktop.core.errors import NotFound

    try:
        container.tokens.revoke(CONNECTOR_TOKEN)
    except NotFound:
        return False
    return True
