"""The worker's status as one value: counts per state, throughput, ETA, workers, running and failed files.

`ltm status`, the tray and the MCP stats tool all show this same value, so they never disagree.
"""

from __future__ import annotations

from dataclasses import dataclass

from ltm_desktop.core.jobs import JobRecord, StatusReader, WatchedFolder, WorkerInfo

RATE_WINDOW_SECONDS = 300.0


@dataclass(frozen=True)
class WorkerStatus:
    """Lists, not tuples, so dataclasses.asdict() gives plain JSON for the MCP tool; never mutated after building."""

    queued: int
    running: int
    done: int
    failed: int
    paused: bool
    files_per_second: float | None
    pages_per_second: float | None
    eta_seconds: float | None
    workers: list[WorkerInfo]
    folders: list[WatchedFolder]
    running_files: list[JobRecord]
    failed_files: list[JobRecord]
    queued_files: list[JobRecord]

    @property
    def summary(self) -> str:
        """One line for a tray tooltip or a terminal."""
        state = "paused" if self.paused else ("working" if self.running or self.queued else "idle")
        if not self.workers and (self.queued or self.running):
            state = "no worker running"
        eta = f", ETA {format_duration(self.eta_seconds)}" if self.eta_seconds and not self.paused else ""
        rate = f", {self.pages_per_second:.1f} pages/s" if self.pages_per_second else ""
        return f"{state}: {self.queued} queued, {self.running} running, {self.done} done, {self.failed} failed{rate}{eta}"


def format_duration(seconds: float) -> str:
    s = int(seconds)
    if s >= 3600:
        return f"{s // 3600}h{s % 3600 // 60:02d}m"
    if s >= 60:
        return f"{s // 60}m{s % 60:02d}s"
    return f"{s}s"


def empty_status() -> WorkerStatus:
    return WorkerStatus(0, 0, 0, 0, False, None, None, None, [], [], [], [], [])


def read_status(reader: StatusReader, alive_within_seconds: float = 180.0, list_limit: int = 50) -> WorkerStatus:
    """Gather the status; workers whose heartbeat is older than alive_within_seconds are left out."""
    if not reader.has_queue():
        return empty_status()
    counts = reader.job_counts()
    files, pages, seconds = reader.throughput(RATE_WINDOW_SECONDS)
    fps = files / seconds if files and seconds > 0 else None
    pps = pages / seconds if pages and seconds > 0 else None
    backlog = counts["queued"] + counts["running"]
    eta = backlog / fps if fps and backlog else None
    listed = reader.jobs(("running", "failed", "queued"), list_limit * 3)
    return WorkerStatus(
        queued=counts["queued"],
        running=counts["running"],
        done=counts["done"],
        failed=counts["failed"],
        paused=reader.is_paused(),
        files_per_second=fps,
        pages_per_second=pps,
        eta_seconds=eta,
        workers=[w for w in reader.workers() if w.heartbeat_age_seconds <= alive_within_seconds],
        folders=reader.folders(),
        running_files=[j for j in listed if j.state == "running"][:list_limit],
        failed_files=[j for j in listed if j.state == "failed"][:list_limit],
        queued_files=[j for j in listed if j.state == "queued"][:list_limit],
    )
