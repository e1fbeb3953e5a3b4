"""PgDocumentStore: the write side of the document index.

A document is a path; its content (pages, chunks, vectors) is keyed by sha256 and shared by every path
that holds the same bytes, so a copy or a move never costs a re-embedding. New content is written in one
transaction, after every vector is ready, so a failure leaves the previous version fully searchable.
"""

from __future__ import annotations

from collections.abc import Sequence

import psycopg
from psycopg.types.json import Jsonb

from ltm_desktop.adapters.postgres.database import Database
from ltm_desktop.adapters.postgres.model_pin import EMBEDDINGS_TABLE
from ltm_desktop.core.chunking import CHUNKER_VERSION, chunk_context
from ltm_desktop.core.models import Chunk, Extracted, FileFacts
from ltm_desktop.core.ports import StoredDocument, Vector

_DOC_COLUMNS = "id, path, sha256, size, mtime, pipeline, title, doc_type"


class PgDocumentStore:
    def __init__(self, db: Database) -> None:
        self._db = db

    def document_at(self, path: str) -> StoredDocument | None:
        with self._db.connection() as conn:
            row = conn.execute(
                f"SELECT {_DOC_COLUMNS} FROM documents WHERE path = %s AND deleted_at IS NULL", (path,)
            ).fetchone()
        return StoredDocument(*row) if row else None

    def documents_with_content(self, sha256: str) -> list[StoredDocument]:
        with self._db.connection() as conn:
            rows = conn.execute(
                f"SELECT {_DOC_COLUMNS} FROM documents WHERE sha256 = %s ORDER BY deleted_at NULLS FIRST, id",
                (sha256,),
            ).fetchall()
        return [StoredDocument(*r) for r in rows]

    def save_new_content(
        self,
        facts: FileFacts,
        sha256: str,
        extracted: Extracted,
        title: str,
        doc_type: str,
        chunks: Sequence[Chunk],
        vectors: Sequence[Vector],
        pipeline: str,
    ) -> int:
        if len(chunks) != len(vectors):
            raise ValueError(f"{len(chunks)} chunks but {len(vectors)} vectors")
        with self._db.connection() as conn:
            inserted = conn.execute(
                "INSERT INTO contents (sha256, mime, paginated, page_count, ocr_pages, lifecycle, metadata,"
                " chunker_version) VALUES (%s, %s, %s, %s, %s, %s, %s, %s) ON CONFLICT (sha256) DO NOTHING"
                " RETURNING sha256",
                (
                    sha256,
                    extracted.mime,
                    extracted.paginated,
                    len(extracted.pages),
                    sum(1 for p in extracted.pages if p.source == "ocr"),
                    extracted.lifecycle,
                    Jsonb(extracted.metadata),
                    CHUNKER_VERSION,
                ),
            ).fetchone()
            if inserted:
                self._write_content_rows(conn, sha256, extracted, title, chunks, vectors)
            doc_id = self._upsert_document(conn, facts, sha256, title, doc_type, pipeline)
            conn.execute("DELETE FROM ingest_issues WHERE path = %s", (facts.path,))
        return doc_id

    def _write_content_rows(
        self,
        conn: psycopg.Connection,
        sha256: str,
        extracted: Extracted,
        title: str,
        chunks: Sequence[Chunk],
        vectors: Sequence[Vector],
    ) -> None:
        with conn.cursor().copy(
            "COPY pages (sha256, page_no, source, ocr_confidence, text) FROM STDIN"
        ) as copy:
            for p in extracted.pages:
                copy.write_row((sha256, p.number, p.source, p.ocr_confidence, p.text.replace("\x00", "")))
        with conn.cursor().copy(
            "COPY chunks (sha256, ordinal, text, context, page_from, page_to, heading, char_start, char_end)"
            " FROM STDIN"
        ) as copy:
            for c in chunks:
                copy.write_row(
                    (sha256, c.ordinal, c.text.replace("\x00", ""), chunk_context(title, c.heading),
                     c.page_from, c.page_to, c.heading, c.char_start, c.char_end)
                )
        ids = [
            r[0]
            for r in conn.execute("SELECT id FROM chunks WHERE sha256 = %s ORDER BY ordinal", (sha256,)).fetchall()
        ]
        with conn.cursor().copy(f"COPY {EMBEDDINGS_TABLE} (chunk_id, embedding) FROM STDIN WITH (FORMAT BINARY)") as copy:
            copy.set_types(["int8", "vector"])
            for chunk_id, vec in zip(ids, vectors, strict=True):
                copy.write_row((chunk_id, as_vector(vec)))

    def _upsert_document(
        self, conn: psycopg.Connection, facts: FileFacts, sha256: str, title: str, doc_type: str, pipeline: str
    ) -> int:
        old = conn.execute("SELECT id, sha256 FROM documents WHERE path = %s FOR UPDATE", (facts.path,)).fetchone()
        row = conn.execute(
            "INSERT INTO documents (path, root, rel_path, title, doc_type, sha256, size, mtime, pipeline)"
            " VALUES (%s, %s, %s, %s, %s, %s, %s, %s, %s)"
            " ON CONFLICT (path) DO UPDATE SET root = excluded.root, rel_path = excluded.rel_path,"
            " title = excluded.title, doc_type = excluded.doc_type, sha256 = excluded.sha256,"
            " size = excluded.size, mtime = excluded.mtime, pipeline = excluded.pipeline,"
            " deleted_at = NULL, updated_at = now()"
            " RETURNING id",
            (facts.path, facts.root, facts.rel_path, title, doc_type, sha256, facts.size, facts.mtime, pipeline),
        ).fetchone()
        if old and old[1] != sha256:
            _drop_orphan_content(conn, old[1])
        return int(row[0])

    def link_existing_content(self, facts: FileFacts, sha256: str, title: str, doc_type: str, pipeline: str) -> int:
        with self._db.connection() as conn:
            doc_id = self._upsert_document(conn, facts, sha256, title, doc_type, pipeline)
            conn.execute("DELETE FROM ingest_issues WHERE path = %s", (facts.path,))
        return doc_id

    def move_document(self, doc_id: int, facts: FileFacts) -> None:
        with self._db.connection() as conn:
            # A stale row may hold the target path (a file replaced by a move): the moved document wins.
            stale = conn.execute("SELECT id, sha256 FROM documents WHERE path = %s AND id <> %s", (facts.path, doc_id)).fetchone()
            if stale:
                conn.execute("DELETE FROM documents WHERE id = %s", (stale[0],))
                _drop_orphan_content(conn, stale[1])
            conn.execute(
                "UPDATE documents SET path = %s, root = %s, rel_path = %s, size = %s, mtime = %s,"
                " deleted_at = NULL, updated_at = now() WHERE id = %s",
                (facts.path, facts.root, facts.rel_path, facts.size, facts.mtime, doc_id),
            )
            conn.execute("DELETE FROM ingest_issues WHERE path = %s", (facts.path,))

    def touch_document(self, doc_id: int, facts: FileFacts) -> None:
        with self._db.connection() as conn:
            conn.execute(
                "UPDATE documents SET size = %s, mtime = %s, root = %s, rel_path = %s WHERE id = %s",
                (facts.size, facts.mtime, facts.root, facts.rel_path, doc_id),
            )
            conn.execute("DELETE FROM ingest_issues WHERE path = %s", (facts.path,))

    def record_issue(self, path: str, kind: str, reason: str) -> None:
        with self._db.connection() as conn:
            conn.execute(
                "INSERT INTO ingest_issues (path, kind, reason) VALUES (%s, %s, %s)"
                " ON CONFLICT (path) DO UPDATE SET kind = excluded.kind, reason = excluded.reason, at = now()",
                (path, kind, reason),
            )

    def clear_issue(self, path: str) -> None:
        with self._db.connection() as conn:
            conn.execute("DELETE FROM ingest_issues WHERE path = %s", (path,))

    def remove_document(self, path: str) -> bool:
        """Forget a document at once (its content too, when no other path holds it)."""
        with self._db.connection() as conn:
            row = conn.execute("DELETE FROM documents WHERE path = %s RETURNING sha256", (path,)).fetchone()
            if row:
                _drop_orphan_content(conn, row[0])
            conn.execute("DELETE FROM ingest_issues WHERE path = %s", (path,))
        return row is not None


def _drop_orphan_content(conn: psycopg.Connection, sha256: str) -> None:
    conn.execute(
        "DELETE FROM contents c WHERE c.sha256 = %s AND NOT EXISTS (SELECT 1 FROM documents d WHERE d.sha256 = c.sha256)",
        (sha256,),
    )


def as_vector(vec: Vector) -> object:
    import numpy as np

    return np.asarray(vec, dtype=np.float32)
