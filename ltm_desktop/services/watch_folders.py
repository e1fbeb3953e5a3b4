"""Which folders the worker watches: adding (with every check a person can act on), listing, removing."""

from __future__ import annotations

import os
from collections.abc import Iterable, Sequence

from pathlib import Path

from ltm_desktop.core.errors import InvalidInput, NotFound
from ltm_desktop.core.jobs import PRIORITY_USER, FolderStore, IndexMaintenance, JobQueue, JobRequest, WatchedFolder
from ltm_desktop.services.file_walk import walk_files


def normalise_folder(path: str) -> str:
    """The absolute form a folder is stored and matched under (user's spelling kept: no symlink resolution)."""
    return os.path.abspath(os.path.expanduser(str(path)))


def is_within(path: str, folder: str) -> bool:
    """True when path is folder itself or lies below it."""
    return path == folder or path.startswith(folder.rstrip(os.sep) + os.sep)


class WatchFolderService:
    def __init__(self, folders: FolderStore, queue: JobQueue, index: IndexMaintenance) -> None:
        self._folders = folders
        self._queue = queue
        self._index = index

    def list(self) -> list[WatchedFolder]:
        return self._folders.folders()

    def add(self, path: str, ignore: Sequence[str] = ()) -> WatchedFolder:
        """Watch a folder (or change its ignore globs); refuses files, missing paths and nested folders."""
        folder = normalise_folder(path)
        if not os.path.exists(folder):
            raise InvalidInput(f"{folder} does not exist: check the spelling, or mount the drive first")
        if not os.path.isdir(folder):
            raise InvalidInput(
                f"{folder} is a file, not a folder: watch the folder that holds it, or index it once with `ltm ingest`"
            )
        if not os.access(folder, os.R_OK | os.X_OK):
            raise InvalidInput(f"{folder} cannot be read (permission denied): give your user read access to it")
        globs = tuple(g.strip() for g in ignore)
        if any(not g for g in globs):
            raise InvalidInput("an --ignore glob is empty: give a pattern such as '*.log' or 'drafts/*'")
        real = os.path.realpath(folder)
        for other in self._folders.folders():
            if other.path == folder:
                continue
            other_real = os.path.realpath(other.path)
            if is_within(real, other_real):
                raise InvalidInput(f"{folder} is already watched as part of {other.path}; nothing to add")
            if is_within(other_real, real):
                raise InvalidInput(
                    f"{folder} contains the watched folder {other.path}: remove that one first "
                    f"(`ltm watch remove {other.path}`), then add {folder}"
                )
        self._folders.add_folder(folder, globs)
        return next(f for f in self._folders.folders() if f.path == folder)

    def remove(self, path: str, keep_documents: bool = False) -> int:
        """Stop watching; unless kept, its documents leave search (as tombstones). Returns documents hidden."""
        folder = normalise_folder(path)
        if not self._folders.remove_folder(folder):
            known = ", ".join(f.path for f in self._folders.folders()) or "none"
            raise NotFound(f"{folder} is not a watched folder (watched: {known})")
        self._queue.drop_under(folder)
        return 0 if keep_documents else self._index.tombstone(folder)

    def queue_now(self, paths: Iterable[str]) -> int:
        """Files (or folders) the user just dropped: queued ahead of everything else; returns files queued."""
        roots = [f.path for f in self._folders.folders()]
        requests = []
        for given in paths:
            p = normalise_folder(given)
            if not os.path.exists(p):
                raise InvalidInput(f"{p} does not exist")
            files = [str(f) for f in walk_files(Path(p))] if os.path.isdir(p) else [p]
            for f in files:
                root = next((r for r in roots if is_within(f, r)), p if os.path.isdir(p) else os.path.dirname(f))
                requests.append(JobRequest(f, root, "upsert", PRIORITY_USER))
        return self._queue.enqueue(requests)
