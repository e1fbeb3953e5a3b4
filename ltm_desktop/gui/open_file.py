"""Open a document in the system viewer, at a page when a known PDF viewer can be told which one."""

from __future__ import annotations

import shutil
import sys
from pathlib import Path

from PySide6.QtCore import QProcess, QUrl
from PySide6.QtGui import QDesktopServices

# Viewers that take a start page on the command line: name -> argv builder.
PAGE_VIEWERS = {
    "evince": lambda path, page: ["--page-index", str(page), path],
    "okular": lambda path, page: ["-p", str(page), path],
    "zathura": lambda path, page: ["-P", str(page), path],
    "qpdfview": lambda path, page: [f"{path}#{page}"],
    "SumatraPDF": lambda path, page: ["-page", str(page), path],
}


def viewer_command(path: str, page: int | None) -> list[str] | None:
    """The argv of an installed PDF viewer that opens path at page, or None (then the default app is used)."""
    if page is None or Path(path).suffix.lower() != ".pdf" or sys.platform == "darwin":
        return None
    for name, args in PAGE_VIEWERS.items():
        exe = shutil.which(name)
        if exe:
            return [exe, *args(path, page)]
    return None


def open_document(path: str, page: int | None = None) -> str | None:
    """Open the file (at the page where possible); returns a message when it cannot be opened."""
    if not Path(path).exists():
        return f"{path} is no longer there (moved or deleted); the index keeps its text until the worker notices"
    command = viewer_command(path, page)
    if command and QProcess.startDetached(command[0], command[1:]):
        return None
    url = QUrl.fromLocalFile(path)
    if page is not None and Path(path).suffix.lower() == ".pdf":
        url.setFragment(f"page={page}")  # honoured by browsers and several viewers; harmless elsewhere
    if not QDesktopServices.openUrl(url):
        return f"no application is set up to open {Path(path).suffix or 'this file'} files"
    return None


def citation(title: str, path: str, page_from: int | None, page_to: int | None, snippet: str = "") -> str:
    """A citation a person can paste: title, file, page(s) and the quoted passage."""
    pages = ""
    if page_from is not None:
        pages = f", p. {page_from}" if page_to in (None, page_from) else f", pp. {page_from}–{page_to}"
    quote = f'\n"{snippet.strip()}"' if snippet.strip() else ""
    return f"{title} ({path}{pages}){quote}"
