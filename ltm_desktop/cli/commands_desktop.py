"""`ltm desktop`: the tray app (also what `ltm-desktop` with no arguments runs). Qt loads only here."""

from __future__ import annotations

import argparse
import os


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser(
        "desktop",
        help="the tray app: supervises the MCP server and the worker, with search, drop and settings windows",
    )
    p.set_defaults(handler=cmd_desktop)
    # Hidden (no help text, so not listed): the launcher the tray puts in front of its children when frozen.
    g = sub.add_parser("child-guard", add_help=False)
    g.add_argument("--parent", type=int, required=True)
    g.add_argument("command", nargs=argparse.REMAINDER)
    g.set_defaults(handler=cmd_child_guard)


def cmd_desktop(args: argparse.Namespace) -> int:
    from ltm_desktop.core.errors import KnownError
    from ltm_desktop.gui.platform_check import has_display, qt_platform_report

    if not has_display() and not os.environ.get("QT_QPA_PLATFORM"):
        raise KnownError("no display to show the tray app on: run `ltm run --headless` for the background service")
    qt_platform_report()  # a KnownError with the fix when PySide6 cannot load
    from ltm_desktop.bootstrap import Container
    from ltm_desktop.gui.run import run_desktop

    return run_desktop(Container())


def cmd_child_guard(args: argparse.Namespace) -> int:
    from ltm_desktop.gui.child_guard import main

    command = args.command[1:] if args.command[:1] == ["--"] else args.command
    return main(["--parent", str(args.parent), "--", *command])
