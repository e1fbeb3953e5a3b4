"""The embedding-model pin: one row saying which model made the vectors, and the vector table sized for it."""

from __future__ import annotations

import psycopg
from psycopg import sql

from ltm_desktop.adapters.postgres.database import Database
from ltm_desktop.core.errors import ModelMismatch
from ltm_desktop.core.models import ModelPin

EMBEDDINGS_TABLE = "chunk_embeddings"


def read_pin(conn: psycopg.Connection) -> ModelPin | None:
    row = conn.execute("SELECT model_id, dim, files_sha256, query_prefix FROM model_pin WHERE id = 1").fetchone()
    return ModelPin(*row) if row else None


def create_embeddings_table(conn: psycopg.Connection, table: str, dim: int) -> None:
    """A vector table of the pinned dimension with an HNSW cosine index (built as rows arrive)."""
    conn.execute(
        sql.SQL(
            "CREATE TABLE IF NOT EXISTS {t} ("
            " chunk_id bigint PRIMARY KEY REFERENCES chunks ON DELETE CASCADE,"
            " embedding vector({d}) NOT NULL)"
        ).format(t=sql.Identifier(table), d=sql.Literal(dim))
    )
    conn.execute(
        # m 32 / ef_construction 128, as migration 0006 rebuilds existing indexes: pgvector's defaults (16 / 64)
        # stopped at recall@10 0.91 over 1M chunks even at the highest ef_search (docs/benchmarks.md).
        sql.SQL(
            "CREATE INDEX IF NOT EXISTS {i} ON {t} USING hnsw (embedding vector_cosine_ops)"
            " WITH (m = 32, ef_construction = 128)"
        ).format(
            i=sql.Identifier(f"{table}_hnsw"), t=sql.Identifier(table)
        )
    )


def mismatch_message(stored: ModelPin, configured: ModelPin) -> str:
    return (
        f"the index was built with embedding model {stored.model_id} ({stored.dim}-d) but the configured model is "
        f"{configured.model_id} ({configured.dim}-d); vectors from different models cannot be mixed. "
        "Run `ltm reindex` to re-embed everything with the configured model, or set embed_model back."
    )


def ensure_pin(db: Database, pin: ModelPin) -> None:
    """Pin the model on first write; afterwards refuse any other model with the fix spelled out."""
    with db.connection() as conn:
        conn.execute("LOCK TABLE model_pin IN EXCLUSIVE MODE")
        stored = read_pin(conn)
        if stored is None:
            conn.execute(
                "INSERT INTO model_pin (id, model_id, dim, files_sha256, query_prefix) VALUES (1, %s, %s, %s, %s)",
                (pin.model_id, pin.dim, pin.files_sha256, pin.query_prefix),
            )
            create_embeddings_table(conn, EMBEDDINGS_TABLE, pin.dim)
        elif (stored.model_id, stored.dim, stored.files_sha256) != (pin.model_id, pin.dim, pin.files_sha256):
            raise ModelMismatch(mismatch_message(stored, pin))
        elif stored.query_prefix != pin.query_prefix:
            # The prefix only shapes queries, never stored vectors, so following the setting is safe.
            conn.execute("UPDATE model_pin SET query_prefix = %s WHERE id = 1", (pin.query_prefix,))


def check_pin(db: Database, pin: ModelPin) -> None:
    """Read-only check for the search path: same model or a clear error (never a silent mix)."""
    with db.connection() as conn:
        stored = read_pin(conn)
    if stored is not None and (stored.model_id, stored.dim, stored.files_sha256) != (
        pin.model_id,
        pin.dim,
        pin.files_sha256,
    ):
        raise ModelMismatch(mismatch_message(stored, pin))
