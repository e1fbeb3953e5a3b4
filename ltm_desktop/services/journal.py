"""The audit journal: every MCP tool call with its client, duration and outcome, kept for a retention period.

Query text is recorded only when the user turned `log_queries` on. Journaling never fails a tool call:
if the journal cannot be written, the call still answers and the problem is logged.
"""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable

from ltm_desktop.core.errors import KnownError
from ltm_desktop.core.models import Caller, ToolCall
from ltm_desktop.core.ports import JournalStore

log = logging.getLogger(__name__)
PRUNE_EVERY_S = 3600.0


class JournalService:
    def __init__(
        self,
        store: JournalStore,
        *,
        log_queries: bool,
        retention_days: int,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self._store = store
        self.log_queries = log_queries
        self.retention_days = max(1, retention_days)
        self._clock = clock
        self._next_prune = float("-inf")
        self._lock = threading.Lock()

    def record(
        self, tool: str, caller: Caller, duration_ms: float, ok: bool, error: str | None, query: str | None
    ) -> bool:
        """Append one call (pruning old rows now and then); False when the journal could not be written."""
        call = ToolCall(
            tool=tool, client=caller.client, transport=caller.transport, duration_ms=round(duration_ms, 2), ok=ok,
            error=error, query=query if self.log_queries else None,
        )
        try:
            self._store.record(call)
            self._prune_if_due()
        except KnownError as e:
            log.warning("tool call not journaled (%s): %s", tool, e)
            return False
        return True

    def prune(self) -> int:
        """Delete rows older than the retention period; returns how many."""
        removed = self._store.prune(self.retention_days)
        if removed:
            log.info("journal: removed %d calls older than %d days", removed, self.retention_days)
        return removed

    def _prune_if_due(self) -> None:
        now = self._clock()
        with self._lock:
            if now < self._next_prune:
                return
            self._next_prune = now + PRUNE_EVERY_S
        self.prune()

    def recent(self, limit: int = 20) -> list[ToolCall]:
        return self._store.recent(max(1, min(limit, 1000)))

    def summary(self, since_hours: int = 24) -> list[tuple[str, str, int, int]]:
        """(tool, client, calls, errors) over the last hours, busiest first."""
        return self._store.summary(max(1, since_hours))
