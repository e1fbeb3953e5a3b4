"""The watching half of the worker: folder events and reconciliation scans become jobs in the queue.

Events are fast but lossy (network shares, sleep, changes made while the app was off, a full inotify
table), so every folder is also scanned at start, when it appears, and periodically; a scan compares the
files on disk with what the index and the queue already know and queues only the differences.
"""

from __future__ import annotations

import logging
import os
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from ltm_desktop.core.errors import KnownError
from ltm_desktop.core.jobs import (
    PRIORITY_LIVE,
    PRIORITY_SCAN,
    ChangeEvent,
    ChangeSource,
    FolderStore,
    IndexMaintenance,
    JobQueue,
    JobRequest,
    WatchedFolder,
)
from ltm_desktop.services.file_walk import is_ignored, walk_files
from ltm_desktop.services.queue_worker import signature
from ltm_desktop.services.settle import SettleTracker
from ltm_desktop.services.watch_folders import is_within

log = logging.getLogger(__name__)
MISSING_REASON = (
    "folder not found (removed, renamed, or its drive is unmounted); its documents stay searchable until it "
    "comes back or you `ltm watch remove` it"
)


@dataclass(frozen=True)
class WatchTuning:
    settle_seconds: float = 2.0
    poll_seconds: float = 1.0
    reconcile_seconds: float = 1800.0
    tombstone_seconds: float = 7 * 86400.0
    max_pending: int = 50_000
    batch: int = 500


class FolderWatcher:
    def __init__(
        self,
        folders: FolderStore,
        queue: JobQueue,
        index: IndexMaintenance,
        make_source: Callable[[Callable[[ChangeEvent], None]], ChangeSource],
        supports: Callable[[Path], bool],
        tuning: WatchTuning = WatchTuning(),
    ) -> None:
        self._folders = folders
        self._queue = queue
        self._index = index
        self._supports = supports
        self._tuning = tuning
        self._tracker = SettleTracker(tuning.settle_seconds, tuning.max_pending)
        self._active: dict[str, WatchedFolder] = {}
        self._moves: list[JobRequest] = []
        self._rescan: set[str] = set()
        self._lock = threading.Lock()
        self._last_full = time.monotonic()
        self._source = make_source(self.on_event)

    # ---- which paths matter --------------------------------------------------------------------------

    def _root_of(self, path: str) -> WatchedFolder | None:
        with self._lock:
            for folder in self._active.values():
                if is_within(path, folder.path):
                    return folder
        return None

    def _is_wanted(self, path: str, folder: WatchedFolder, is_dir: bool) -> bool:
        rel = Path(os.path.relpath(path, folder.path))
        if is_ignored(rel, folder.ignore):
            return False
        return is_dir or self._supports(Path(path))

    # ---- events (on the observer's thread) -----------------------------------------------------------

    def on_event(self, event: ChangeEvent) -> None:
        """Turn one file-system event into pending work; never blocks on the database."""
        now = time.monotonic()
        if event.kind == "moved" and event.dest is not None:
            src, dst = self._root_of(event.path), self._root_of(event.dest)
            if src is not None and event.path == src.path:
                return  # the watched folder itself moved away: the tick marks it missing, documents kept
            src_ok = src is not None and self._is_wanted(event.path, src, event.is_dir)
            dst_ok = dst is not None and self._is_wanted(event.dest, dst, event.is_dir)
            if dst_ok and (src_ok or not event.is_dir):
                # A rename is atomic: the new name holds complete content, so no settling.
                with self._lock:
                    self._moves.append(
                        JobRequest(event.dest, dst.path, "move", PRIORITY_LIVE, event.path if src_ok else None)
                    )
            elif dst_ok:
                self._touch(event.dest, dst, now)  # a folder moved in from outside: scanned when it settles
            elif src_ok:
                self._touch(event.path, src, now)  # moved out of view: settles as a delete
            return
        folder = self._root_of(event.path)
        if folder is None or event.path == folder.path:
            return  # the root itself is checked on every tick (missing, back again)
        if self._is_wanted(event.path, folder, event.is_dir):
            self._touch(event.path, folder, now)

    def _touch(self, path: str, folder: WatchedFolder, now: float) -> None:
        if not self._tracker.touch(path, now):
            with self._lock:
                self._rescan.add(folder.path)  # too many changes to follow one by one: rescan the folder

    # ---- the periodic tick (on the watcher's own thread) ---------------------------------------------

    def run(self, stop: threading.Event) -> None:
        """Tick until stop is set; a failing tick is logged and retried, never fatal."""
        while not stop.is_set():
            try:
                self.tick(time.monotonic())
            except KnownError as e:
                log.warning("watcher: %s", e)
            except Exception:  # the watcher's top-level loop: log with traceback, keep watching
                log.exception("watcher tick failed")
            stop.wait(self._tuning.poll_seconds)

    def tick(self, now: float) -> int:
        """Sync folders, queue settled changes and moves, run due scans; returns the jobs queued."""
        self._sync_folders()
        queued = self._queue_moves() + self._queue_settled(now)
        if now - self._last_full >= self._tuning.reconcile_seconds:
            self._last_full = now
            with self._lock:
                self._rescan.update(self._active)
            purged = self._index.purge_tombstones(self._tuning.tombstone_seconds)
            if purged:
                log.info("purged %d tombstones older than the grace period", purged)
        with self._lock:
            due, self._rescan = [self._active[r] for r in self._rescan if r in self._active], set()
        for folder in due:
            queued += self.reconcile(folder)
        return queued

    def _sync_folders(self) -> None:
        listed = {f.path: f for f in self._folders.folders()}
        with self._lock:
            gone = [p for p in self._active if p not in listed]
        for path in gone:
            self._deactivate(path)
        for path, folder in listed.items():
            if not os.path.isdir(path):
                if path in self._active or folder.state != "missing":
                    self._deactivate(path)
                    self._folders.mark_folder(path, "missing", MISSING_REASON)
                continue
            with self._lock:
                known = self._active.get(path)
                if known is not None:
                    self._active[path] = folder  # ignore globs may have changed
            if known is None:
                problem = self._source.watch(path)
                with self._lock:
                    self._active[path] = folder
                    self._rescan.add(path)
                if problem:
                    self._folders.mark_folder(path, "ok", f"{problem}; changes are found by periodic scans only")

    def _deactivate(self, path: str) -> None:
        self._source.unwatch(path)
        self._tracker.forget_under(path)
        with self._lock:
            self._active.pop(path, None)

    def _queue_moves(self) -> int:
        with self._lock:
            moves, self._moves = self._moves, []
        return self._queue.enqueue(moves) if moves else 0

    def _queue_settled(self, now: float) -> int:
        requests: list[JobRequest] = []
        for path in self._tracker.due(now):
            folder = self._root_of(path)
            if folder is None:
                continue
            if os.path.isdir(path) and not os.path.islink(path):
                requests.extend(
                    JobRequest(str(f), folder.path, "upsert", PRIORITY_LIVE)
                    for f in walk_files(Path(path), folder.ignore)
                    if self._is_wanted(str(f), folder, False)
                )
            elif os.path.lexists(path):
                requests.append(JobRequest(path, folder.path, "upsert", PRIORITY_LIVE))
            else:
                requests.append(JobRequest(path, folder.path, "delete", PRIORITY_LIVE))
        for i in range(0, len(requests), self._tuning.batch):
            self._queue.enqueue(requests[i : i + self._tuning.batch])
        return len(requests)

    # ---- reconciliation ------------------------------------------------------------------------------

    def reconcile(self, folder: WatchedFolder) -> int:
        """Queue every difference between the folder on disk and what is indexed or queued; returns jobs queued."""
        root = folder.path
        if not os.path.isdir(root):
            return 0
        docs = self._index.live_documents_under(root)
        jobs = self._queue.known_under(root)
        batch: list[JobRequest] = []
        queued = files = 0
        for f in walk_files(Path(root), folder.ignore):
            path = str(f)
            if not self._is_wanted(path, folder, False):
                continue
            files += 1
            indexed = docs.pop(path, None)
            if path in jobs and jobs[path] is None:
                continue  # already queued or running
            sig = signature(path)
            if sig is None:
                continue  # vanished meanwhile: its own event reports it
            if sig == indexed or sig == jobs.get(path):
                continue
            batch.append(JobRequest(path, root, "upsert", PRIORITY_SCAN))
            if len(batch) >= self._tuning.batch:
                queued += self._queue.enqueue(batch)
                batch = []
        if files == 0 and docs:
            # An empty mount point looks exactly like a folder whose files were all deleted: keep the documents.
            self._folders.mark_folder(
                root, "ok",
                f"the folder is empty but {len(docs)} documents were indexed from it; is its drive mounted? "
                "They are kept; delete them with `ltm watch remove` if they are gone for good",
            )
            return queued + (self._queue.enqueue(batch) if batch else 0)
        gone = [JobRequest(p, root, "delete", PRIORITY_SCAN) for p in docs if not os.path.lexists(p)]
        for chunk in (batch, *[gone[i : i + self._tuning.batch] for i in range(0, len(gone), self._tuning.batch)]):
            if chunk:
                queued += self._queue.enqueue(chunk)
        self._folders.mark_folder(root, "ok", None)
        return queued

    def close(self) -> None:
        self._source.stop()
