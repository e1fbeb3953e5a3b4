"""Which files under a folder are candidates for indexing, and which are noise to pass over silently."""

from __future__ import annotations

import fnmatch
import os
from collections.abc import Iterator, Sequence
from pathlib import Path

# Temporary, lock and system files that editors, office suites, browsers and scanners leave behind.
IGNORED_NAMES = (
    "~$*", ".~lock*", "*.part", "*.crdownload", "*.tmp", "*.temp", "*.swp", "*~", ".DS_Store", "Thumbs.db",
    "desktop.ini", "*.download", ".#*",
)
IGNORED_DIRS = (".git", "node_modules", "__pycache__", ".venv", ".Trash", ".Trashes", "$RECYCLE.BIN", ".ltm")


def is_ignored(path: Path, extra_globs: Sequence[str] = ()) -> bool:
    """True for temporary/lock files, hidden system folders and anything matching a user glob."""
    name = path.name
    if any(fnmatch.fnmatch(name, g) for g in IGNORED_NAMES):
        return True
    if any(part in IGNORED_DIRS for part in path.parts):
        return True
    text = path.as_posix()
    return any(fnmatch.fnmatch(name, g) or fnmatch.fnmatch(text, g) for g in extra_globs)


def walk_files(root: Path, extra_globs: Sequence[str] = ()) -> Iterator[Path]:
    """Every non-ignored file below root, sorted, following no directory symlinks (no loops possible)."""
    for dirpath, dirnames, filenames in os.walk(root, followlinks=False):
        dirnames[:] = sorted(d for d in dirnames if d not in IGNORED_DIRS)
        for name in sorted(filenames):
            p = Path(dirpath) / name
            if not is_ignored(p, extra_globs):
                yield p
