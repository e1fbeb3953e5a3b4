"""PgMemoryStore: memories, versions, events, chunks and vectors in the same Postgres as the documents.

Writes go through their own pool, connected as `ltm_memory_writer` where that role exists (it can write
memory tables and nothing else). Every read applies the caller's scope (visibility, tombstones, expiry, the
time asked for) inside the SQL that ranks, so a filter never empties a top-k list and nothing leaks.
"""

from __future__ import annotations

import logging
from collections.abc import Iterator, Sequence
from datetime import UTC, datetime

import psycopg
from psycopg import sql
from psycopg.conninfo import make_conninfo

from ltm_desktop.adapters.postgres.database import Database, translate_errors
from ltm_desktop.adapters.postgres.document_store import as_vector
from ltm_desktop.adapters.postgres.fulltext import COMMON_TERM_SHARE, tsquery_cte
from ltm_desktop.core.chunking import chunk_context
from ltm_desktop.core.memory import (
    MemoryEvent,
    MemoryMatch,
    MemoryRecord,
    MemoryScope,
    MemoryVersion,
    MemoryView,
)
from ltm_desktop.core.models import Chunk, ModelPin
from ltm_desktop.core.ports import Vector

log = logging.getLogger(__name__)

WRITER_ROLE = "ltm_memory_writer"
VECTORS_TABLE = "memory_chunk_embeddings"
_VERSION_COLUMNS = (
    "v.version, v.supersedes, v.content, v.title, v.type, v.tags, v.project, v.visibility, v.confidence,"
    " v.expires_at, v.source, v.author, v.transport, v.created_at"
)


def memory_database(conninfo: str) -> Database:
    """A read-write pool for memory, as the narrow writer role when the server has it (else the main user)."""
    with translate_errors("memory"), psycopg.connect(conninfo, connect_timeout=10) as conn:
        has_role = conn.execute("SELECT 1 FROM pg_roles WHERE rolname = %s", (WRITER_ROLE,)).fetchone()
    if has_role:
        narrow = make_conninfo(conninfo, user=WRITER_ROLE)
        try:
            psycopg.connect(narrow, connect_timeout=10).close()
            return Database(narrow, read_only=False, label="memory (read-write)")
        except psycopg.OperationalError as e:
            # External servers may refuse the role a login (pg_hba); memory still works as the main user.
            log.info("memory: cannot connect as %s (%s); using the main user", WRITER_ROLE, str(e).strip()[:200])
    return Database(conninfo, read_only=False, label="memory (read-write)")


def ensure_memory_vectors(db: Database, pin: ModelPin) -> bool:
    """Create the memory vector table for the pinned model; True when existing vectors must be re-embedded.

    Run with the main user (it owns the schema). The table records which model made its vectors, so after
    `ltm reindex` switches models, memory notices and re-embeds instead of mixing vector spaces.
    """
    current = (pin.model_id, pin.dim, pin.files_sha256)

    def state(conn: psycopg.Connection) -> tuple[bool, bool]:
        row = conn.execute("SELECT model_id, dim, files_sha256 FROM memory_vector_model WHERE id = 1").fetchone()
        exists = conn.execute("SELECT to_regclass(%s) IS NOT NULL", (f"public.{VECTORS_TABLE}",)).fetchone()[0]
        return bool(exists), bool(exists and row is not None and tuple(row) == current)

    with db.connection() as conn:
        if state(conn)[1]:
            return False
        conn.execute("LOCK TABLE memory_vector_model IN EXCLUSIVE MODE")  # processes starting together take turns
        exists, ready = state(conn)
        if ready:
            return False
        stale = exists
        if stale:
            conn.execute(sql.SQL("DROP TABLE {}").format(sql.Identifier(VECTORS_TABLE)))
        conn.execute(
            sql.SQL(
                "CREATE TABLE {t} ("
                " chunk_id bigint PRIMARY KEY REFERENCES memory_chunks ON DELETE CASCADE,"
                " embedding vector({d}) NOT NULL)"
            ).format(t=sql.Identifier(VECTORS_TABLE), d=sql.Literal(pin.dim))
        )
        conn.execute(
            sql.SQL("CREATE INDEX {i} ON {t} USING hnsw (embedding vector_cosine_ops)").format(
                i=sql.Identifier(f"{VECTORS_TABLE}_hnsw"), t=sql.Identifier(VECTORS_TABLE)
            )
        )
        conn.execute("DELETE FROM memory_vector_model")
        conn.execute("INSERT INTO memory_vector_model VALUES (1, %s, %s, %s)", current)
        if conn.execute("SELECT 1 FROM pg_roles WHERE rolname = %s", (WRITER_ROLE,)).fetchone():
            conn.execute(
                sql.SQL("GRANT SELECT, INSERT, UPDATE, DELETE ON {} TO {}").format(
                    sql.Identifier(VECTORS_TABLE), sql.Identifier(WRITER_ROLE)
                )
            )
        has_chunks = conn.execute("SELECT EXISTS (SELECT 1 FROM memory_chunks)").fetchone()[0]
    return bool(stale and has_chunks)


def _utc(value: datetime | None) -> datetime | None:
    return value.astimezone(UTC) if value is not None else None


def _version(r: Sequence) -> MemoryVersion:
    return MemoryVersion(
        version=r[0], supersedes=r[1], content=r[2], title=r[3], type=r[4], tags=tuple(r[5]), project=r[6],
        visibility=r[7], confidence=round(float(r[8]), 4), expires_at=_utc(r[9]), source=r[10], author=r[11],
        transport=r[12], created_at=_utc(r[13]),
    )


def _scope(scope: MemoryScope) -> tuple[str, dict[str, object]]:
    """SQL (over memories m and the version in effect v) for what this scope may see, and its parameters.

    Queries using it run unprepared (prepare=False): psycopg prepares a statement after 5 runs, and Postgres
    then switches to a generic plan that cannot drop the unused `%(x)s IS NULL OR ...` filters; measured at
    10k memories, that plan abandons the HNSW index and a recall's vector query goes from ~4 ms to ~120 ms.
    """
    if scope.as_of:
        effective = """v.version = (SELECT max(x.version) FROM memory_versions x
                                    WHERE x.memory_id = m.id AND x.created_at <= %(at)s)
            AND coalesce((SELECT e.kind FROM memory_events e WHERE e.memory_id = m.id AND e.at <= %(at)s
                          ORDER BY e.at DESC, e.id DESC LIMIT 1), 'restore') <> 'forget'"""
    else:
        effective = "v.version = m.current_version AND m.forgotten_at IS NULL"
    where = f"""v.memory_id = m.id AND {effective}
        AND (v.expires_at IS NULL OR v.expires_at > %(at)s)
        AND (v.visibility = 'shared' OR m.author = %(viewer)s OR %(all)s)
        AND (%(type)s::text IS NULL OR v.type = %(type)s)
        AND (%(type)s::text IS NOT NULL OR %(sessions)s OR v.type <> 'session')
        AND (cardinality(%(tags)s::text[]) = 0 OR v.tags @> %(tags)s::text[])
        AND (%(project)s::text IS NULL OR v.project = %(project)s)
        AND (NOT %(no_project)s OR v.project IS NULL)
        AND (%(author)s::text IS NULL OR m.author = %(author)s)
        AND (%(since)s::timestamptz IS NULL OR v.created_at >= %(since)s)"""
    params = {
        "at": scope.at, "viewer": scope.viewer, "all": scope.sees_private_of_all, "type": scope.type,
        "sessions": scope.include_sessions, "tags": list(scope.tags), "project": scope.project,
        "no_project": scope.namespace_without_project, "author": scope.author, "since": scope.since,
    }
    return where, params


class PgMemoryStore:
    def __init__(self, db: Database, ef_search: int = 100) -> None:
        self._db = db
        self._ef_search = ef_search

    # ---- writes ---------------------------------------------------------------------------------------

    def insert_memory(
        self, record: MemoryRecord, chunks: Sequence[Sequence[Chunk]], vectors: Sequence[Sequence[Vector]]
    ) -> None:
        """A new memory with all its versions (one for a remember, many for an import) and events."""
        with self._db.connection() as conn:
            self._insert(conn, record, chunks, vectors)

    def insert_unless_similar(
        self, record: MemoryRecord, chunks: Sequence[Chunk], vectors: Sequence[Vector], threshold: float, at: datetime
    ) -> tuple[str, float] | None:
        with self._db.connection() as conn:
            # One author's remembers take turns (a transaction-scoped lock, released at commit): the second of two
            # identical ones then sees the first's row and reports it instead of storing a copy.
            conn.execute("SELECT pg_advisory_xact_lock(hashtextextended('ltm-remember:' || %s, 0))", (record.author,))
            near = self._nearest_of_author(conn, record.author, vectors[0], at)
            if near is not None and near[1] >= threshold:
                return near
            self._insert(conn, record, [chunks], [vectors])
        return None

    def _insert(
        self, conn: psycopg.Connection, record: MemoryRecord, chunks: Sequence[Sequence[Chunk]],
        vectors: Sequence[Sequence[Vector]],
    ) -> None:
        cur = record.current
        conn.execute(
            "INSERT INTO memories (id, author, session_key, created_at, current_version, updated_at, forgotten_at)"
            " VALUES (%s, %s, %s, %s, %s, %s, %s)",
            (record.id, record.author, record.session_key, record.created_at, cur.version, cur.created_at,
             record.forgotten_at),
        )
        for version, cs, vs in zip(record.versions, chunks, vectors, strict=True):
            self._write_version(conn, record.id, version, cs, vs)
        for e in record.events:
            conn.execute(
                "INSERT INTO memory_events (memory_id, kind, by_client, transport, at) VALUES (%s, %s, %s, %s, %s)",
                (record.id, e.kind, e.by_client, e.transport, e.at),
            )

    def add_version(
        self, memory_id: str, version: MemoryVersion, chunks: Sequence[Chunk], vectors: Sequence[Vector]
    ) -> bool:
        """Append a version; False (and nothing written) when another write got there first."""
        with self._db.connection() as conn:
            moved = conn.execute(
                "UPDATE memories SET current_version = %s, updated_at = %s"
                " WHERE id = %s AND current_version = %s AND forgotten_at IS NULL RETURNING id",
                (version.version, version.created_at, memory_id, version.supersedes),
            ).fetchone()
            if not moved:
                return False
            self._write_version(conn, memory_id, version, chunks, vectors)
        return True

    def _write_version(
        self, conn: psycopg.Connection, memory_id: str, v: MemoryVersion, chunks: Sequence[Chunk],
        vectors: Sequence[Vector],
    ) -> None:
        if len(chunks) != len(vectors):
            raise ValueError(f"{len(chunks)} chunks but {len(vectors)} vectors")
        conn.execute(
            "INSERT INTO memory_versions (memory_id, version, supersedes, content, title, type, tags, project,"
            " visibility, confidence, expires_at, source, author, transport, created_at)"
            " VALUES (%s, %s, %s, %s, %s, %s, %s, %s, %s, %s, %s, %s, %s, %s, %s)",
            (memory_id, v.version, v.supersedes, v.content, v.title, v.type, list(v.tags), v.project, v.visibility,
             v.confidence, v.expires_at, v.source, v.author, v.transport, v.created_at),
        )
        if not chunks:
            return
        context = chunk_context(v.title or "", "")
        rows = conn.execute(
            "INSERT INTO memory_chunks (memory_id, version, ordinal, text, context, char_start, char_end)"
            " SELECT %s, %s, o, t, %s, s, e FROM unnest(%s::int[], %s::text[], %s::int[], %s::int[]) AS u(o, t, s, e)"
            " RETURNING id, ordinal",
            (memory_id, v.version, context, [c.ordinal for c in chunks], [c.text for c in chunks],
             [c.char_start for c in chunks], [c.char_end for c in chunks]),
        ).fetchall()
        ids = {ordinal: cid for cid, ordinal in rows}
        self._copy_vectors(conn, [ids[c.ordinal] for c in chunks], vectors)

    def _copy_vectors(self, conn: psycopg.Connection, ids: Sequence[int], vectors: Sequence[Vector]) -> None:
        with conn.cursor().copy(f"COPY {VECTORS_TABLE} (chunk_id, embedding) FROM STDIN WITH (FORMAT BINARY)") as copy:
            copy.set_types(["int8", "vector"])
            for cid, vec in zip(ids, vectors, strict=True):
                copy.write_row((cid, as_vector(vec)))

    def add_event(self, memory_id: str, event: MemoryEvent) -> bool:
        """Record a forget or restore and move the tombstone with it; False when the state was already so."""
        with self._db.connection() as conn:
            if event.kind == "forget":
                changed = conn.execute(
                    "UPDATE memories SET forgotten_at = %s WHERE id = %s AND forgotten_at IS NULL RETURNING id",
                    (event.at, memory_id),
                ).fetchone()
            else:
                changed = conn.execute(
                    "UPDATE memories SET forgotten_at = NULL WHERE id = %s AND forgotten_at IS NOT NULL RETURNING id",
                    (memory_id,),
                ).fetchone()
            if not changed:
                return False
            conn.execute(
                "INSERT INTO memory_events (memory_id, kind, by_client, transport, at) VALUES (%s, %s, %s, %s, %s)",
                (memory_id, event.kind, event.by_client, event.transport, event.at),
            )
        return True

    def purge_forgotten(self, before: datetime) -> int:
        """Delete tombstones older than `before`, with their versions, chunks and vectors."""
        with self._db.connection() as conn:
            rows = conn.execute(
                "DELETE FROM memories WHERE forgotten_at IS NOT NULL AND forgotten_at < %s RETURNING id", (before,)
            ).fetchall()
        return len(rows)

    # ---- reads ----------------------------------------------------------------------------------------

    def get(self, memory_id: str) -> MemoryRecord | None:
        return next(iter(self._records("m.id = %s", (memory_id,))), None)

    def by_session_key(self, key: str) -> MemoryRecord | None:
        return next(iter(self._records("m.session_key = %s", (key,))), None)

    def all_records(self, batch: int = 500) -> Iterator[MemoryRecord]:
        """Every memory with its whole history, oldest first (for export)."""
        last: tuple[datetime, str] | None = None
        while True:
            where, params = ("true", ()) if last is None else ("(m.created_at, m.id) > (%s, %s)", last)
            records = self._records(where, params, batch)
            yield from records
            if len(records) < batch:
                return
            last = (records[-1].created_at, records[-1].id)

    def _records(self, where: str, params: Sequence[object], limit: int = 1) -> list[MemoryRecord]:
        with self._db.connection() as conn:
            heads = conn.execute(
                "SELECT m.id, m.author, m.created_at, m.session_key, m.forgotten_at FROM memories m"
                f" WHERE {where} ORDER BY m.created_at, m.id LIMIT %s",
                (*params, limit),
            ).fetchall()
            ids = [h[0] for h in heads]
            versions: dict[str, list[MemoryVersion]] = {i: [] for i in ids}
            for r in conn.execute(
                f"SELECT v.memory_id, {_VERSION_COLUMNS} FROM memory_versions v WHERE v.memory_id = ANY(%s)"
                " ORDER BY v.memory_id, v.version",
                (ids,),
            ):
                versions[r[0]].append(_version(r[1:]))
            events: dict[str, list[MemoryEvent]] = {i: [] for i in ids}
            for r in conn.execute(
                "SELECT memory_id, kind, by_client, transport, at FROM memory_events WHERE memory_id = ANY(%s)"
                " ORDER BY memory_id, at, id",
                (ids,),
            ):
                events[r[0]].append(MemoryEvent(r[1], r[2], r[3], _utc(r[4])))
        return [
            MemoryRecord(h[0], h[1], _utc(h[2]), h[3], _utc(h[4]), tuple(versions[h[0]]), tuple(events[h[0]]))
            for h in heads
        ]

    def dense(self, vector: Vector, limit: int, scope: MemoryScope) -> list[MemoryMatch]:
        where, params = _scope(scope)
        params.update(v=as_vector(vector), n=limit)
        with self._db.connection() as conn:
            conn.execute(f"SET LOCAL hnsw.ef_search = {int(max(self._ef_search, limit))}")
            conn.execute("SET LOCAL hnsw.iterative_scan = relaxed_order")
            rows = conn.execute(
                f"""SELECT c.id, c.memory_id, c.text, c.context, 1 - (e.embedding <=> %(v)s) AS cosine
                    FROM {VECTORS_TABLE} e JOIN memory_chunks c ON c.id = e.chunk_id
                    JOIN memories m ON m.id = c.memory_id
                    JOIN memory_versions v ON v.memory_id = c.memory_id AND v.version = c.version
                    WHERE {where}
                    ORDER BY e.embedding <=> %(v)s LIMIT %(n)s""",
                params,
                prepare=False,
            ).fetchall()
        rows.sort(key=lambda r: -r[4])  # relaxed_order may return near-ties out of order
        return [MemoryMatch(r[0], r[1], r[2], r[3], float(r[4])) for r in rows]

    def lexical(self, query: str, limit: int, scope: MemoryScope) -> list[MemoryMatch]:
        where, params = _scope(scope)
        params.update(q=query, n=limit, common=COMMON_TERM_SHARE)
        with self._db.connection() as conn:
            # The same term selection as document search (see fulltext.py).
            rows = conn.execute(
                f"""{tsquery_cte("memory_chunks")}
                    SELECT c.id, c.memory_id, c.text, c.context
                    FROM q, memory_chunks c JOIN memories m ON m.id = c.memory_id
                    JOIN memory_versions v ON v.memory_id = c.memory_id AND v.version = c.version
                    WHERE q.tq IS NOT NULL AND c.tsv @@ q.tq AND {where}
                    ORDER BY ts_rank_cd(c.tsv, q.tq, 1) DESC, c.id LIMIT %(n)s""",
                params,
                prepare=False,
            ).fetchall()
        return [MemoryMatch(r[0], r[1], r[2], r[3], None) for r in rows]

    def cosines(self, vector: Vector, chunk_ids: Sequence[int]) -> dict[int, float]:
        if not chunk_ids:
            return {}
        with self._db.connection() as conn:
            rows = conn.execute(
                f"SELECT chunk_id, 1 - (embedding <=> %s) FROM {VECTORS_TABLE} WHERE chunk_id = ANY(%s)",
                (as_vector(vector), list(chunk_ids)),
            ).fetchall()
        return {r[0]: float(r[1]) for r in rows}

    def views(self, ids: Sequence[str], scope: MemoryScope) -> dict[str, MemoryView]:
        """The memories among `ids` that this scope may see, each at the version in effect."""
        if not ids:
            return {}
        where, params = _scope(scope)
        params.update(ids=list(ids))
        with self._db.connection() as conn:
            rows = conn.execute(
                f"""SELECT m.id, m.author, m.created_at, m.forgotten_at, m.current_version, {_VERSION_COLUMNS}
                    FROM memories m, memory_versions v WHERE m.id = ANY(%(ids)s) AND {where}""",
                params,
                prepare=False,
            ).fetchall()
        return {r[0]: self._view(r) for r in rows}

    def _view(self, r: Sequence) -> MemoryView:
        return MemoryView(r[0], r[1], _utc(r[2]), _utc(r[3]), _version(r[5:]), r[4])

    def newest(
        self, scope: MemoryScope, limit: int, after: tuple[datetime, str] | None
    ) -> tuple[list[MemoryView], int]:
        """The newest memories first (by their version in effect), after a keyset cursor; and how many match."""
        where, params = _scope(scope)
        params.update(n=limit, after_t=after[0] if after else None, after_id=after[1] if after else None)
        with self._db.connection() as conn:
            rows = conn.execute(
                f"""SELECT m.id, m.author, m.created_at, m.forgotten_at, m.current_version, {_VERSION_COLUMNS}
                    FROM memories m, memory_versions v WHERE {where}
                    AND (%(after_t)s::timestamptz IS NULL OR (v.created_at, m.id) < (%(after_t)s, %(after_id)s::text))
                    ORDER BY v.created_at DESC, m.id DESC LIMIT %(n)s""",
                params,
                prepare=False,
            ).fetchall()
            total = conn.execute(
                f"SELECT count(*) FROM memories m, memory_versions v WHERE {where}", params, prepare=False
            ).fetchone()[0]
        return [self._view(r) for r in rows], int(total)

    def _nearest_of_author(
        self, conn: psycopg.Connection, author: str, vector: Vector, at: datetime
    ) -> tuple[str, float] | None:
        """The author's live memory whose first chunk is nearest to `vector`: (id, cosine), or None."""
        conn.execute("SET LOCAL hnsw.iterative_scan = relaxed_order")
        row = conn.execute(
            f"""SELECT c.memory_id, 1 - (e.embedding <=> %(v)s) AS cosine
                FROM {VECTORS_TABLE} e JOIN memory_chunks c ON c.id = e.chunk_id
                JOIN memories m ON m.id = c.memory_id
                JOIN memory_versions v ON v.memory_id = m.id AND v.version = m.current_version
                WHERE c.version = m.current_version AND c.ordinal = 0 AND m.author = %(author)s
                  AND m.forgotten_at IS NULL AND m.session_key IS NULL
                  AND (v.expires_at IS NULL OR v.expires_at > %(at)s)
                ORDER BY e.embedding <=> %(v)s LIMIT 1""",
            {"v": as_vector(vector), "author": author, "at": at},
            prepare=False,
        ).fetchone()
        return None if row is None else (row[0], float(row[1]))

    def count(self) -> int:
        with self._db.connection() as conn:
            return int(conn.execute("SELECT count(*) FROM memories").fetchone()[0])

    # ---- re-embedding after a model change --------------------------------------------------------------

    def chunks_without_vectors(self, batch: int) -> list[tuple[int, str]]:
        """(chunk id, embedding text) of chunks that have no vector yet."""
        with self._db.connection() as conn:
            rows = conn.execute(
                f"SELECT c.id, CASE WHEN c.context = '' THEN c.text ELSE c.context || E'\\n' || c.text END FROM memory_chunks c"
                f" WHERE NOT EXISTS (SELECT 1 FROM {VECTORS_TABLE} e WHERE e.chunk_id = c.id) ORDER BY c.id LIMIT %s",
                (batch,),
            ).fetchall()
        return [(r[0], r[1]) for r in rows]

    def write_vectors(self, ids: Sequence[int], vectors: Sequence[Vector]) -> None:
        with self._db.connection() as conn:
            self._copy_vectors(conn, ids, vectors)
