"""Hybrid search, filters, validation and the verdict, on real documents in the real store."""

from __future__ import annotations

from pathlib import Path

import pytest

from docgen import eml_file, text_pdf
from ltm_desktop.core.errors import InvalidInput
from ltm_desktop.core.models import SearchFilters


@pytest.fixture(scope="module")
def indexed(container, tmp_path_factory):
    d = tmp_path_factory.mktemp("docs")
    (d / "leases").mkdir()
    (d / "leases" / "Oak Street lease.md").write_text(
        "# Lease agreement, 12 Oak Street\n\nTenant: Maria Lopez. Term: two years from March 1, 2025.\n\n"
        "## Renewal\n\nThe lease renews automatically on March 1, 2027 for one more year unless either party "
        "gives sixty days written notice.\n\n## Rent\n\nMonthly rent is $2,450, due on the first of the month.\n"
    )
    (d / "leases" / "Maple Avenue lease.md").write_text(
        "# Lease agreement, 5 Maple Avenue\n\nTenant: Ken Osei. The lease ends on August 31, 2026 and does not renew.\n"
    )
    text_pdf(d / "county tax bill 2025.pdf", ["Property tax bill 2025\n\nParcel 17-220-004, 12 Oak Street.\n\nFirst half due April 10, 2025: $3,310.00"])
    eml_file(d / "hvac.eml", "sam@coolair.example", "owner@example.com", "Furnace tune-up", "The furnace at 5 Maple Avenue was serviced on October 2; the filter size is 16x25x1.")
    outcomes = container.ingest.ingest_paths([d])
    assert all(type(o).__name__ == "Ingested" for o in outcomes), outcomes
    return d


def test_answerable_question_gets_a_high_verdict_and_the_right_passage(indexed, container):
    r = container.search.search("when does the Oak Street lease renew", k=3)
    assert r.confidence == "high" and r.confidence_basis == "rerank"
    top = r.hits[0]
    assert top.path.endswith("Oak Street lease.md") and "March 1, 2027" in top.snippet
    assert top.rerank_score is not None and top.cosine is not None and top.fused_score > 0
    # Even "high" asks the reader to check the details: the confident misses measured had one detail wrong.
    assert "if a detail differs, say the documents do not cover it" in r.advice


def test_unanswerable_question_is_flagged_low(indexed, container):
    for q in ("what is the capital of France", "how many vacation days do employees get", "recipe for banana bread"):
        r = container.search.search(q, k=3)
        assert r.confidence == "low", (q, [h.rerank_score for h in r.hits])
        assert "not be in" in r.advice


def test_without_rerank_the_verdict_is_cosine_based_and_labelled(indexed, container):
    r = container.search.search("when does the Oak Street lease renew", k=3, rerank=False)
    assert r.confidence_basis == "cosine" and "no reranker" in r.advice
    assert all(h.rerank_score is None for h in r.hits)
    assert r.hits[0].path.endswith("Oak Street lease.md")


def test_exact_identifiers_are_found_by_the_lexical_side(indexed, container):
    r = container.search.search("17-220-004", k=3, mode="lexical", rerank=False)
    assert r.hits and r.hits[0].path.endswith("county tax bill 2025.pdf") and r.hits[0].page_from == 1


def test_doc_type_and_path_filters_apply_before_ranking(indexed, container):
    r = container.search.search("when is the payment due", k=5, filters=SearchFilters(doc_type="tax"))
    assert r.hits and all(h.doc_type == "tax" for h in r.hits)
    r = container.search.search("lease", k=5, filters=SearchFilters(path_contains="Maple"))
    assert r.hits and all("Maple" in h.path for h in r.hits)
    r = container.search.search("lease", k=5, filters=SearchFilters(path_contains="100%_no_such_folder"))
    assert r.hits == () and r.confidence == "low"


@pytest.mark.parametrize(
    "query, k, filters, message",
    [
        ("", 8, SearchFilters(), "empty"),
        ("   ", 8, SearchFilters(), "empty"),
        ("x" * 2001, 8, SearchFilters(), "limit is 2000"),
        ("rent", 0, SearchFilters(), "between 1 and 50"),
        ("rent", 51, SearchFilters(), "between 1 and 50"),
        ("rent", 8, SearchFilters(doc_type="spaceship"), "unknown doc_type"),
    ],
)
def test_bad_search_input_is_refused_clearly(indexed, container, query, k, filters, message):
    with pytest.raises(InvalidInput, match=message):
        container.search.search(query, k=k, filters=filters)


def test_get_document_by_id_path_fragment_and_pages(indexed, container):
    from ltm_desktop.core.errors import NotFound
    from ltm_desktop.services.documents import AmbiguousDocument

    doc = container.documents.read("county tax bill", pages="1")
    assert doc.pages == (1, 1) and "Parcel 17-220-004" in doc.text
    by_id = container.documents.read(str(doc.info.doc_id), max_chars=20)
    assert len(by_id.text) == 20 and by_id.next_offset == 20
    rest = container.documents.read(str(doc.info.doc_id), max_chars=100_000, offset=20)
    assert by_id.text + rest.text == container.documents.read(str(doc.info.doc_id)).text
    with pytest.raises(AmbiguousDocument) as amb:
        container.documents.read("lease.md")
    assert {Path(c.path).name for c in amb.value.candidates} == {"Oak Street lease.md", "Maple Avenue lease.md"}
    with pytest.raises(NotFound):
        container.documents.read("no-such-file.pdf")
    with pytest.raises(InvalidInput, match="has no pages"):
        container.documents.read("hvac.eml", pages="2")
    with pytest.raises(InvalidInput, match="500,000"):
        container.documents.read("hvac.eml", max_chars=600_000)
    with pytest.raises(InvalidInput, match="page 9 does not exist"):
        container.documents.read("county tax bill", pages="9")


def test_stats_report_counts_types_and_the_model(indexed, container):
    s = container.search_index.stats()
    assert s["documents"] >= 4 and s["documents_by_type"]["lease"] == 2
    assert s["embedding_coverage"] == 1.0 and s["hnsw_index"] is True
    assert s["model_pin"]["model_id"] == "local/bge-small-en-v1.5-int8" and s["model_pin"]["dim"] == 384


def _exact_nearest(container, vector) -> list[int]:
    """Every live, active chunk by exact cosine, nearest first (what the index should approximate)."""
    with container.write_db.connection() as conn:
        ids = [r[0] for r in conn.execute(
            "SELECT c.id FROM chunks c JOIN contents ct USING (sha256) WHERE ct.lifecycle = 'active' AND EXISTS"
            " (SELECT 1 FROM documents d WHERE d.sha256 = c.sha256 AND d.deleted_at IS NULL)"
        )]
    cosines = container.search_index.cosines(vector, ids)
    return sorted(ids, key=lambda i: -cosines[i])


def test_dense_candidates_are_the_nearest_eligible_chunks(indexed, container):
    vector = container.embedder.embed_query("when does the Oak Street lease renew")
    exact = _exact_nearest(container, vector)
    # limit 2: fewer than the library holds; 50: more than it holds.
    for limit in (2, 50):
        got = container.search_index.dense(vector, limit, SearchFilters())
        assert [c.chunk_id for c in got] == exact[:limit]
        assert [c.dense_rank for c in got] == list(range(1, len(got) + 1))


def test_dense_search_skips_deleted_documents_near_the_query(indexed, container):
    """Deleted documents among the nearest vectors must not shorten or empty the list."""
    vector = container.embedder.embed_query("when does the Oak Street lease renew")
    nearest = [c.chunk_id for c in container.search_index.dense(vector, 2, SearchFilters())]
    with container.write_db.connection() as conn:
        hidden = conn.execute(
            "UPDATE documents SET deleted_at = now() WHERE deleted_at IS NULL AND sha256 IN"
            " (SELECT sha256 FROM chunks WHERE id = ANY(%s)) RETURNING id", (nearest,)
        ).fetchall()
    try:
        exact = _exact_nearest(container, vector)
        assert exact and not set(exact) & set(nearest)
        got = container.search_index.dense(vector, 1, SearchFilters())
        assert [c.chunk_id for c in got] == exact[:1]
    finally:
        with container.write_db.connection() as conn:
            conn.execute("UPDATE documents SET deleted_at = NULL WHERE id = ANY(%s)", ([r[0] for r in hidden],))


def test_dense_search_with_a_filter_keeps_only_matching_documents(indexed, container):
    vector = container.embedder.embed_query("when does the Oak Street lease renew")
    got = container.search_index.dense(vector, 2, SearchFilters(path_contains="Maple"))
    details = container.search_index.chunk_details([c.chunk_id for c in got], SearchFilters())
    assert got and all("Maple" in details[c.chunk_id].path for c in got)


def test_full_text_terms_match_the_statistics_query_and_follow_a_new_analyze(indexed, container):
    """The cached statistics give the same query as reading pg_stats inline; the row bound is inactive here."""
    from ltm_desktop.adapters.postgres.fulltext import COMMON_TERM_SHARE, TermStats, tsquery_cte, tsquery_cte_bounded

    stats = TermStats("chunks")
    lexemes = "SELECT array(SELECT unnest(tsvector_to_array(to_tsvector('simple', querytree(tq)))) ORDER BY 1) FROM q"
    for analyse in (False, True):
        if analyse:
            with container.write_db.connection() as conn:
                conn.execute("ANALYZE chunks")
        for q in ("when does the Oak Street lease renew", "furnace filter size", "lease", "the"):
            with container.read_db.connection() as conn:
                direct = conn.execute(f"{tsquery_cte('chunks')} {lexemes}", {"q": q, "common": COMMON_TERM_SHARE}).fetchone()
                bounded = conn.execute(f"{tsquery_cte_bounded()} {lexemes}", {"q": q, **stats.params(conn)}).fetchone()
            assert bounded == direct, q


def test_hybrid_search_surfaces_an_error_from_the_full_text_query(indexed, container):
    from ltm_desktop.core.errors import StoreUnavailable
    from ltm_desktop.services.search import SearchService

    class LexicalDown:
        def __getattr__(self, name):
            return getattr(container.search_index, name)

        def lexical(self, query, limit, filters):
            raise StoreUnavailable("Postgres did not answer in time")

    service = SearchService(LexicalDown(), container.embedder, None)
    with pytest.raises(StoreUnavailable, match="did not answer"):
        service.search("when does the Oak Street lease renew", rerank=False)
    assert service.search("when does the Oak Street lease renew", rerank=False, mode="dense").hits


def test_ef_search_grows_with_the_index():
    from ltm_desktop.adapters.postgres.search_index import ef_search_for

    values = [ef_search_for(n) for n in (0, 10_000, 100_000, 1_000_000, 50_000_000)]
    assert values == sorted(values) and values[0] >= 40


def test_the_vector_index_is_built_with_the_denser_graph(indexed, container):
    # pgvector's default graph (m 16, ef_construction 64) could not reach recall 0.95 at 1M chunks.
    with container.read_db.connection() as conn:
        (indexdef,) = conn.execute(
            "SELECT indexdef FROM pg_indexes WHERE indexname = 'chunk_embeddings_hnsw'"
        ).fetchone()
    assert "hnsw" in indexdef and "m='32'" in indexdef and "ef_construction='128'" in indexdef, indexdef


def test_upgrading_rebuilds_an_existing_default_graph_index(indexed, container):
    # A store from before migration 0006: its index has pgvector's default graph. Migrating rebuilds it, and
    # search still finds the same first hit afterwards.
    from ltm_desktop.adapters.postgres.migrations import migrate

    before = container.search.search("when does the Oak Street lease renew", k=3, rerank=False).hits[0].chunk_id
    with container.write_db.connection() as conn:
        conn.execute("DROP INDEX chunk_embeddings_hnsw")
        conn.execute("CREATE INDEX chunk_embeddings_hnsw ON chunk_embeddings USING hnsw (embedding vector_cosine_ops)")
        conn.execute("DELETE FROM schema_migrations WHERE version = 6")
    assert migrate(container.settings.database_url) == ["0006_hnsw_build_params.sql"]
    with container.read_db.connection() as conn:
        (indexdef,) = conn.execute("SELECT indexdef FROM pg_indexes WHERE indexname = 'chunk_embeddings_hnsw'").fetchone()
    assert "m='32'" in indexdef and "ef_construction='128'" in indexdef, indexdef
    after = container.search.search("when does the Oak Street lease renew", k=3, rerank=False).hits[0].chunk_id
    assert after == before


def test_words_found_in_no_document_are_reported_to_the_reader(indexed, container):
    r = container.search.search("when was the septic tank at the Oak Street house last pumped", k=3)
    assert "septic" in r.unmatched_terms and "pumped" in r.unmatched_terms
    assert not {"oak", "street", "when", "last"} & set(r.unmatched_terms)  # in the lease, or not a topic word
    assert "septic" in r.advice and "do not cover it" in r.advice
    r = container.search.search("when does the Oak Street lease renew", k=3)
    assert r.unmatched_terms == () and "none of the user's documents" not in r.advice


def test_a_year_no_passage_mentions_makes_the_verdict_low_and_is_named(indexed, container):
    # The 2025 tax bill is about exactly this, but the question asks about 2023: the confident miss measured.
    r = container.search.search("when was the first half of the 2023 property tax for 12 Oak Street due", k=3)
    assert r.hits[0].path.endswith("county tax bill 2025.pdf")
    assert r.unmentioned_details == ("2023",) and r.confidence == "low"
    assert "2023" in r.advice and "another year, month, unit, amount or street" in r.advice
    r = container.search.search("when was the first half of the 2025 property tax for 12 Oak Street due", k=3)
    assert r.unmentioned_details == () and r.confidence != "low"
    assert "none of the best passages" not in r.advice
    # The search without the reranker checks the same passages' text.
    r = container.search.search("how much was the 2023 tax bill for Oak Street", k=3, rerank=False)
    assert r.unmentioned_details == ("2023",) and r.confidence == "low"


def test_the_verdict_rests_only_on_a_passage_that_names_the_details(indexed, container):
    # The furnace email is about 5 Maple Avenue. Asked about 12 Oak Street's furnace, it still ranks first, and the
    # Oak Street lease among the next passages names the street: the verdict may not borrow the email's score.
    r = container.search.search("what filter size does the furnace at 12 Oak Street take", k=3)
    assert r.hits[0].path.endswith("hvac.eml")
    assert any("Oak Street" in h.path or "Oak Street" in h.snippet for h in r.hits[1:])
    assert r.unmentioned_details == ()  # the street is named, just not by the passage that answers
    assert r.confidence == "low" and r.verdict_score is not None and r.verdict_score < r.hits[0].rerank_score
    r = container.search.search("what filter size does the furnace at 5 Maple Avenue take", k=3)
    assert r.hits[0].path.endswith("hvac.eml") and r.confidence != "low"
    assert r.verdict_score == r.hits[0].rerank_score
    # A street named by no passage at all is listed, like a year
    r = container.search.search("what filter size does the furnace at 40 Birch Lane take", k=3)
    assert r.unmentioned_details == ("Birch Lane",) and r.confidence == "low" and r.verdict_score is None


def test_a_question_listing_many_details_gets_a_bounded_list(indexed, container):
    years = " ".join(str(y) for y in range(2001, 2021))
    r = container.search.search(f"Oak Street property tax in {years}", k=3)
    assert r.confidence == "low" and len(r.unmentioned_details) == 10
    assert r.unmentioned_details[0] == "2001" and "2025" not in r.unmentioned_details
