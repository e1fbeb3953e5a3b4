"""The full-text query shared by document and memory search: an OR of the question's terms, minus common ones.

A question's words rarely all occur in the answer passage, so terms are OR-ed. But a term found in more than
COMMON_TERM_SHARE of a table's rows (per ANALYZE's statistics) barely ranks, while every row holding it would be
scored — at 100k chunks that dominated search latency. Such terms are dropped when rarer ones remain; a question made
only of common terms asks for all of them (AND) instead of any.
"""

COMMON_TERM_SHARE = 0.05


def tsquery_cte(table: str, column: str = "tsv") -> str:
    """A `WITH ... q AS (SELECT tq)` prefix for a query over `table`; expects %(q)s and %(common)s parameters."""
    return f"""WITH terms AS (
            SELECT DISTINCT w FROM unnest(tsvector_to_array(to_tsvector('english', %(q)s))) AS w),
        common AS (
            SELECT e.w FROM pg_stats s,
                 unnest(s.most_common_elems::text::text[], s.most_common_elem_freqs) AS e(w, f)
            WHERE s.schemaname = 'public' AND s.tablename = '{table}' AND s.attname = '{column}'
              AND e.w IS NOT NULL AND e.f > %(common)s),
        kept AS (SELECT w FROM terms WHERE w NOT IN (SELECT w FROM common)),
        q AS (
            SELECT CASE WHEN EXISTS (SELECT 1 FROM kept)
                THEN (SELECT to_tsquery('simple', string_agg(quote_literal(w), ' | ')) FROM kept)
                ELSE (SELECT to_tsquery('simple', string_agg(quote_literal(w), ' & ')) FROM terms)
                END AS tq)"""
