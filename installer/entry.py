"""The frozen executable's entry: `ltm-desktop` (the tray) or `ltm-desktop <any ltm subcommand>`."""

from __future__ import annotations

import multiprocessing
import sys


def main() -> int:
    # Ingestion uses spawn-context process pools; in a frozen app each pool child re-runs this executable,
    # and freeze_support() is what turns that run into a pool worker instead of a second app.
    multiprocessing.freeze_support()
    if sys.argv[1:2] == ["child-guard"]:
        # The tray starts each child as `<exe> child-guard --parent PID -- <exe> serve ...`. Handled before argparse,
        # which cannot pass `--parent ...` through to a REMAINDER positional, and before any other import:
        # the guard runs in every child, ahead of the real command.
        from ltm_desktop.gui.child_guard import main as child_guard_main

        return child_guard_main(sys.argv[2:])
    from ltm_desktop.cli.main import desktop_main

    return desktop_main()


if __name__ == "__main__":
    sys.exit(main())
