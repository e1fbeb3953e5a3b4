"""The app's windows, built on first use and kept (closing a window hides it; the tray keeps the app alive)."""

from __future__ import annotations

from PySide6.QtWidgets import QWidget

from ltm_desktop.core.models import Failed


class AppWindows:
    """Creates, shows and raises the windows; routes a notification click to the right one."""

    def __init__(self, app, actions) -> None:
        self.app = app
        self.actions = actions
        self._windows: dict[str, QWidget] = {}

    def get(self, name: str) -> QWidget:
        window = self._windows.get(name)
        if window is None:
            window = self._build(name)
            self._windows[name] = window
        return window

    def existing(self, name: str) -> QWidget | None:
        return self._windows.get(name)

    def show(self, name: str, tab: str | None = None) -> QWidget:
        window = self.get(name)
        if tab and hasattr(window, "show_page"):
            window.show_page(tab)
        window.show()
        window.raise_()
        window.activateWindow()
        if name == "search":
            window.focus_query()
        return window

    def open_context(self, context: object) -> None:
        """Where a click on a notification leads."""
        kind, detail = context if isinstance(context, tuple) and len(context) == 2 else ("status", None)
        if kind == "failed":
            self.show("problems").select_path(detail)
        elif kind == "logs":
            self.show("logs").show_log(detail)
        elif kind == "settings":
            self.show("settings", detail)
        elif kind in ("drop", "problems", "search"):
            self.show(kind)
        elif self.app.tray is None:
            self.show("status")
        else:
            self.show("logs")

    def close_all(self) -> None:
        for window in self._windows.values():
            window.hide()

    def _build(self, name: str) -> QWidget:
        app = self.app
        c = app.container
        if name == "search":
            from ltm_desktop.gui.search_window import SearchWindow

            return SearchWindow(c)
        if name == "drop":
            from ltm_desktop.gui.drop_window import DropWindow
            from ltm_desktop.gui.outcome_text import summarise

            watch = (lambda path: c.watch_folders.add(path)) if hasattr(type(c), "watch_folders") else None
            window = DropWindow(c, watch, app.ingest_pool)
            window.progress_changed.connect(app.local_ingest_progress)
            window.batch_finished.connect(
                lambda outcomes: app.local_ingest_finished(summarise(outcomes), sum(isinstance(o, Failed) for o in outcomes))
            )
            window.batch_failed.connect(lambda msg: app.local_ingest_finished(f"Could not add the files: {msg}", 1))
            return window
        if name == "settings":
            from ltm_desktop.gui.settings_window import SettingsWindow

            return SettingsWindow(app)
        if name == "logs":
            from ltm_desktop.gui.log_window import LogWindow

            return LogWindow(app.supervisor, c.settings.log_dir)
        if name == "problems":
            from ltm_desktop.gui.problems_window import ProblemsWindow

            return ProblemsWindow(app)
        if name == "welcome":
            from ltm_desktop.gui.welcome_window import WelcomeWindow

            return WelcomeWindow(app)
        if name == "status":
            from ltm_desktop.gui.status_window import StatusWindow

            window = StatusWindow(self.actions, tray_missing=app.tray is None)
            app.status_changed.connect(lambda status: window.show_status(status, app.paused))
            window.show_status(app.status, app.paused)
            return window
        raise KeyError(name)
