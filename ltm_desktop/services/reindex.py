"""`ltm reindex`: re-embed every chunk with the configured model, resumably, then switch atomically."""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence
from typing import Protocol

from ltm_desktop.core.models import ModelPin
from ltm_desktop.core.ports import Embedder, Vector


class Reembedding(Protocol):
    def start(self, pin: ModelPin) -> int: ...

    def pending(self, batch: int) -> Iterator[list[tuple[int, str]]]: ...

    def write(self, ids: Sequence[int], vectors: Sequence[Vector]) -> None: ...

    def swap(self, pin: ModelPin) -> None: ...


def reindex(store: Reembedding, embedder: Embedder, progress: Callable[[int, int], None] | None = None, batch: int = 256) -> int:
    """Re-embed all chunks (resuming an interrupted run); returns the number embedded in this run."""
    total = store.start(embedder.pin)
    done = 0
    for rows in store.pending(batch):
        vectors = embedder.embed_documents([text for _, text in rows])
        store.write([cid for cid, _ in rows], vectors)
        done += len(rows)
        if progress:
            progress(done, total)
    store.swap(embedder.pin)
    return done
