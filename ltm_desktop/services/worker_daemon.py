"""`ltm worker`: the watcher thread, the heartbeat thread and the job loop, started and stopped together.

On start, jobs left running by a dead worker on this host go straight back to the queue (no waiting for
their leases); on a clean stop, this worker's unfinished jobs are handed back at once.
"""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable

from ltm_desktop.core.errors import KnownError
from ltm_desktop.core.jobs import JobQueue
from ltm_desktop.services.folder_watcher import FolderWatcher
from ltm_desktop.services.queue_worker import QueueWorker

log = logging.getLogger(__name__)


def worker_identity(host: str, pid: int, token: str) -> str:
    """host:pid:token; the token tells a restarted process that reuses an old pid from that old one."""
    return f"{host}:{pid}:{token}"


class WorkerDaemon:
    def __init__(
        self,
        worker: QueueWorker,
        watcher: FolderWatcher | None,
        queue: JobQueue,
        host: str,
        pid: int,
        is_process_alive: Callable[[int], bool],
        lease_seconds: float,
        max_attempts: int,
    ) -> None:
        self._worker = worker
        self._watcher = watcher
        self._queue = queue
        self._host = host
        self._pid = pid
        self._is_process_alive = is_process_alive
        self._lease = lease_seconds
        self._max_attempts = max_attempts

    def _is_alive(self, worker_id: str) -> bool:
        if worker_id == self._worker.worker_id:
            return True
        try:
            pid = int(worker_id.split(":")[1])
        except (IndexError, ValueError):
            return True  # not ours to judge; its lease will tell
        return pid != self._pid and self._is_process_alive(pid)

    def run(self, stop: threading.Event, until_idle: bool = False) -> int:
        """Run until stop is set (or the queue is empty, with until_idle); returns jobs processed."""
        wid = self._worker.worker_id
        released = self._queue.release_dead_workers(self._host, self._is_alive, self._max_attempts)
        if released:
            log.warning("returned %d jobs of a stopped worker to the queue", released)
        self._queue.register_worker(wid, self._host, self._pid)
        halt = threading.Event()
        threads = [threading.Thread(target=self._heartbeat, args=(halt,), name="ltm-heartbeat", daemon=True)]
        if self._watcher is not None:
            self._watcher.tick(time.monotonic())  # folders synced and scanned before the first claim
            if not until_idle:
                threads.append(threading.Thread(target=self._watcher.run, args=(halt,), name="ltm-watcher", daemon=True))
        for t in threads:
            t.start()
        try:
            return self._worker.run(stop, until_idle=until_idle)
        finally:
            halt.set()
            for t in threads:
                t.join(timeout=10)
            if self._watcher is not None:
                self._watcher.close()
            try:
                self._queue.unregister_worker(wid)
            except KnownError as e:
                log.warning("could not hand jobs back on stop (%s); their leases will expire", e)

    def _heartbeat(self, halt: threading.Event) -> None:
        while not halt.wait(max(self._lease / 3.0, 0.2)):
            try:
                self._queue.renew(self._worker.worker_id, self._lease)
            except KnownError as e:
                log.warning("heartbeat: %s", e)
            except Exception:  # the heartbeat's top-level loop: log with traceback, keep beating
                log.exception("heartbeat failed")
