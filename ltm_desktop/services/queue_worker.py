"""The working half of the worker: claim jobs, extract in a process pool, embed and store, record the outcome.

Only a few jobs are claimed ahead of the pool (twice its size), so memory stays flat whatever the backlog:
the backlog lives in Postgres. Every job ends as done, failed (after retries with backoff) or back in the
queue; one bad file never blocks the others, and a crashed extraction process is replaced.
"""

from __future__ import annotations

import concurrent.futures as cf
import logging
import multiprocessing
import os
import signal
import sys
import threading
import time
from collections.abc import Callable
from concurrent.futures.process import BrokenProcessPool
from dataclasses import dataclass
from pathlib import Path

from ltm_desktop.core.errors import KnownError
from ltm_desktop.core.jobs import FileSignature, IndexMaintenance, Job, JobQueue, RepoProbe, RepoState, Wakeup
from ltm_desktop.core.models import Extracted, Failed, Ingested, IngestOutcome, Repointed, Skipped, Unchanged
from ltm_desktop.services.ingest import FileExtractorPort, IngestService

log = logging.getLogger(__name__)
_OUTCOMES = (Ingested, Unchanged, Repointed, Skipped, Failed)
LIGHT_SUFFIXES = (".txt", ".text", ".md", ".markdown", ".html", ".htm", ".eml")


@dataclass(frozen=True)
class WorkerTuning:
    processes: int = 1
    lease_seconds: float = 60.0
    max_attempts: int = 3
    retry_seconds: float = 10.0
    poll_seconds: float = 1.0
    nice: int = 10
    tasks_per_process: int = 50  # replace extraction processes now and then, so a leak in a parser can't grow


def _init_extraction_process(nice: int) -> None:
    """Tie an extraction process to its worker's life, and bring it down to `nice` (absolute, not relative)."""
    if sys.platform.startswith("linux"):
        # A worker killed with -9 cannot stop its pool; the kernel then ends the orphaned OCR instead.
        import ctypes

        ctypes.CDLL(None, use_errno=True).prctl(1, signal.SIGKILL)  # PR_SET_PDEATHSIG
        if os.getppid() == 1:
            os._exit(0)  # the worker died before the line above took effect
    if nice > 0 and hasattr(os, "nice"):
        current = os.nice(0)
        if nice > current:
            os.nice(nice - current)


def extract_in_process(extractor: FileExtractorPort, path: str) -> Extracted | KnownError:
    """Runs in an extraction process: a KnownError comes back as a value; anything else is a bug and raises."""
    try:
        return extractor.extract(Path(path))
    except KnownError as e:
        return e


def signature(path: str) -> FileSignature | None:
    """Size and mtime of the file (of the link itself when it is broken or loops); None when nothing is there."""
    try:
        st = os.stat(path)
    except OSError:
        try:
            st = os.lstat(path)
        except OSError:
            return None
    return FileSignature(st.st_size, st.st_mtime)


@dataclass
class _InFlight:
    job: Job
    planned: object
    sig: FileSignature | None


class QueueWorker:
    def __init__(
        self,
        worker_id: str,
        queue: JobQueue,
        ingest: IngestService,
        extractor: FileExtractorPort,
        index: IndexMaintenance,
        wakeup: Wakeup,
        repos: RepoProbe | None = None,
        tuning: WorkerTuning = WorkerTuning(),
    ) -> None:
        self.worker_id = worker_id
        self._queue = queue
        self._ingest = ingest
        self._extractor = extractor
        self._index = index
        self._wakeup = wakeup
        self._repos = repos
        self._tuning = tuning
        self._pool: cf.ProcessPoolExecutor | None = None
        self._in_flight: dict[cf.Future, _InFlight] = {}
        self._repo_cache: dict[str, tuple[float, RepoState | None]] = {}
        self.processed = 0
        self.on_result: Callable[[Job, str], None] | None = None

    # ---- the loop ------------------------------------------------------------------------------------

    def run(self, stop: threading.Event, until_idle: bool = False) -> int:
        """Work until stop is set (or, with until_idle, until nothing is runnable); returns jobs processed."""
        t = self._tuning
        try:
            while not stop.is_set():
                try:
                    claimed = self._claim_more()
                except KnownError as e:
                    log.warning("worker: %s", e)
                    claimed = 0
                    stop.wait(t.poll_seconds)
                if self._in_flight:
                    done, _ = cf.wait(list(self._in_flight), timeout=t.poll_seconds, return_when=cf.FIRST_COMPLETED)
                    for future in done:
                        try:
                            self._complete(future)
                        except KnownError as e:  # the store went away mid-job: its lease hands it back later
                            log.warning("worker: %s", e)
                    continue
                if claimed:
                    continue
                if until_idle and (self._queue.is_paused() or not self._queue.pending_count()):
                    break
                self._wakeup.wait(t.poll_seconds)
        finally:
            self._drain()
            self._wakeup.close()
        return self.processed

    def _claim_more(self) -> int:
        room = max(1, self._tuning.processes) * 2 - len(self._in_flight)
        if room <= 0 or self._queue.is_paused():
            return 0
        jobs = self._queue.claim(self.worker_id, room, self._tuning.lease_seconds, self._tuning.max_attempts)
        for job in jobs:
            self._start_guarded(job)
        return len(jobs)

    def _drain(self) -> None:
        """On stop: let running extractions finish so their work is not thrown away, then close the pool."""
        for future in list(self._in_flight):
            try:
                cf.wait([future], timeout=self._tuning.lease_seconds)
                self._complete(future)
            except Exception:  # shutting down: whatever is left returns to the queue via the lease
                log.exception("finishing a job during shutdown failed")
        if self._pool is not None:
            self._pool.shutdown(wait=True, cancel_futures=True)
            self._pool = None

    def _executor(self) -> cf.ProcessPoolExecutor:
        if self._pool is None:
            t = self._tuning
            # spawn, not fork: this process holds onnxruntime threads, which fork would copy mid-flight.
            self._pool = cf.ProcessPoolExecutor(
                max(1, t.processes),
                mp_context=multiprocessing.get_context("spawn"),
                initializer=_init_extraction_process,
                initargs=(t.nice,),
                max_tasks_per_child=t.tasks_per_process,
            )
        return self._pool

    # ---- one job -------------------------------------------------------------------------------------

    def _start_guarded(self, job: Job) -> None:
        try:
            self._start(job)
        except KnownError as e:
            self._failed(job, str(e), signature(job.path))
        except Exception as e:  # the per-job guard: a bug on one file is recorded and the queue moves on
            log.exception("job for %s failed", job.path)
            self._failed(job, f"unexpected error: {type(e).__name__}: {e}", signature(job.path))

    def _start(self, job: Job) -> None:
        path = job.path
        if job.kind == "move" and job.src_path and os.path.isdir(path):
            n = self._index.repoint_folder(job.src_path, path, job.root)
            self._finish(job, f"folder moved from {job.src_path} ({n} documents re-pointed)", None, None)
            return
        if not os.path.lexists(path) or (job.kind == "delete" and not os.path.exists(path)):
            n = self._index.tombstone(path)
            self._finish(job, f"deleted ({n} documents hidden)" if n else "deleted", None, None)
            return
        if os.path.islink(path) and not os.path.exists(path):
            reason = "a broken or looping symbolic link: its target cannot be reached"
            self._failed(job, reason, signature(path), retry=False)
            return
        if os.path.isdir(path):
            self._finish(job, "skipped: a folder", None, None)
            return
        sig = signature(path)
        planned = self._ingest.preflight(Path(path), Path(job.root))
        if isinstance(planned, _OUTCOMES):
            self._settle(job, planned, sig)
            return
        if path.lower().endswith(LIGHT_SUFFIXES):
            # Plain text and markup parse in milliseconds: a round trip through the pool would cost more.
            future: cf.Future = cf.Future()
            future.set_result(extract_in_process(self._extractor, path))
        else:
            future = self._executor().submit(extract_in_process, self._extractor, path)
        self._in_flight[future] = _InFlight(job, planned, sig)

    def _complete(self, future: cf.Future) -> None:
        flight = self._in_flight.pop(future)
        job = flight.job
        try:
            outcome = self._ingest.finish(flight.planned, future.result())  # type: ignore[arg-type]
        except BrokenProcessPool:
            self._pool = None  # replaced on the next submit; the other jobs in it fail the same way and retry
            self._failed(job, "the extraction process crashed on this file (or next to it)", flight.sig)
            return
        except KnownError as e:
            self._failed(job, str(e), flight.sig)
            return
        except Exception as e:  # the per-job guard, as in _start_guarded
            log.exception("job for %s failed", job.path)
            self._failed(job, f"unexpected error while reading the file: {type(e).__name__}: {e}", flight.sig)
            return
        self._settle(job, outcome, flight.sig)

    def _settle(self, job: Job, outcome: IngestOutcome, sig: FileSignature | None) -> None:
        if isinstance(outcome, Failed):
            if not os.path.lexists(job.path):  # deleted while queued or while being read
                n = self._index.tombstone(job.path)
                self._finish(job, f"deleted ({n} documents hidden)" if n else "deleted", None, None)
            else:
                self._failed(job, outcome.reason, sig)
            return
        if isinstance(outcome, Skipped):
            self._finish(job, f"skipped: {outcome.reason}", None, sig)
            return
        if job.kind == "move" and job.src_path and not os.path.lexists(job.src_path):
            self._index.tombstone(job.src_path)  # the old name's document, unless the ingest re-pointed it
        if isinstance(outcome, Ingested):
            self._record_git(job, sig)
            self._finish(job, "ingested", outcome.pages, sig)
        elif isinstance(outcome, Repointed):
            self._record_git(job, sig)
            label = f"moved from {outcome.from_path}" if outcome.from_path else "copy of indexed content"
            self._finish(job, label, None, sig)
        else:
            self._finish(job, "unchanged", None, sig)

    def _finish(self, job: Job, outcome: str, pages: int | None, sig: FileSignature | None) -> None:
        self._queue.finish(job, outcome, pages, sig)
        self._done(job, outcome)

    def _failed(self, job: Job, reason: str, sig: FileSignature | None, retry: bool = True) -> None:
        t = self._tuning
        if retry and job.attempts < t.max_attempts:
            delay = t.retry_seconds * 2 ** (job.attempts - 1)
            self._queue.retry(job, reason, delay)
            self._done(job, f"retry in {delay:.0f}s: {reason}")
        else:
            self._queue.fail(job, reason, sig)
            self._done(job, f"failed: {reason}")

    def _done(self, job: Job, outcome: str) -> None:
        self.processed += 1
        log.info("%s: %s", job.path, outcome)
        if self.on_result:
            self.on_result(job, outcome)

    # ---- git -----------------------------------------------------------------------------------------

    def _record_git(self, job: Job, sig: FileSignature | None) -> None:
        if self._repos is None:
            return
        now = time.time()
        cached = self._repo_cache.get(job.root)
        # One `git status` per folder per few seconds, not per file; a file changed since then needs a fresh look.
        # A folder that is not a repository is asked again only once a minute.
        if cached is None or (cached[1] is None and now - cached[0] > 60.0) or (cached[1] is not None and (
                now - cached[0] > 5.0 or (sig is not None and sig.mtime >= cached[0] - 1.0))):
            cached = (now, self._repos.state(job.root))
            self._repo_cache[job.root] = cached
        state = cached[1]
        if state is not None:
            dirty = state.is_dirty(os.path.realpath(job.path))
            self._index.record_git_state(job.path, state.commit, dirty)
