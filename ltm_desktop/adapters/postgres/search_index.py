"""PgSearchIndex: the read side. Every query is parameterised, and the pool it uses is read-only.

Filters (superseded content, deleted documents, type, path) are applied inside the SQL that ranks, never
after it, so a filter can't silently empty a top-k list. HNSW uses pgvector 0.8's iterative scan so a
narrow filter still yields enough candidates. (Asking the index alone for the nearest vectors first and joining
only those was measured too: no faster. EXPLAIN ANALYZE shows the joins and the EXISTS on documents cost under
1 ms; the time is the HNSW scan itself, hence ef_search sized to the index.)
"""

from __future__ import annotations

from collections.abc import Sequence

import psycopg

from ltm_desktop.adapters.postgres.database import Database
from ltm_desktop.adapters.postgres.document_store import as_vector
from ltm_desktop.adapters.postgres.fulltext import (
    MAX_RANKED_ROWS,
    TermStats,
    tsquery_cte_bounded,
    tsquery_cte_known_terms,
)
from ltm_desktop.adapters.postgres.model_pin import EMBEDDINGS_TABLE, read_pin
from ltm_desktop.core.models import Candidate, DocumentInfo, IssueRecord, ModelPin, SearchFilters
from ltm_desktop.core.ports import ChunkDetail, Vector


# A chunk is searchable when its content is active and at least one live document holding it passes the filters.
_ELIGIBLE = """
    ct.lifecycle = 'active'
    AND EXISTS (SELECT 1 FROM documents d WHERE d.sha256 = c.sha256 AND d.deleted_at IS NULL
                AND (%(doc_type)s::text IS NULL OR d.doc_type = %(doc_type)s)
                AND (%(path_like)s::text IS NULL OR d.path ILIKE %(path_like)s))
"""

_DOC_INFO = """
    SELECT d.id, d.path, d.root, d.rel_path, d.title, d.doc_type, c.mime, d.sha256, d.size, d.mtime,
           c.page_count, c.paginated, c.lifecycle, c.metadata, c.ocr_pages
    FROM documents d JOIN contents c USING (sha256)
"""


def _filter_params(filters: SearchFilters) -> dict[str, object]:
    like = None
    if filters.path_contains:
        escaped = filters.path_contains.replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_")
        like = f"%{escaped}%"
    return {"doc_type": filters.doc_type, "path_like": like}


def ef_search_for(vectors: float) -> int:
    """hnsw.ef_search for an index of this many vectors: the smallest that keeps recall@10 >= 0.95 (measured).

    A fixed value is either too low for large indexes or wasteful for small ones. With migration 0006's graph
    (m 32, ef_construction 128), recall@10 against exact search was 1.0 at 100 on 10k chunks, where 400 costs
    several times as much for nothing; 0.947 at 100 and 0.997 at 200 on 100k; 0.915 at 400, 0.963 at 800 and 0.99
    at 1000 (pgvector's maximum) on 1M (bench/bench_search.py, docs/benchmarks.md). Sizes between 200k and 1M were
    not measured and get 1000, the safe side. The vector query never uses less than the rows it asks for.
    """
    for size, ef in EF_SEARCH_STEPS:
        if vectors <= size:
            return ef
    return EF_SEARCH_STEPS[-1][1]


# Full text ranks in two steps: ts_rank (term frequency) picks this many of the matching rows, and ts_rank_cd
# (cover density: how close together the question's words sit) orders them. Ranking every matching row by cover
# density was the tail of hybrid search: 30 ms for the 4,947 rows of one question at 100k chunks, against 13 ms by
# ts_rank (a one-off EXPLAIN ANALYZE). Against that full ranking, with ties counted as agreeing, the top 10 agree 97%
# at 100k chunks and 94% at 1M, for a full-text p95 of 18 vs 26 ms and 37 vs 64 ms; a pool of 200 agreed 89% at 1M
# for the same time (bench/lexical_pool_agreement.py, docs/retrieval.md). On the sample corpus no question matches
# more rows than this.
LEXICAL_POOL = 400

# (up to this many vectors, ef_search); the last step also covers anything larger.
EF_SEARCH_STEPS = ((20_000, 100), (200_000, 200), (2_000_000, 1000))


def _quote_lexeme(lexeme: str) -> str:
    """A lexeme as a tsquery operand: quoted, so no character in it is read as an operator."""
    return "'" + lexeme.replace("\\", "\\\\").replace("'", "''") + "'"


class PgSearchIndex:
    def __init__(
        self, db: Database, ef_search: int | None = None, lexical_pool: int | None = LEXICAL_POOL,
        max_ranked_rows: int = MAX_RANKED_ROWS, retry_known_terms: bool = False,
    ) -> None:
        self._db = db
        # True: when the question's rare terms are in no document, ask for its common ones together. Measured and
        # not shipped: at 100k chunks it fills the full-text list for 40 of 382 questions that had none, and hybrid
        # + rerank nDCG@10 falls 0.005 on both question sets (bench/study_fulltext_retry.py, docs/retrieval.md).
        self._retry_known_terms = retry_known_terms
        self._fixed_ef = ef_search  # None: scale with the index size
        self._lexical_pool = lexical_pool  # None: cover density over every matching row
        self._term_stats = TermStats("chunks", max_rows=max_ranked_rows)

    def ef_search(self) -> int:
        """The ef_search the vector query uses now (for benchmarks and diagnostics)."""
        with self._db.connection() as conn:
            return self._ef_search(conn)

    def _ef_search(self, conn: psycopg.Connection) -> int:
        if self._fixed_ef is not None:
            return self._fixed_ef
        # The planner's row estimate: kept current by (auto)vacuum and index builds, and free to read.
        row = conn.execute("SELECT reltuples FROM pg_class WHERE oid = to_regclass(%s)", (EMBEDDINGS_TABLE,)).fetchone()
        return ef_search_for(row[0] if row else 0)

    def dense(self, vector: Vector, limit: int, filters: SearchFilters) -> list[Candidate]:
        params = {"v": as_vector(vector), "n": limit, **_filter_params(filters)}
        with self._db.connection() as conn:
            conn.execute(f"SET LOCAL hnsw.ef_search = {int(max(self._ef_search(conn), limit))}")
            conn.execute("SET LOCAL hnsw.iterative_scan = relaxed_order")
            rows = conn.execute(
                f"""SELECT c.id, c.text, c.context, 1 - (e.embedding <=> %(v)s) AS cosine
                    FROM {EMBEDDINGS_TABLE} e JOIN chunks c ON c.id = e.chunk_id
                    JOIN contents ct ON ct.sha256 = c.sha256
                    WHERE {_ELIGIBLE}
                    ORDER BY e.embedding <=> %(v)s LIMIT %(n)s""",
                params,
            ).fetchall()
        rows.sort(key=lambda r: -r[3])  # relaxed_order may return near-ties out of order
        return [Candidate(r[0], r[1], r[2], float(r[3]), None, i + 1) for i, r in enumerate(rows)]

    def lexical(self, query: str, limit: int, filters: SearchFilters) -> list[Candidate]:
        params = {"q": query, "n": limit, **_filter_params(filters)}
        matching = f"""FROM q, chunks c JOIN contents ct ON ct.sha256 = c.sha256
                       WHERE q.tq IS NOT NULL AND c.tsv @@ q.tq AND {_ELIGIBLE}"""
        if self._lexical_pool is None:
            ranked = f"""SELECT c.id, c.text, c.context, ts_rank_cd(c.tsv, q.tq, 1) AS rank {matching}
                         ORDER BY rank DESC, c.id LIMIT %(n)s"""
        else:
            params["pool"] = max(self._lexical_pool, limit)
            ranked = f"""SELECT p.id, p.text, p.context, ts_rank_cd(p.tsv, p.tq, 1) AS rank FROM (
                             SELECT c.id, c.text, c.context, c.tsv, q.tq {matching}
                             ORDER BY ts_rank(c.tsv, q.tq, 1) DESC, c.id LIMIT %(pool)s) p
                         ORDER BY rank DESC, p.id LIMIT %(n)s"""
        with self._db.connection() as conn:
            params.update(self._term_stats.params(conn))
            rows = conn.execute(f"{tsquery_cte_bounded()} {ranked}", params).fetchall()
            if not rows and self._retry_known_terms:
                rows = conn.execute(f"{tsquery_cte_known_terms()} {ranked}", params).fetchall()
        return [Candidate(r[0], r[1], r[2], None, i + 1, None) for i, r in enumerate(rows)]

    def cosines(self, vector: Vector, chunk_ids: Sequence[int]) -> dict[int, float]:
        """Exact cosines for chunks found only by the lexical retriever (so every hit reports one)."""
        if not chunk_ids:
            return {}
        with self._db.connection() as conn:
            rows = conn.execute(
                f"SELECT chunk_id, 1 - (embedding <=> %s) FROM {EMBEDDINGS_TABLE} WHERE chunk_id = ANY(%s)",
                (as_vector(vector), list(chunk_ids)),
            ).fetchall()
        return {r[0]: float(r[1]) for r in rows}

    def unmatched_terms(self, words: Sequence[str]) -> list[str]:
        if not words:
            return []
        with self._db.connection() as conn:
            common = self._term_stats.common_words(conn)
            # A word whose every stem is among the statistics' most common elements is in the index: no probe. The
            # others are rare or absent, so their GIN posting lists are short. Probing a common word through the
            # index would read its whole list (seconds at 1M chunks); a table scan is instant for a common word but
            # reads every row for a word found nowhere, which is the point of asking (~15 ms at 100k chunks). So
            # common words are settled here, and the rest probe the index only.
            rows = conn.execute(
                """SELECT w.n, array_remove(array_agg(l.lexeme), NULL) FROM unnest(%s::text[]) WITH ORDINALITY AS w(word, n)
                   LEFT JOIN LATERAL unnest(tsvector_to_array(to_tsvector('english', w.word))) AS l(lexeme) ON true
                   GROUP BY w.n ORDER BY w.n""",
                (list(words),),
            ).fetchall()
            probe = [(n - 1, stems) for n, stems in rows if stems and not set(stems) <= common]
            if not probe:
                return []
            conn.execute("SET LOCAL enable_seqscan = off")
            arms = " UNION ALL ".join(
                f"SELECT {i} AS n WHERE NOT EXISTS (SELECT 1 FROM chunks c WHERE c.tsv @@ %(q{i})s::tsquery)"
                for i, _ in probe)
            absent = conn.execute(
                f"SELECT n FROM ({arms}) w ORDER BY n",
                {f"q{i}": " & ".join(_quote_lexeme(x) for x in stems) for i, stems in probe},
            ).fetchall()
        return [words[r[0]] for r in absent]

    def leads(self, chunk_ids: Sequence[int], chars: int) -> dict[int, str]:
        if not chunk_ids:
            return {}
        with self._db.connection() as conn:
            rows = conn.execute(
                """SELECT c.id, left(f.text, %s) FROM chunks c
                   JOIN chunks f ON f.sha256 = c.sha256 AND f.ordinal = 0
                   WHERE c.id = ANY(%s) AND c.ordinal > 0""",
                (chars, list(chunk_ids)),
            ).fetchall()
        return {r[0]: r[1] for r in rows}

    def chunk_details(self, chunk_ids: Sequence[int], filters: SearchFilters) -> dict[int, ChunkDetail]:
        if not chunk_ids:
            return {}
        params = {"ids": list(chunk_ids), **_filter_params(filters)}
        with self._db.connection() as conn:
            rows = conn.execute(
                """SELECT c.id, c.sha256, c.text, c.page_from, c.page_to, c.heading, ct.paginated,
                          docs.ids, docs.paths, docs.titles, docs.types
                   FROM chunks c JOIN contents ct ON ct.sha256 = c.sha256
                   CROSS JOIN LATERAL (
                       SELECT array_agg(d.id ORDER BY d.id) AS ids, array_agg(d.path ORDER BY d.id) AS paths,
                              array_agg(d.title ORDER BY d.id) AS titles, array_agg(d.doc_type ORDER BY d.id) AS types
                       FROM documents d
                       WHERE d.sha256 = c.sha256 AND d.deleted_at IS NULL
                         AND (%(doc_type)s::text IS NULL OR d.doc_type = %(doc_type)s)
                         AND (%(path_like)s::text IS NULL OR d.path ILIKE %(path_like)s)) docs
                   WHERE c.id = ANY(%(ids)s) AND docs.ids IS NOT NULL""",
                params,
            ).fetchall()
        out = {}
        for r in rows:
            out[r[0]] = ChunkDetail(
                chunk_id=r[0], sha256=r[1], text=r[2], page_from=r[3], page_to=r[4], heading=r[5],
                paginated=r[6], doc_id=r[7][0], path=r[8][0], title=r[9][0], doc_type=r[10][0],
                also_at=tuple(r[8][1:]),
            )
        return out

    def doc_types(self) -> list[str]:
        with self._db.connection() as conn:
            return [r[0] for r in conn.execute("SELECT DISTINCT doc_type FROM documents ORDER BY 1")]

    def model_pin(self) -> ModelPin | None:
        with self._db.connection() as conn:
            return read_pin(conn)

    def find_documents(self, path_or_id: str, limit: int) -> list[DocumentInfo]:
        """By numeric id, exact path, or path fragment (live documents only), best match first."""
        with self._db.connection() as conn:
            if path_or_id.isdigit():
                rows = conn.execute(_DOC_INFO + " WHERE d.id = %s AND d.deleted_at IS NULL", (int(path_or_id),)).fetchall()
                if rows:
                    return [_info(r) for r in rows]
            rows = conn.execute(_DOC_INFO + " WHERE d.path = %s AND d.deleted_at IS NULL", (path_or_id,)).fetchall()
            if rows:
                return [_info(r) for r in rows]
            like = "%" + path_or_id.replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_") + "%"
            rows = conn.execute(
                _DOC_INFO + " WHERE d.path ILIKE %s AND d.deleted_at IS NULL ORDER BY length(d.path), d.id LIMIT %s",
                (like, limit),
            ).fetchall()
        return [_info(r) for r in rows]

    def count_documents_matching(self, fragment: str) -> int:
        like = "%" + fragment.replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_") + "%"
        with self._db.connection() as conn:
            return conn.execute(
                "SELECT count(*) FROM documents WHERE path ILIKE %s AND deleted_at IS NULL", (like,)
            ).fetchone()[0]

    def page_texts(self, doc_id: int, first: int | None, last: int | None) -> list[tuple[int, str]]:
        with self._db.connection() as conn:
            rows = conn.execute(
                """SELECT p.page_no, p.text FROM pages p JOIN documents d ON d.sha256 = p.sha256
                   WHERE d.id = %s AND (%s::int IS NULL OR p.page_no >= %s) AND (%s::int IS NULL OR p.page_no <= %s)
                   ORDER BY p.page_no""",
                (doc_id, first, first, last, last),
            ).fetchall()
        return [(r[0], r[1]) for r in rows]

    def stats(self) -> dict[str, object]:
        with self._db.connection() as conn:
            one = lambda q: conn.execute(q).fetchone()[0]  # noqa: E731
            has_vectors = one(f"SELECT to_regclass('public.{EMBEDDINGS_TABLE}') IS NOT NULL")
            by_type = dict(conn.execute(
                "SELECT doc_type, count(*) FROM documents WHERE deleted_at IS NULL GROUP BY 1 ORDER BY 2 DESC"
            ).fetchall())
            chunks = one("SELECT count(*) FROM chunks")
            embedded = one(f"SELECT count(*) FROM {EMBEDDINGS_TABLE}") if has_vectors else 0
            hnsw = one(
                f"SELECT count(*) > 0 FROM pg_indexes WHERE tablename = '{EMBEDDINGS_TABLE}' AND indexdef ILIKE '%hnsw%'"
            )
            pin = read_pin(conn)
            return {
                "documents": sum(by_type.values()),
                "documents_by_type": by_type,
                "superseded_documents": one(
                    "SELECT count(*) FROM documents d JOIN contents c USING (sha256)"
                    " WHERE c.lifecycle = 'superseded' AND d.deleted_at IS NULL"
                ),
                "deleted_documents": one("SELECT count(*) FROM documents WHERE deleted_at IS NOT NULL"),
                "unique_contents": one("SELECT count(*) FROM contents"),
                "pages": one("SELECT count(*) FROM pages"),
                "ocr_pages": one("SELECT count(*) FROM pages WHERE source = 'ocr'"),
                "pages_without_text": one("SELECT count(*) FROM pages WHERE source = 'none'"),
                "low_confidence_ocr_pages": one("SELECT count(*) FROM pages WHERE source = 'ocr' AND ocr_confidence < 60"),
                "chunks": chunks,
                "embedded_chunks": embedded,
                "embedding_coverage": round(embedded / chunks, 4) if chunks else 1.0,
                "hnsw_index": bool(hnsw),
                "model_pin": None if pin is None else {
                    "model_id": pin.model_id, "dim": pin.dim, "files_sha256": pin.files_sha256,
                },
                "failed_files": one("SELECT count(*) FROM ingest_issues WHERE kind = 'failed'"),
                "skipped_files": one("SELECT count(*) FROM ingest_issues WHERE kind = 'skipped'"),
                "warnings": one("SELECT count(*) FROM ingest_issues WHERE kind = 'warning'"),
                "database_bytes": one("SELECT pg_database_size(current_database())"),
            }

    def issues(self, limit: int) -> list[IssueRecord]:
        with self._db.connection() as conn:
            rows = conn.execute(
                "SELECT path, kind, reason, to_char(at, 'YYYY-MM-DD\"T\"HH24:MI:SSOF') FROM ingest_issues"
                " ORDER BY kind, at DESC LIMIT %s",
                (limit,),
            ).fetchall()
        return [IssueRecord(*r) for r in rows]


def _info(r: tuple) -> DocumentInfo:
    return DocumentInfo(
        doc_id=r[0], path=r[1], root=r[2], rel_path=r[3], title=r[4], doc_type=r[5], mime=r[6], sha256=r[7],
        size=r[8], mtime=r[9], page_count=r[10], paginated=r[11], lifecycle=r[12], metadata=dict(r[13]),
        ocr_pages=r[14],
    )
