"""The settings window: a list of pages on the left, one page at a time on the right."""

from __future__ import annotations

from PySide6.QtWidgets import QHBoxLayout, QListWidget, QScrollArea, QStackedWidget, QWidget

from ltm_desktop.gui.icons import app_icon

PAGES = (
    ("folders", "Watched folders"),
    ("indexing", "Indexing & OCR"),
    ("server", "Server & tokens"),
    ("remote", "Remote access"),
    ("apps", "AI apps"),
    ("journal", "Tool-call journal"),
    ("general", "General"),
)


def build_page(key: str, app) -> QWidget:
    if key == "folders":
        from ltm_desktop.gui.settings_folders import FoldersPage

        return FoldersPage(app)
    if key == "indexing":
        from ltm_desktop.gui.settings_indexing import IndexingPage

        return IndexingPage(app)
    if key == "server":
        from ltm_desktop.gui.settings_server import ServerPage

        return ServerPage(app)
    if key == "remote":
        from ltm_desktop.gui.settings_remote import RemotePage

        return RemotePage(app)
    if key == "apps":
        from ltm_desktop.gui.settings_apps import AppsPage

        return AppsPage(app)
    if key == "journal":
        from ltm_desktop.gui.settings_journal import JournalPage

        return JournalPage(app)
    from ltm_desktop.gui.settings_general import GeneralPage

    return GeneralPage(app)


class SettingsWindow(QWidget):
    def __init__(self, app, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.app = app
        self.setWindowTitle("Settings — LTM Desktop")
        self.setWindowIcon(app_icon())
        self.resize(920, 620)
        layout = QHBoxLayout(self)
        self.nav = QListWidget()
        self.nav.setFixedWidth(190)
        self.stack = QStackedWidget()
        self.pages: dict[str, QWidget] = {}
        for key, title in PAGES:
            page = build_page(key, app)
            self.pages[key] = page
            scroll = QScrollArea()
            scroll.setWidgetResizable(True)
            scroll.setWidget(page)
            self.stack.addWidget(scroll)
            self.nav.addItem(title)
        self.nav.currentRowChanged.connect(self._switch)
        layout.addWidget(self.nav)
        layout.addWidget(self.stack, 1)
        self.nav.setCurrentRow(0)

    def show_page(self, key: str) -> None:
        keys = [k for k, _ in PAGES]
        if key in keys:
            self.nav.setCurrentRow(keys.index(key))

    def current_page(self) -> QWidget:
        return self.pages[PAGES[self.nav.currentRow()][0]]

    def _switch(self, row: int) -> None:
        self.stack.setCurrentIndex(row)
        page = self.pages[PAGES[row][0]]
        if self.isVisible() and hasattr(page, "refresh"):
            page.refresh()

    def showEvent(self, event) -> None:  # noqa: N802 (Qt override: show fresh values)
        page = self.current_page()
        if hasattr(page, "refresh"):
            page.refresh()
        super().showEvent(event)
