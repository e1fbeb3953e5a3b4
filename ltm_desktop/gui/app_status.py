"""What the tray shows: one state (idle, indexing, paused, error), a progress fraction and a tooltip, from plain facts."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Literal

TrayState = Literal["starting", "idle", "indexing", "paused", "error"]


@dataclass(frozen=True)
class QueueFacts:
    """The worker queue as the status API reports it (all zero when there is no worker yet)."""

    queued: int = 0
    running: int = 0
    done: int = 0
    failed: int = 0
    paused: bool = False
    eta_seconds: float | None = None
    workers: int = 0


@dataclass(frozen=True)
class LocalIngest:
    """A batch the user dropped on the app, ingested in this process."""

    done: int
    total: int


@dataclass(frozen=True)
class StatusFacts:
    store_error: str | None = None
    store_ready: bool = False
    documents: int = 0
    failed_files: int = 0
    queue: QueueFacts = field(default_factory=QueueFacts)
    local: LocalIngest | None = None
    child_problems: tuple[str, ...] = ()  # children that gave up, with their reason
    server_url: str | None = None


@dataclass(frozen=True)
class AppStatus:
    state: TrayState
    headline: str
    tooltip: str
    progress: float | None = None
    problem: str | None = None
    counts: str = ""  # "1,234 documents indexed, 2 failed", for the menu's status line


def _eta(seconds: float | None) -> str:
    if seconds is None or seconds <= 0:
        return ""
    if seconds < 90:
        return f", about {seconds:.0f} s left"
    if seconds < 5400:
        return f", about {seconds / 60:.0f} min left"
    return f", about {seconds / 3600:.1f} h left"


def compose_status(f: StatusFacts) -> AppStatus:
    """The single state the tray shows; errors win over paused, paused over indexing, indexing over idle."""
    counts = f"{f.documents:,} documents indexed"
    if f.failed_files:
        counts += f", {f.failed_files:,} failed"
    q = f.queue
    pending = q.queued + q.running
    if f.store_error:
        return AppStatus("error", "The database is not running", f"LTM Desktop: the database is not running\n{f.store_error}", problem=f.store_error)
    if not f.store_ready:
        return AppStatus("starting", "Starting…", "LTM Desktop: starting the database…")
    lines = [counts]
    if f.server_url:
        lines.append(f"AI apps connect at {f.server_url}")
    if f.child_problems:
        problem = "\n".join(f.child_problems)
        return AppStatus("error", "A background service stopped", "LTM Desktop: " + "\n".join([*f.child_problems, *lines]), problem=problem, counts=counts)
    if q.paused:
        extra = f"; {pending:,} files waiting" if pending else ""
        return AppStatus("paused", "Indexing paused", "LTM Desktop: indexing paused" + extra + "\n" + "\n".join(lines), counts=counts)
    if f.local is not None and f.local.done < f.local.total:
        progress = f.local.done / max(1, f.local.total)
        head = f"Adding files: {f.local.done:,} of {f.local.total:,}"
        return AppStatus("indexing", head, "LTM Desktop: " + head + "\n" + "\n".join(lines), progress, counts=counts)
    if pending:
        total = pending + q.done
        progress = q.done / total if total else None
        head = f"Indexing: {pending:,} files to go{_eta(q.eta_seconds)}"
        return AppStatus("indexing", head, "LTM Desktop: " + head + "\n" + "\n".join(lines), progress, counts=counts)
    return AppStatus("idle", "Up to date", "LTM Desktop: up to date\n" + "\n".join(lines), counts=counts)
