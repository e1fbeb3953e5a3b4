"""The `ltm` command. Qt and the MCP SDK are imported only inside the subcommands that need them."""

from __future__ import annotations

import argparse
import logging
import sys
from collections.abc import Sequence

from ltm_desktop import __version__
from ltm_desktop.core.errors import KnownError


def build_parser() -> argparse.ArgumentParser:
    from ltm_desktop.cli import (
        commands_admin,
        commands_connect,
        commands_desktop,
        commands_eval,
        commands_index,
        commands_memory,
        commands_serve,
        commands_worker,
    )

    parser = argparse.ArgumentParser(
        prog="ltm", description="LTM Desktop: private search over your documents and a shared memory for your AIs."
    )
    parser.add_argument("--version", action="version", version=f"ltm {__version__}")
    parser.add_argument("-v", "--verbose", action="store_true", help="log debug detail to stderr")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    # Each group imports its heavy dependencies (Qt, the MCP SDK, models) inside its handlers, so `ltm search`
    # never loads Qt and `ltm --version` loads nothing.
    for group in (commands_index, commands_admin, commands_serve, commands_memory, commands_worker, commands_eval,
                  commands_desktop, commands_connect):
        group.register(sub)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    from ltm_desktop.bootstrap import configure_environment

    configure_environment()
    parser = build_parser()
    args = parser.parse_args(argv)
    logging.basicConfig(
        level=logging.DEBUG if args.verbose else logging.WARNING,
        stream=sys.stderr,
        format="%(asctime)s %(levelname)s %(name)s: %(message)s",
    )
    if not getattr(args, "handler", None):
        parser.print_help()
        return 2
    try:
        return int(args.handler(args) or 0)
    except KnownError as e:
        print(f"ltm: {e}", file=sys.stderr)
        return 1
    except KeyboardInterrupt:
        print("ltm: interrupted", file=sys.stderr)
        return 130


def desktop_main() -> int:
    """Entry point of `ltm-desktop`: the tray app, or any `ltm` subcommand when one is given."""
    argv = sys.argv[1:]
    if not argv:
        argv = ["desktop"]
    return main(argv)
