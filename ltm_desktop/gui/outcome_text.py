"""Ingest outcomes as words a person reads: a short result and the detail (the reason, for failures)."""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence

from ltm_desktop.core.models import Failed, Ingested, IngestOutcome, Repointed, Skipped, Unchanged


def describe_outcome(outcome: IngestOutcome) -> tuple[str, str]:
    """(result, detail) for one file."""
    if isinstance(outcome, Ingested):
        ocr = f", {outcome.ocr_pages} read by OCR" if outcome.ocr_pages else ""
        pages = f"{outcome.pages} page{'s' if outcome.pages != 1 else ''}"
        return "ingested", f"{pages}{ocr}, {outcome.chunks} passages"
    if isinstance(outcome, Unchanged):
        return "unchanged", "already indexed; nothing to do"
    if isinstance(outcome, Repointed):
        if outcome.from_path:
            return "moved", f"known content, moved from {outcome.from_path}"
        return "copy", "same content as a file already indexed; recorded without re-reading"
    if isinstance(outcome, Skipped):
        return "skipped", outcome.reason
    if isinstance(outcome, Failed):
        return "failed", outcome.reason
    return "unknown", repr(outcome)


def summarise(outcomes: Sequence[IngestOutcome]) -> str:
    """One line for a finished batch: '3 ingested, 1 unchanged, 1 failed'."""
    counts = Counter(describe_outcome(o)[0] for o in outcomes)
    order = ("ingested", "unchanged", "moved", "copy", "skipped", "failed")
    parts = [f"{counts[k]} {k}" for k in order if counts.get(k)]
    return ", ".join(parts) if parts else "no files found"
