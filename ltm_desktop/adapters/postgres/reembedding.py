"""Re-embedding into a shadow table, then one atomic swap: search keeps working on the old vectors until then."""

from __future__ import annotations

from collections.abc import Iterator, Sequence

from psycopg import sql

from ltm_desktop.adapters.postgres.database import Database
from ltm_desktop.adapters.postgres.document_store import as_vector
from ltm_desktop.adapters.postgres.model_pin import EMBEDDINGS_TABLE, create_embeddings_table
from ltm_desktop.core.models import ModelPin
from ltm_desktop.core.ports import Vector

SHADOW = f"{EMBEDDINGS_TABLE}_next"


class PgReembedding:
    def __init__(self, db: Database) -> None:
        self._db = db

    def start(self, pin: ModelPin) -> int:
        """Create (or resume) the shadow table for this model; returns how many chunks still need vectors."""
        with self._db.connection() as conn:
            conn.execute(
                "CREATE TABLE IF NOT EXISTS reembed_state (id int PRIMARY KEY CHECK (id = 1), model_id text, dim int)"
            )
            state = conn.execute("SELECT model_id, dim FROM reembed_state").fetchone()
            if state and (state[0], state[1]) != (pin.model_id, pin.dim):
                conn.execute(sql.SQL("DROP TABLE IF EXISTS {}").format(sql.Identifier(SHADOW)))
                state = None
            if not state:
                conn.execute("DELETE FROM reembed_state")
                conn.execute("INSERT INTO reembed_state VALUES (1, %s, %s)", (pin.model_id, pin.dim))
            create_embeddings_table(conn, SHADOW, pin.dim)
            return conn.execute(
                sql.SQL("SELECT count(*) FROM chunks c WHERE NOT EXISTS (SELECT 1 FROM {} s WHERE s.chunk_id = c.id)").format(
                    sql.Identifier(SHADOW)
                )
            ).fetchone()[0]

    def pending(self, batch: int) -> Iterator[list[tuple[int, str]]]:
        """Batches of (chunk_id, embedding text) that have no vector in the shadow table yet."""
        while True:
            with self._db.connection() as conn:
                rows = conn.execute(
                    sql.SQL(
                        "SELECT c.id, c.context || E'\\n' || c.text FROM chunks c"
                        " WHERE NOT EXISTS (SELECT 1 FROM {} s WHERE s.chunk_id = c.id) ORDER BY c.id LIMIT %s"
                    ).format(sql.Identifier(SHADOW)),
                    (batch,),
                ).fetchall()
            if not rows:
                return
            yield [(r[0], r[1]) for r in rows]

    def write(self, ids: Sequence[int], vectors: Sequence[Vector]) -> None:
        with self._db.connection() as conn:
            with conn.cursor().copy(
                sql.SQL("COPY {} (chunk_id, embedding) FROM STDIN WITH (FORMAT BINARY)").format(sql.Identifier(SHADOW))
            ) as copy:
                copy.set_types(["int8", "vector"])
                for cid, vec in zip(ids, vectors, strict=True):
                    copy.write_row((cid, as_vector(vec)))

    def swap(self, pin: ModelPin) -> None:
        """Replace the live vectors and the pin in one transaction."""
        with self._db.connection() as conn:
            conn.execute("LOCK TABLE model_pin IN EXCLUSIVE MODE")
            conn.execute(sql.SQL("DROP TABLE IF EXISTS {}").format(sql.Identifier(EMBEDDINGS_TABLE)))
            conn.execute(sql.SQL("ALTER TABLE {} RENAME TO {}").format(sql.Identifier(SHADOW), sql.Identifier(EMBEDDINGS_TABLE)))
            conn.execute(
                sql.SQL("ALTER INDEX {} RENAME TO {}").format(
                    sql.Identifier(f"{SHADOW}_hnsw"), sql.Identifier(f"{EMBEDDINGS_TABLE}_hnsw")
                )
            )
            conn.execute("DELETE FROM model_pin")
            conn.execute(
                "INSERT INTO model_pin (id, model_id, dim, files_sha256, query_prefix) VALUES (1, %s, %s, %s, %s)",
                (pin.model_id, pin.dim, pin.files_sha256, pin.query_prefix),
            )
            conn.execute("DROP TABLE reembed_state")
