"""One app per user and data folder: a second launch asks the first to come forward, then exits."""

from __future__ import annotations

import getpass
import hashlib
from pathlib import Path

from PySide6.QtCore import QObject, QTimer, Signal
from PySide6.QtNetwork import QLocalServer, QLocalSocket

ACTIVATE = b"activate\n"
CONNECT_TIMEOUT_MS = 500


def instance_name(home: Path) -> str:
    """A local socket name unique per user and LTM_HOME (so test homes and real users never collide)."""
    key = f"{getpass.getuser()}:{Path(home).resolve()}"
    return "ltm-desktop-" + hashlib.sha256(key.encode()).hexdigest()[:16]


def notify_running_instance(name: str) -> bool:
    """True when another instance answered and was asked to show itself."""
    socket = QLocalSocket()
    socket.connectToServer(name)
    if not socket.waitForConnected(CONNECT_TIMEOUT_MS):
        return False
    socket.write(ACTIVATE)
    socket.waitForBytesWritten(CONNECT_TIMEOUT_MS)
    socket.disconnectFromServer()
    return True


class SingleInstance(QObject):
    """Owns the local server that later launches talk to."""

    activation_requested = Signal()

    def __init__(self, name: str, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self.name = name
        self._server = QLocalServer(self)
        self._server.newConnection.connect(self._on_connection)
        self._sockets: list[QLocalSocket] = []

    def claim(self) -> bool:
        """Become the running instance; False when another one is already running (and was activated)."""
        if notify_running_instance(self.name):
            return False
        # Nobody answered: a socket file left by a crashed instance would make listen() fail.
        QLocalServer.removeServer(self.name)
        self._server.setSocketOptions(QLocalServer.SocketOption.UserAccessOption)
        return self._server.listen(self.name)

    def release(self) -> None:
        for socket in self._sockets:
            socket.abort()
        self._sockets.clear()
        self._server.close()

    def _on_connection(self) -> None:
        while self._server.hasPendingConnections():
            socket = self._server.nextPendingConnection()
            self._sockets.append(socket)
            socket.readyRead.connect(self._on_ready_read)
            socket.disconnected.connect(self._on_disconnected)

    def _on_ready_read(self) -> None:
        socket = self.sender()
        if isinstance(socket, QLocalSocket) and bytes(socket.readAll().data()).startswith(ACTIVATE.strip()):
            # Emitted from the event loop, not from inside the socket's own signal: a slot that opens or
            # closes windows must not run while the socket is mid-emission.
            QTimer.singleShot(0, self.activation_requested.emit)

    def _on_disconnected(self) -> None:
        socket = self.sender()
        if socket in self._sockets:
            self._sockets.remove(socket)
            socket.deleteLater()
