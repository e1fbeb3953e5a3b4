"""Take the desktop app's screenshots for docs/ on a virtual screen with a tray host.

    eval "$(../shared/tools/desktop-session start)"
    LTM_MODELS_DIR=$PWD/.models .venv/bin/python resources/screenshots.py docs/screenshots

It builds a throwaway home (the sample corpus, a fake user HOME so no real app config is read), starts the real
app with its tray icon and children, drives each window as a person would, and saves PNGs taken with
`desktop-session shot`, cropped to the window (the tray menu keeps the tray corner around it).
"""

from __future__ import annotations

import os
import shutil
import socket
import subprocess
import sys
import tempfile
import time
from pathlib import Path

TOOL = Path(__file__).resolve().parents[2] / "shared" / "tools" / "desktop-session"


def free_port(preferred: int = 8322) -> int:
    """The default port when it is free (so the screenshots show it), else any free one."""
    with socket.socket() as s:
        try:
            s.bind(("127.0.0.1", preferred))
        except OSError:
            s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def prepare_environment(work: Path) -> Path:
    """A fresh home and user profile; returns the sample corpus folder."""
    from ltm_desktop.sample_corpus import generate_sample_corpus

    user = work / "ana"
    os.environ["LTM_HOME"] = str(work / "ltm-home")
    os.environ["HOME"] = str(user)
    os.environ["LTM_HTTP_PORT"] = str(free_port())
    os.environ.pop("XDG_CONFIG_HOME", None)
    generate_sample_corpus(work / "corpus")
    for installed in (".config/Claude", ".lmstudio", ".cursor"):  # apps this pretend user has
        (user / installed).mkdir(parents=True)
    rentals = user / "Documents" / "Rentals"
    rentals.parent.mkdir(parents=True)
    shutil.move(str(work / "corpus" / "files"), rentals)
    return rentals


def main(out: Path) -> int:
    from PySide6.QtCore import QEventLoop, QPoint, QTimer
    from PySide6.QtWidgets import QApplication

    work = Path(tempfile.mkdtemp(prefix="ltm-demo-"))
    files = prepare_environment(work)
    from ltm_desktop.bootstrap import Container, configure_environment
    from ltm_desktop.gui.desktop_app import DesktopApp
    from ltm_desktop.gui.run import run_desktop  # noqa: F401  (same imports as the real entry point)

    configure_environment()
    qapp = QApplication([sys.argv[0]])
    qapp.setQuitOnLastWindowClosed(False)
    app = DesktopApp(Container())
    app.state.mark_welcomed()
    out.mkdir(parents=True, exist_ok=True)

    def wait_until(predicate, timeout: float = 120.0) -> None:
        deadline = time.monotonic() + timeout
        while not predicate():
            if time.monotonic() > deadline:
                raise TimeoutError("the app did not get there in time")
            loop = QEventLoop()
            QTimer.singleShot(100, loop.quit)
            loop.exec()

    def settle(seconds: float = 1.0) -> None:
        end = time.monotonic() + seconds
        wait_until(lambda: time.monotonic() > end)

    def shot(name: str, widget=None, margin: int = 0, box=None) -> None:
        settle(0.8)
        full = work / "screen.png"
        subprocess.run([str(TOOL), "shot", str(full)], check=True, capture_output=True)
        from PIL import Image

        image = Image.open(full)
        if widget is not None:
            g = widget.frameGeometry()
            box = (max(0, g.x() - margin), max(0, g.y() - margin), g.x() + g.width() + margin, g.y() + g.height() + margin)
        (image.crop(box) if box else image).save(out / f"{name}.png")
        print(f"saved {out / name}.png")

    app.start()
    wait_until(lambda: app.facts.store_ready)
    app.container.watch_folders.add(str(files))  # the worker indexes the corpus in the background

    drop = app.windows.show("drop")
    drop.move(20, 40)
    drop.resize(820, 560)
    picked = sorted((files / "leases").iterdir())[:6] + sorted((files / "notes").iterdir())[:4]
    extra = work / "extra"
    extra.mkdir()
    (extra / "holiday_video.mov").write_bytes(b"\x00\x00\x00\x18ftypqt  not a document")
    (extra / "empty_draft.txt").write_text("")
    done = []
    drop.batch_finished.connect(done.append)
    drop.add_paths([*picked, extra / "holiday_video.mov", extra / "empty_draft.txt"])
    wait_until(lambda: done, 300)
    shot("drop-window", drop)
    drop.hide()

    wait_until(lambda: app.status.state == "idle" and app.facts.documents >= 80, 600)
    search = app.windows.show("search")
    search.move(20, 40)
    search.resize(900, 720)
    tab = search.documents
    tab.query.setText(os.environ.get("SHOT_QUERY", "How much liability insurance does the bakery tenant have to carry?"))
    shown = []
    tab.results_shown.connect(shown.append)
    tab.run_search()
    wait_until(lambda: shown, 120)
    shot("search-window", search)
    search.hide()

    app.container.tokens.create("claude-code", replace=True)
    registration = app.container.client_registration  # writes only into the pretend user's HOME
    registration.connect("claude-desktop", "stdio", verify=False)
    registration.connect("lm-studio", "http", verify=False)
    settings = app.windows.show("settings", "folders")
    settings.move(20, 40)
    settings.resize(940, 600)
    settings.pages["folders"].refresh()
    settings_rows = settings.pages["folders"].table
    wait_until(lambda: settings_rows.topLevelItemCount() > 0, 60)
    settings_rows.setCurrentItem(settings_rows.topLevelItem(0))
    shot("settings-window", settings)
    settings.show_page("apps")
    wait_until(lambda: settings.pages["apps"].table.topLevelItemCount() > 0, 60)
    shot("settings-apps", settings)
    settings.show_page("server")
    wait_until(lambda: settings.pages["server"].tokens.topLevelItemCount() > 0, 60)
    shot("settings-server", settings)
    settings.hide()

    if app.tray is None:
        print("no tray host: start desktop-session first", file=sys.stderr)
        return 1
    geometry = app.tray.icon.geometry()
    app.tray.menu.popup(QPoint(geometry.x(), geometry.y() + geometry.height()))
    settle(1.0)
    menu = app.tray.menu.frameGeometry()
    screen = qapp.primaryScreen().geometry()
    shot("tray-menu", box=(max(0, menu.x() - 220), 0, screen.width(), menu.y() + menu.height() + 20))
    app.tray.menu.hide()

    app.quit()
    pid_file = work / "ltm-home" / "pgdata" / "postmaster.pid"
    if pid_file.exists():  # a throwaway server: make sure it is gone before its folder is
        import signal

        os.kill(int(pid_file.read_text().split()[0]), signal.SIGTERM)
        wait_until(lambda: not pid_file.exists(), 30)
    shutil.rmtree(work, ignore_errors=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main(Path(sys.argv[1]) if len(sys.argv) > 1 else Path("docs/screenshots")))
