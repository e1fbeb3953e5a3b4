"""The tray icon: the state at a glance, counts in the tooltip, and the menu that opens everything else."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from PySide6.QtCore import QObject, Signal
from PySide6.QtGui import QAction
from PySide6.QtWidgets import QMenu, QSystemTrayIcon

from ltm_desktop.gui.app_status import AppStatus
from ltm_desktop.gui.icons import state_icon


@dataclass(frozen=True)
class MenuActions:
    """What each menu entry does; the app controller provides them."""

    search: Callable[[], None]
    add_files: Callable[[], None]
    watched_folders: Callable[[], None]
    toggle_pause: Callable[[], None]
    connect_app: Callable[[], None]
    settings: Callable[[], None]
    open_logs: Callable[[], None]
    quit: Callable[[], None]


def build_menu(actions: MenuActions, parent=None) -> tuple[QMenu, dict[str, QAction]]:
    """The tray menu (also reused as the fallback window's buttons); returns the menu and its actions by key."""
    menu = QMenu(parent)
    items: dict[str, QAction] = {}
    status = menu.addAction("Starting…")
    status.setEnabled(False)
    items["status"] = status
    menu.addSeparator()
    for key, text, fn in (
        ("search", "Search…", actions.search),
        ("add_files", "Add files…", actions.add_files),
        ("watched_folders", "Watched folders…", actions.watched_folders),
        ("toggle_pause", "Pause indexing", actions.toggle_pause),
        (None, None, None),
        ("connect_app", "Connect an AI app…", actions.connect_app),
        ("settings", "Settings…", actions.settings),
        ("open_logs", "Open logs", actions.open_logs),
        (None, None, None),
        ("quit", "Quit", actions.quit),
    ):
        if key is None:
            menu.addSeparator()
            continue
        action = menu.addAction(text)
        action.triggered.connect(lambda _checked=False, fn=fn: fn())
        items[key] = action
    return menu, items


class TrayIcon(QObject):
    """QSystemTrayIcon plus the menu; notifications remember what a click on them should open."""

    notification_clicked = Signal(object)  # the context given to notify()
    activated_primary = Signal()

    def __init__(self, actions: MenuActions, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self.menu, self.actions = build_menu(actions)
        self.icon = QSystemTrayIcon(state_icon("idle"), self)
        self.icon.setContextMenu(self.menu)
        self.icon.setToolTip("LTM Desktop: starting…")
        self.icon.messageClicked.connect(self._on_message_clicked)
        self.icon.activated.connect(self._on_activated)
        self._last_context: object = None
        self.status: AppStatus | None = None

    def show(self) -> None:
        self.icon.show()

    def hide(self) -> None:
        self.icon.hide()

    def show_status(self, status: AppStatus, paused: bool) -> None:
        if status == self.status and self.actions["toggle_pause"].text() == ("Resume indexing" if paused else "Pause indexing"):
            return
        self.status = status
        self.icon.setIcon(state_icon("idle" if status.state == "starting" else status.state, status.progress))
        self.icon.setToolTip(status.tooltip)
        self.actions["status"].setText(f"{status.headline} — {status.counts}" if status.counts else status.headline)
        self.actions["toggle_pause"].setText("Resume indexing" if paused else "Pause indexing")

    def notify(self, title: str, message: str, *, error: bool = False, context: object = None) -> None:
        """A desktop notification; clicking it emits notification_clicked(context)."""
        self._last_context = context
        kind = QSystemTrayIcon.MessageIcon.Warning if error else QSystemTrayIcon.MessageIcon.Information
        self.icon.showMessage(title, message, kind, 10_000)

    def _on_message_clicked(self) -> None:
        self.notification_clicked.emit(self._last_context)

    def _on_activated(self, reason: QSystemTrayIcon.ActivationReason) -> None:
        if reason in (QSystemTrayIcon.ActivationReason.Trigger, QSystemTrayIcon.ActivationReason.DoubleClick):
            self.activated_primary.emit()
