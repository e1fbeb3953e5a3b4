"""Values and ports of the always-on worker: watched folders, file-system changes and the durable job queue."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from typing import Literal, Protocol

JobKind = Literal["upsert", "delete", "move"]
JobState = Literal["queued", "running", "done", "failed"]
ChangeKind = Literal["touched", "moved"]

# Higher runs first: a file the user just dropped beats a live event, which beats a reconciliation backlog.
PRIORITY_SCAN = 0
PRIORITY_LIVE = 10
PRIORITY_USER = 20


@dataclass(frozen=True)
class WatchedFolder:
    path: str
    ignore: tuple[str, ...]
    state: Literal["new", "ok", "missing"]
    reason: str | None = None
    scanned_at: str | None = None


@dataclass(frozen=True)
class ChangeEvent:
    """One file-system event: something changed at `path` (or `path` moved to `dest`)."""

    kind: ChangeKind
    path: str
    is_dir: bool
    dest: str | None = None


@dataclass(frozen=True)
class JobRequest:
    path: str
    root: str
    kind: JobKind
    priority: int = PRIORITY_SCAN
    src_path: str | None = None


@dataclass(frozen=True)
class Job:
    """A claimed job; `generation` tells whether the path was re-queued while this job ran."""

    id: int
    path: str
    root: str
    kind: JobKind
    src_path: str | None
    generation: int
    attempts: int
    worker: str


@dataclass(frozen=True)
class JobRecord:
    """A job's row as status shows it."""

    path: str
    kind: JobKind
    state: JobState
    attempts: int
    priority: int
    error: str | None
    outcome: str | None
    worker: str | None
    updated: str | None


@dataclass(frozen=True)
class WorkerInfo:
    id: str
    host: str
    pid: int
    started: str
    heartbeat_age_seconds: float


@dataclass(frozen=True)
class FileSignature:
    size: int
    mtime: float


@dataclass(frozen=True)
class RepoState:
    """The commit a git working tree is at, and which of its files differ from it."""

    top: str
    commit: str
    dirty_paths: frozenset[str]  # real paths; a folder (untracked or ignored as a whole) ends with a separator

    def is_dirty(self, real_path: str) -> bool:
        """True when the file differs from the commit: modified, staged, untracked or ignored."""
        if real_path in self.dirty_paths:
            return True
        return any(p.endswith(("/", "\\")) and real_path.startswith(p) for p in self.dirty_paths)


class JobQueue(Protocol):
    def enqueue(self, requests: Sequence[JobRequest]) -> int: ...

    def claim(self, worker: str, limit: int, lease_seconds: float, max_attempts: int) -> list[Job]: ...

    def finish(self, job: Job, outcome: str, pages: int | None, sig: FileSignature | None) -> None: ...

    def retry(self, job: Job, error: str, delay_seconds: float) -> None: ...

    def fail(self, job: Job, error: str, sig: FileSignature | None) -> None: ...

    def renew(self, worker: str, lease_seconds: float) -> None: ...

    def register_worker(self, worker: str, host: str, pid: int) -> None: ...

    def unregister_worker(self, worker: str) -> None: ...

    def release_dead_workers(self, host: str, is_alive: Callable[[str], bool], max_attempts: int) -> int: ...

    def is_paused(self) -> bool: ...

    def pending_count(self) -> int: ...

    def set_paused(self, paused: bool) -> None: ...

    def known_under(self, root: str) -> dict[str, FileSignature | None]: ...

    def drop_under(self, root: str) -> int: ...


class FolderStore(Protocol):
    def folders(self) -> list[WatchedFolder]: ...

    def add_folder(self, path: str, ignore: Sequence[str]) -> None: ...

    def remove_folder(self, path: str) -> bool: ...

    def mark_folder(self, path: str, state: str, reason: str | None) -> None: ...


class IndexMaintenance(Protocol):
    """Document-side changes the worker makes beyond ingesting: tombstones, folder moves, git state."""

    def live_documents_under(self, root: str) -> dict[str, FileSignature]: ...

    def tombstone(self, path: str) -> int: ...

    def purge_tombstones(self, older_than_seconds: float) -> int: ...

    def repoint_folder(self, old_prefix: str, new_prefix: str, root: str) -> int: ...

    def record_git_state(self, path: str, commit: str, dirty: bool) -> None: ...


class ChangeSource(Protocol):
    """Delivers file-system events for watched folders to a callback (from its own thread)."""

    def watch(self, root: str) -> str | None:
        """Start watching; None on success, else the reason it cannot be watched."""
        ...

    def unwatch(self, root: str) -> None: ...

    def watched(self) -> Iterable[str]: ...

    def stop(self) -> None: ...


class StatusReader(Protocol):
    """The read side of the queue, for `ltm status`, the tray and the MCP stats tool."""

    def has_queue(self) -> bool: ...

    def job_counts(self) -> dict[str, int]: ...

    def throughput(self, window_seconds: float) -> tuple[int, int, float]:
        """(files, pages, seconds spent) over jobs finished within the window."""
        ...

    def workers(self) -> list[WorkerInfo]: ...

    def jobs(self, states: Sequence[str], limit: int) -> list[JobRecord]: ...

    def folders(self) -> list[WatchedFolder]: ...

    def is_paused(self) -> bool: ...


class RepoProbe(Protocol):
    def state(self, folder: str) -> RepoState | None: ...


class Wakeup(Protocol):
    def wait(self, timeout: float) -> bool:
        """Block until the queue, folders or pause switch change (True) or the timeout passes (False)."""
        ...

    def close(self) -> None: ...
