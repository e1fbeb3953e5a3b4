"""The full-text query shared by document and memory search: an OR of the question's terms, minus common ones.

A question's words rarely all occur in the answer passage, so terms are OR-ed. But a term found in more than
COMMON_TERM_SHARE of a table's rows (per ANALYZE's statistics) barely ranks, while every row holding it would be
scored — at 100k chunks that dominated search latency. Such terms are dropped when rarer ones remain; a question made
only of common terms asks for all of them (AND) instead of any. When the rarer ones turn out to be in no document (a
typo, a word the papers never use), full text finds nothing and the dense list alone is ranked: asking for the
common terms together instead (tsquery_cte_known_terms) was measured and not kept (see PgSearchIndex).

Document search goes further (tsquery_cte_bounded): it also bounds the rows it ranks, which at 1M chunks still
cost up to a second per question. And reading the statistics from the pg_stats view costs more to plan than the
rest of the query (3-11 ms measured at 10k chunks: the view checks column privileges over four catalogs), so it
keeps them in a TermStats cache, re-read only when the table has been analysed since.
"""

from __future__ import annotations

import threading

import psycopg

COMMON_TERM_SHARE = 0.05

_ELEMENT_STATS = """
    SELECT coalesce(array_agg(e.w), '{}'), coalesce(array_agg(e.f), '{}') FROM pg_stats s,
         unnest(s.most_common_elems::text::text[], s.most_common_elem_freqs) AS e(w, f)
    WHERE s.schemaname = 'public' AND s.tablename = %(table)s AND s.attname = %(column)s AND e.w IS NOT NULL"""

# When the table was last analysed (by hand or by autovacuum); cheap to plan, unlike pg_stats.
_ANALYZED_AT = """
    SELECT greatest(pg_stat_get_last_analyze_time(c.oid), pg_stat_get_last_autoanalyze_time(c.oid)), c.reltuples
    FROM pg_class c WHERE c.oid = to_regclass(%s)"""


def _tsquery(kept: str) -> str:
    """The `kept` and `q` CTEs: an OR of the kept terms, or an AND of all of them when none is kept."""
    return f"""kept AS ({kept}),
        q AS (
            SELECT CASE WHEN EXISTS (SELECT 1 FROM kept)
                THEN (SELECT to_tsquery('simple', string_agg(quote_literal(w), ' | ')) FROM kept)
                ELSE (SELECT to_tsquery('simple', string_agg(quote_literal(w), ' & ')) FROM terms)
                END AS tq)"""


_TERMS = """terms AS (
            SELECT DISTINCT w FROM unnest(tsvector_to_array(to_tsvector('english', %(q)s))) AS w)"""


def tsquery_cte(table: str, column: str = "tsv") -> str:
    """A `WITH ... q AS (SELECT tq)` prefix for a query over `table`; expects %(q)s and %(common)s parameters."""
    return f"""WITH {_TERMS},
        common AS (
            SELECT e.w FROM pg_stats s,
                 unnest(s.most_common_elems::text::text[], s.most_common_elem_freqs) AS e(w, f)
            WHERE s.schemaname = 'public' AND s.tablename = '{table}' AND s.attname = '{column}'
              AND e.w IS NOT NULL AND e.f > %(common)s),
        {_tsquery("SELECT w FROM terms WHERE w NOT IN (SELECT w FROM common)")}"""


def tsquery_cte_bounded() -> str:
    """Like tsquery_cte, with the statistics passed in (from TermStats) and the rows to rank bounded.

    Expects %(q)s, %(common)s, %(stat_words)s / %(stat_freqs)s (text[] / float8[]), %(rows)s (the table's row
    estimate) and %(max_rows)s. Every matching row is ranked, at ~10-20 us each, so at 1M chunks one term found in
    4% of them costs ~1 s. So a term is also common when it alone matches more than an estimated max_rows rows,
    and of the others only the rarest are OR-ed, as many as together match at most max_rows; a question left with
    none asks for all its terms (AND), as one made of common words always did. Terms rare enough to be missing from
    the statistics count as matching nothing. In a library of fewer chunks than max_rows the bound practically never
    applies (it would take a question with some 20 terms each found in 5% of chunks); there the query is
    tsquery_cte's.
    """
    return f"""WITH {_TERMS},
        stats AS (SELECT * FROM unnest(%(stat_words)s::text[], %(stat_freqs)s::float8[]) AS s(w, f)),
        common AS (SELECT w FROM stats WHERE f > %(common)s OR f * %(rows)s > %(max_rows)s),
        rarest AS (
            SELECT t.w, sum(coalesce(s.f, 0)) OVER (ORDER BY coalesce(s.f, 0), t.w) AS upto
            FROM terms t LEFT JOIN stats s USING (w) WHERE t.w NOT IN (SELECT w FROM common)),
        {_tsquery("SELECT w FROM rarest WHERE upto * %(rows)s <= %(max_rows)s")}"""


def tsquery_cte_known_terms() -> str:
    """A retry when tsquery_cte_bounded's query matched nothing: the AND of the question's terms the statistics list.

    Its OR keeps a question's rare terms and drops the common ones, and a term missing from the statistics counts
    as rare. When every rare term is in fact in no document ("where is the five sales mentioned?": "mention"), that
    OR matches nothing while the common terms would have found the passage (one-off, on bench_search.py's 1M-chunk
    store: 0 rows, against 10,137 for "five & sale"). This asks for the common terms together, as a question made only of them always is.
    Each term the statistics list occurs in the table. Yields no query (NULL) when the question has no term outside
    the statistics: the first query was this one already. Not used by default: among 100k look-alike chunks, the
    rows it finds pushed answers the dense list had found down the fused ranking (PgSearchIndex).
    """
    return f"""WITH {_TERMS},
        stats AS (SELECT * FROM unnest(%(stat_words)s::text[], %(stat_freqs)s::float8[]) AS s(w, f)),
        q AS (
            SELECT CASE WHEN EXISTS (SELECT 1 FROM terms WHERE w NOT IN (SELECT w FROM stats))
                THEN (SELECT to_tsquery('simple', string_agg(quote_literal(w), ' & ')) FROM terms
                      WHERE w IN (SELECT w FROM stats))
                END AS tq)"""


# Estimated rows a full-text query may rank (see tsquery_cte_bounded). With the sample corpus hidden among 100k
# synthetic chunks (bench/haystack_eval.py, synthetic hits counted as wrong), hybrid nDCG@10 without rerank was
# 0.237 / 0.256 / 0.278 / 0.281 for 2,000 / 5,000 / 10,000 / 20,000 on the generated questions and 0.275 / 0.307 /
# 0.312 / 0.310 on the hand-written ones, for a full-text p95 of 20 / 36 / 50 / 48 ms: a tighter bound drops words
# that find the answer.
MAX_RANKED_ROWS = 10_000


class TermStats:
    """A table's most common tsvector elements with their frequencies, and its row estimate, cached between analyses."""

    def __init__(self, table: str, column: str = "tsv", max_rows: int = MAX_RANKED_ROWS) -> None:
        self._table, self._column, self._max_rows = table, column, max_rows
        # (analysed at, params, the words as a set)
        self._cached: tuple[object, dict[str, object], frozenset[str]] | None = None
        self._lock = threading.Lock()  # searches run on several threads; one re-read is enough

    def _current(self, conn: psycopg.Connection) -> tuple[tuple[object, dict[str, object], frozenset[str]], float]:
        analysed_at, rows = conn.execute(_ANALYZED_AT, (self._table,)).fetchone()
        cached = self._cached
        if cached is None or cached[0] != analysed_at:
            with self._lock:
                words, freqs = conn.execute(_ELEMENT_STATS, {"table": self._table, "column": self._column}).fetchone()
                cached = self._cached = (
                    analysed_at, {"stat_words": list(words), "stat_freqs": list(freqs)}, frozenset(words))
        return cached, max(float(rows), 0.0)

    def params(self, conn: psycopg.Connection) -> dict[str, object]:
        """The parameters tsquery_cte_bounded expects, besides %(q)s."""
        (_, params, _), rows = self._current(conn)
        return {**params, "rows": rows, "common": COMMON_TERM_SHARE, "max_rows": self._max_rows}

    def common_words(self, conn: psycopg.Connection) -> frozenset[str]:
        """The lexemes the statistics list as most common: each of them occurs in the table."""
        (_, _, words), _ = self._current(conn)
        return words
