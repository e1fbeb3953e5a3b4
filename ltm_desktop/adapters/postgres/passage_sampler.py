"""PgPassageSampler: read-only sampling of indexed passages for `ltm eval --on-my-documents`.

Sampling orders chunks by a hash of their id and the seed, so the same seed picks the same passages and
nothing is written. Term counts use the same English text search configuration as the full-text index,
so "is this word in the index" means what the lexical retriever would see.
"""

from __future__ import annotations

from collections.abc import Sequence

from ltm_desktop.adapters.postgres.database import Database

_LIVE = """
    ct.lifecycle = 'active'
    AND EXISTS (SELECT 1 FROM documents d WHERE d.sha256 = c.sha256 AND d.deleted_at IS NULL)
"""


class PgPassageSampler:
    def __init__(self, db: Database) -> None:
        self._db = db

    def sample(self, n: int, seed: int, min_chars: int) -> list[tuple[int, str, str, tuple[str, ...]]]:
        """(chunk id, text, context line, paths holding it) for up to n searchable chunks; same seed, same chunks."""
        with self._db.connection() as conn:
            rows = conn.execute(
                f"""SELECT c.id, c.text, c.context,
                           (SELECT array_agg(d.path ORDER BY d.id) FROM documents d
                            WHERE d.sha256 = c.sha256 AND d.deleted_at IS NULL) AS paths
                    FROM chunks c JOIN contents ct ON ct.sha256 = c.sha256
                    WHERE length(c.text) >= %s AND {_LIVE}
                    ORDER BY md5(c.id::text || ':' || %s::text) LIMIT %s""",
                (min_chars, seed, n),
            ).fetchall()
        return [(r[0], r[1], r[2], tuple(r[3] or ())) for r in rows]

    def document_frequencies(self, terms: Sequence[str]) -> dict[str, int]:
        """How many searchable chunks contain each term (after English stemming), through the GIN index."""
        if not terms:
            return {}
        with self._db.connection() as conn:
            rows = conn.execute(
                f"""SELECT t, (SELECT count(*) FROM chunks c JOIN contents ct ON ct.sha256 = c.sha256
                               WHERE c.tsv @@ plainto_tsquery('english', t) AND {_LIVE})
                    FROM unnest(%s::text[]) AS t""",
                (list(terms),),
            ).fetchall()
        return {r[0]: int(r[1]) for r in rows}

    def counts(self) -> tuple[int, int]:
        """(live documents, searchable chunks)."""
        with self._db.connection() as conn:
            docs = conn.execute("SELECT count(*) FROM documents WHERE deleted_at IS NULL").fetchone()[0]
            chunks = conn.execute(
                f"SELECT count(*) FROM chunks c JOIN contents ct ON ct.sha256 = c.sha256 WHERE {_LIVE}"
            ).fetchone()[0]
        return int(docs), int(chunks)
