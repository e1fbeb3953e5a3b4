"""Ingestion: preflight -> extract -> chunk -> embed -> one short transaction that swaps the document's rows.

Outcomes are values (Ingested | Unchanged | Repointed | Skipped | Failed), never exceptions: one bad file
must not stop a run of ten thousand. Known content (same sha256) is never extracted or embedded again,
whether it was touched, renamed, moved or copied.
"""

from __future__ import annotations

import concurrent.futures as cf
import logging
import multiprocessing
import os
from collections import deque
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Protocol

from ltm_desktop.core.chunking import CHUNKER_VERSION, ChunkSizes, chunk_pages, embedding_text
from ltm_desktop.core.doc_types import guess_doc_type
from ltm_desktop.core.errors import KnownError
from ltm_desktop.core.hashing import sha256_file
from ltm_desktop.core.models import (
    Extracted,
    Failed,
    FileFacts,
    Ingested,
    IngestOutcome,
    Repointed,
    Skipped,
    Unchanged,
)
from ltm_desktop.core.ports import DocumentStore, Embedder, StoredDocument
from ltm_desktop.services.file_walk import is_ignored, walk_files

log = logging.getLogger(__name__)
EMBED_BATCH = 64


class FileExtractorPort(Protocol):
    def supports(self, path: Path) -> bool: ...

    def extract(self, path: Path) -> Extracted: ...


@dataclass(frozen=True)
class IngestLimits:
    max_file_bytes: int = 512 * 1024 * 1024
    workers: int = 1  # extraction processes; 1 extracts in this process


@dataclass(frozen=True)
class _Planned:
    facts: FileFacts
    sha256: str


ProgressFn = Callable[[int, int, IngestOutcome], None]


def default_workers() -> int:
    """One extraction process per core, leaving one core for the user and for embedding."""
    return max(1, (os.cpu_count() or 2) - 1)


def title_from_name(path: str) -> str:
    stem = Path(path).stem.replace("_", " ").replace("-", " ").strip()
    return " ".join(stem.split()) or Path(path).name


def _extract_in_child(extractor: FileExtractorPort, path: str) -> Extracted | KnownError:
    """Runs in an extraction process: a KnownError travels back as a value; anything else is a bug and raises."""
    try:
        return extractor.extract(Path(path))
    except KnownError as e:
        return e


class IngestService:
    def __init__(
        self,
        store: DocumentStore,
        embedder: Embedder,
        extractor: FileExtractorPort,
        sizes: ChunkSizes = ChunkSizes(),
        limits: IngestLimits = IngestLimits(),
    ) -> None:
        self._store = store
        self._embedder = embedder
        self._extractor = extractor
        self._sizes = sizes
        self._limits = limits
        self.pipeline = f"chunker{CHUNKER_VERSION}:{sizes.target}/{sizes.maximum}/{sizes.overlap}:{embedder.pin.model_id}"

    # ---- listing -------------------------------------------------------------------------------------

    def list_files(self, paths: Iterable[Path], ignore: Sequence[str] = ()) -> list[tuple[Path, Path]]:
        """(file, root) pairs for files and folders given; a folder is its own root, a file's root is its folder."""
        out: list[tuple[Path, Path]] = []
        for given in paths:
            p = Path(os.path.abspath(given))
            if p.is_dir():
                out.extend((f, p) for f in walk_files(p, ignore))
            else:
                out.append((p, p.parent))
        return out

    # ---- one file ------------------------------------------------------------------------------------

    def _fail(self, path: str, reason: str) -> Failed:
        self._store.record_issue(path, "failed", reason)
        return Failed(path, reason)

    def _skip(self, path: str, reason: str) -> Skipped:
        self._store.record_issue(path, "skipped", reason)
        return Skipped(path, reason)

    def preflight(self, path: Path, root: Path) -> IngestOutcome | _Planned:
        """Everything short of reading the content: exists, safe, supported, sized, hashed, already known?"""
        spath = str(path)
        if is_ignored(path):
            return Skipped(spath, "temporary or system file")
        try:
            if path.is_symlink():
                target = path.resolve(strict=True)
                if not target.is_relative_to(root.resolve()):
                    return self._skip(spath, f"symlink leads outside {root} (to {target}); not followed")
            st = path.stat()
        except RuntimeError:  # Python 3.11 reports a symlink loop this way (later versions raise OSError ELOOP)
            return self._skip(spath, "symlink loop: the link points back at itself")
        except FileNotFoundError:
            return self._fail(spath, "the file vanished before it could be read (deleted or moved)")
        except (PermissionError, OSError) as e:
            return self._fail(spath, f"cannot read the file: {e.strerror or e}")
        if not path.is_file():
            return self._skip(spath, "not a regular file")
        if not self._extractor.supports(path):
            return self._skip(spath, f"unsupported file type {path.suffix.lower() or '(no extension)'}")
        if st.st_size == 0:
            return self._fail(spath, "empty file (0 bytes): nothing to index")
        if st.st_size > self._limits.max_file_bytes:
            cap = self._limits.max_file_bytes // (1024 * 1024)
            return self._skip(spath, f"larger than the {cap} MiB limit (max_file_mb); raise it to index this file")
        facts = FileFacts(spath, str(root), os.path.relpath(spath, root), st.st_size, st.st_mtime)
        try:
            sha = sha256_file(path)
        except FileNotFoundError:
            return self._fail(spath, "the file vanished while it was being read")
        except OSError as e:
            return self._fail(spath, f"cannot read the file: {e.strerror or e}")
        known = self._store.document_at(spath)
        if known is not None and known.sha256 == sha:
            if (known.size, known.mtime) != (facts.size, facts.mtime):
                self._store.touch_document(known.doc_id, facts)
            return Unchanged(spath, known.doc_id)
        holders = self._store.documents_with_content(sha)
        revived = next((d for d in holders if d.path == spath), None)
        if revived is not None:
            # A tombstone at this very path: the file came back (a restore, or a delete + re-create); revive it.
            self._store.move_document(revived.doc_id, facts)
            return Repointed(spath, revived.doc_id, spath)
        same = [d for d in holders if d.path != spath]
        if same:
            return self._repoint(facts, sha, same)
        return _Planned(facts, sha)

    def _repoint(self, facts: FileFacts, sha: str, same: list[StoredDocument]) -> Repointed:
        # A holder whose file is gone (or already tombstoned) moved here; otherwise this is a copy.
        for doc in same:
            if not os.path.exists(doc.path):
                self._store.move_document(doc.doc_id, facts)
                return Repointed(facts.path, doc.doc_id, doc.path)
        source = same[0]
        doc_id = self._store.link_existing_content(facts, sha, source.title, source.doc_type, self.pipeline)
        return Repointed(facts.path, doc_id, None)

    def finish(self, planned: _Planned, extracted: Extracted | KnownError) -> IngestOutcome:
        """Chunk, embed and store an extracted file (or record why it failed)."""
        path = planned.facts.path
        if isinstance(extracted, KnownError):
            return self._fail(path, str(extracted))
        if extracted.skip_reason:
            self._store.remove_document(path)
            return self._skip(path, extracted.skip_reason)
        chunks = chunk_pages(extracted.pages, self._sizes, extracted.split_on_headings)
        title = extracted.title or title_from_name(path)
        doc_type = (extracted.doc_type or guess_doc_type(Path(path).name, extracted.full_text, extracted.mime)).lower()
        texts = [embedding_text(title, c) for c in chunks]
        try:
            vectors: list[list[float]] = []
            for i in range(0, len(texts), EMBED_BATCH):
                vectors.extend(self._embedder.embed_documents(texts[i : i + EMBED_BATCH]))
        except KnownError as e:
            return self._fail(path, f"embedding failed: {e}")
        try:
            doc_id = self._store.save_new_content(
                planned.facts, planned.sha256, extracted, title, doc_type, chunks, vectors, self.pipeline
            )
        except KnownError as e:
            return self._fail(path, f"could not save: {e}")
        ocr_pages = sum(1 for p in extracted.pages if p.source == "ocr")
        if not chunks:
            self._store.record_issue(path, "warning", "no readable text on any page (blank, or a scan OCR could not read)")
        elif any(p.source == "ocr" and (p.ocr_confidence or 0) < 60 for p in extracted.pages):
            low = [str(p.number) for p in extracted.pages if p.source == "ocr" and (p.ocr_confidence or 0) < 60]
            self._store.record_issue(path, "warning", f"indexed, but OCR confidence is low on page(s) {', '.join(low)}")
        return Ingested(path, doc_id, len(chunks), len(extracted.pages), ocr_pages)

    def ingest_file(self, path: Path, root: Path | None = None) -> IngestOutcome:
        """Ingest one file in this process."""
        path = Path(os.path.abspath(path))
        planned = self.preflight(path, root or path.parent)
        if not isinstance(planned, _Planned):
            return planned
        try:
            extracted: Extracted | KnownError = self._extractor.extract(path)
        except KnownError as e:
            extracted = e
        return self.finish(planned, extracted)

    # ---- many files ----------------------------------------------------------------------------------

    def ingest_paths(
        self, paths: Iterable[Path], progress: ProgressFn | None = None, ignore: Sequence[str] = ()
    ) -> list[IngestOutcome]:
        """Ingest files and folders; extraction runs in worker processes ahead of embedding."""
        files = self.list_files(paths, ignore)
        outcomes: list[IngestOutcome] = []

        def done(outcome: IngestOutcome) -> None:
            outcomes.append(outcome)
            if progress:
                progress(len(outcomes), len(files), outcome)

        if self._limits.workers <= 1 or len(files) < 3:
            for f, root in files:
                done(self._ingest_guarded(f, root))
            return outcomes
        # spawn, not fork: the parent holds onnxruntime threads, which fork would copy mid-flight.
        ctx = multiprocessing.get_context("spawn")
        with cf.ProcessPoolExecutor(self._limits.workers, mp_context=ctx) as pool:
            window: deque[tuple[_Planned, cf.Future]] = deque()
            pending = iter(files)
            for planned_or_outcome in self._preflight_stream(pending):
                if not isinstance(planned_or_outcome, _Planned):
                    done(planned_or_outcome)
                    continue
                window.append((planned_or_outcome, pool.submit(_extract_in_child, self._extractor, planned_or_outcome.facts.path)))
                while len(window) > self._limits.workers * 2:
                    done(self._finish_future(*window.popleft()))
            while window:
                done(self._finish_future(*window.popleft()))
        return outcomes

    def _preflight_stream(self, files: Iterator[tuple[Path, Path]]) -> Iterator[IngestOutcome | _Planned]:
        for f, root in files:
            try:
                yield self.preflight(f, root)
            except KnownError as e:
                yield self._fail(str(f), str(e))

    def _finish_future(self, planned: _Planned, future: cf.Future) -> IngestOutcome:
        try:
            return self.finish(planned, future.result())
        except KnownError as e:
            return self._fail(planned.facts.path, str(e))
        except Exception as e:  # a crashed extraction process or a bug: record it, keep the run going
            log.exception("extraction of %s failed", planned.facts.path)
            return self._fail(planned.facts.path, f"unexpected error while reading the file: {type(e).__name__}: {e}")

    def _ingest_guarded(self, path: Path, root: Path) -> IngestOutcome:
        try:
            return self.ingest_file(path, root)
        except KnownError as e:
            return self._fail(str(path), str(e))
        except Exception as e:  # the per-file loop: one bug must not stop the run; logged with traceback
            log.exception("ingest of %s failed", path)
            return self._fail(str(path), f"unexpected error: {type(e).__name__}: {e}")
