"""The document tools through the SDK's in-memory client: right documents, right pages, honest verdicts,
bounded output, and a clear ToolError for every bad input."""

from __future__ import annotations

import pytest
from mcp import Client

from ltm_desktop.mcp.server import build_server

pytestmark = pytest.mark.anyio


async def call(container, tool: str, args: dict | None = None):
    async with Client(build_server(container)) as client:
        return await client.call_tool(tool, args or {})


async def test_tools_are_listed_read_only_with_output_schemas(indexed):
    async with Client(build_server(indexed)) as client:
        tools = {t.name: t for t in (await client.list_tools()).tools}
    assert {"ltm_search", "ltm_get_document", "ltm_stats", "search", "fetch"} <= set(tools)
    for name in ("ltm_search", "ltm_get_document", "ltm_stats", "search", "fetch"):
        a = tools[name].annotations
        assert (a.read_only_hint, a.destructive_hint, a.idempotent_hint, a.open_world_hint) == (True, False, True, False)
        assert tools[name].output_schema is not None
        assert len(tools[name].description) > 60  # tells the model when to use it
    k = tools["ltm_search"].input_schema["properties"]["k"]
    assert (k["minimum"], k["maximum"], k["default"]) == (1, 50, 8)


async def test_search_finds_the_right_document_and_page(indexed):
    r = await call(indexed, "ltm_search", {"query": "how much is the pet deposit?"})
    assert not r.is_error, r.content
    out = r.structured_content
    top = out["hits"][0]
    assert top["path"].endswith("harbor-lease-2024.pdf")
    assert (top["page_from"], top["page_to"]) == (3, 3)
    assert "$400" in top["snippet"]
    assert out["confidence"] in ("high", "medium")
    assert out["confidence_basis"] == "rerank"

    r = await call(indexed, "ltm_search", {"query": "what did the inspector say about the roof shingles"})
    top = r.structured_content["hits"][0]
    assert top["path"].endswith("quarry-lane-inspection.pdf") and top["page_from"] == 2


async def test_an_unanswerable_question_is_judged_low(indexed):
    r = await call(indexed, "ltm_search", {"query": "what is the boiling point of liquid nitrogen on Neptune"})
    out = r.structured_content
    assert out["confidence"] == "low"
    assert "not" in out["advice"].lower()


async def test_search_filters_and_bounds(indexed):
    r = await call(indexed, "ltm_search", {"query": "budget groceries", "k": 2, "doc_type": "note"})
    hits = r.structured_content["hits"]
    assert 1 <= len(hits) <= 2 and all(h["doc_type"] == "note" for h in hits)
    r = await call(indexed, "ltm_search", {"query": "rent", "path_contains": "harbor", "doc_type": ""})
    assert {h["path"].rsplit("/", 1)[1] for h in r.structured_content["hits"]} == {"harbor-lease-2024.pdf"}
    r = await call(indexed, "ltm_search", {"query": "ledger entries survey", "k": 50, "rerank": False})
    out = r.structured_content
    assert out["confidence_basis"] == "cosine"
    assert len(out["hits"]) <= 50 and all(len(h["snippet"]) <= 330 for h in out["hits"])


@pytest.mark.parametrize(
    ("args", "needle"),
    [
        ({"query": ""}, "query is empty"),
        ({"query": "   \n "}, "query is empty"),
        ({"query": "word " * 1000}, "limit is 2000"),
        ({"query": "rent", "k": 0}, "greater than or equal to 1"),
        ({"query": "rent", "k": 51}, "less than or equal to 50"),
        ({"query": "rent", "k": "many"}, "valid integer"),
        ({"query": "rent", "doc_type": "spaceship"}, "unknown doc_type 'spaceship'"),
        ({"query": "rent", "path_contains": "x" * 600}, "path_contains is 600 characters"),
        ({}, "query"),
    ],
)
async def test_bad_search_input_is_a_clear_tool_error(indexed, args, needle):
    r = await call(indexed, "ltm_search", args)
    assert r.is_error
    assert needle in r.content[0].text


async def test_get_document_by_id_pages_and_offset(indexed):
    hit = (await call(indexed, "ltm_search", {"query": "late fee after the fifth day"})).structured_content["hits"][0]
    r = await call(indexed, "ltm_get_document", {"path_or_id": str(hit["doc_id"]), "pages": "2"})
    doc = r.structured_content
    assert doc["status"] == "ok" and doc["pages_returned"] == "2" and doc["page_count"] == 3
    assert "$75" in doc["text"] and "$400" not in doc["text"]
    r = await call(indexed, "ltm_get_document", {"path_or_id": str(hit["doc_id"]), "pages": 3})
    assert "$400" in r.structured_content["text"]

    first = (await call(indexed, "ltm_get_document", {"path_or_id": "ledger-long.txt", "max_chars": 5000})).structured_content
    assert len(first["text"]) == 5000 and first["next_offset"] == 5000 and first["total_chars"] > 15_000
    nxt = (await call(indexed, "ltm_get_document",
                      {"path_or_id": first["path"], "max_chars": 5000, "offset": 5000})).structured_content
    assert nxt["offset"] == 5000 and nxt["text"] != first["text"]
    whole = (await call(indexed, "ltm_get_document", {"path_or_id": first["path"], "max_chars": 500_000})).structured_content
    assert whole["text"][:10000] == first["text"] + nxt["text"] and whole["next_offset"] is None


async def test_get_document_with_an_ambiguous_fragment_lists_candidates(indexed):
    r = await call(indexed, "ltm_get_document", {"path_or_id": "budget-"})
    doc = r.structured_content
    assert not r.is_error and doc["status"] == "ambiguous" and doc["total_matches"] == 3
    assert sorted(c["path"].rsplit("/", 1)[1] for c in doc["candidates"]) == [
        "budget-2021.md", "budget-2022.md", "budget-2023.md"
    ]
    # a fragment that matches everything stays bounded
    r = await call(indexed, "ltm_get_document", {"path_or_id": "/"})
    doc = r.structured_content
    assert doc["status"] == "ambiguous" and doc["total_matches"] >= 8 and len(doc["candidates"]) <= 20


@pytest.mark.parametrize(
    ("args", "needle"),
    [
        ({"path_or_id": "no-such-file-anywhere.pdf"}, "no document matches"),
        ({"path_or_id": "  "}, "give a document id or a path"),
        ({"path_or_id": "harbor-lease", "max_chars": 500_001}, "less than or equal to 500000"),
        ({"path_or_id": "harbor-lease", "max_chars": 0}, "greater than or equal to 1"),
        ({"path_or_id": "harbor-lease", "pages": "7"}, "has 3 page(s)"),
        ({"path_or_id": "harbor-lease", "pages": "three"}, "pages must look like"),
        ({"path_or_id": "harbor-lease", "pages": "3-1"}, "is empty"),
        ({"path_or_id": "garden-plan.md", "pages": "1"}, "has no pages"),
        ({"path_or_id": "garden-plan.md", "offset": 10**7}, "past the end"),
        ({"path_or_id": "garden-plan.md", "offset": -1}, "greater than or equal to 0"),
    ],
)
async def test_bad_get_document_input_is_a_clear_tool_error(indexed, args, needle):
    r = await call(indexed, "ltm_get_document", args)
    assert r.is_error, r.structured_content
    assert needle in r.content[0].text


async def test_stats_describe_the_index(indexed):
    r = await call(indexed, "ltm_stats")
    s = r.structured_content
    assert s["documents"] == 8
    assert s["documents_by_type"]["lease"] == 1 and s["documents_by_type"]["email"] == 1
    assert s["embedded_chunks"] == s["chunks"] > 0 and s["embedding_coverage"] == 1.0
    assert s["hnsw_index"] is True
    assert s["model_pin"]["model_id"] == indexed.embedder.pin.model_id
    assert s["pages"] >= 7 and s["failed_files"] == 0
    assert s["worker"] is None or "queued" in s["worker"]  # the worker's status, when that feature is installed


async def test_connector_search_and_fetch_shapes(indexed):
    r = await call(indexed, "search", {"query": "water heater replacement quote"})
    results = r.structured_content["results"]
    assert results and set(results[0]) == {"id", "title", "url", "text"}
    assert len({x["id"].split("#")[0] for x in results}) == len(results)  # one per document
    assert "plumber.eml" in results[0]["url"]
    fetched = (await call(indexed, "fetch", {"id": results[0]["id"]})).structured_content
    assert set(fetched) == {"id", "title", "text", "url", "metadata"}
    assert "$1,380" in fetched["text"]

    r = await call(indexed, "search", {"query": "efflorescence on the foundation wall"})
    top = r.structured_content["results"][0]
    assert top["id"].endswith("#page=3") and top["url"].endswith("quarry-lane-inspection.pdf#page=3")
    fetched = (await call(indexed, "fetch", {"id": top["id"]})).structured_content
    assert fetched["metadata"]["pages"] == "2-4" and "Efflorescence" in fetched["text"]

    for bad in ("", "abc", "12#page=x", "999999"):
        r = await call(indexed, "fetch", {"id": bad})
        assert r.is_error and ("not an id returned by search" in r.content[0].text or "no document" in r.content[0].text)


async def test_no_index_is_a_tool_error_and_the_server_recovers_when_the_store_appears(fresh_container, corpus):
    server = build_server(fresh_container)
    async with Client(server) as client:
        for tool, args in (("ltm_search", {"query": "rent"}), ("ltm_stats", {}), ("ltm_get_document", {"path_or_id": "1"})):
            r = await client.call_tool(tool, args)
            assert r.is_error and "no index yet: run `ltm ingest PATH`" in r.content[0].text
        # The store appears while the server runs (a writer migrates and ingests): the same server answers.
        fresh_container.ingest.ingest_file(corpus / "harbor-lease-2024.pdf")
        r = await client.call_tool("ltm_search", {"query": "monthly rent"})
        assert not r.is_error and r.structured_content["hits"][0]["path"].endswith("harbor-lease-2024.pdf")


async def test_models_and_services_are_built_once_per_process(indexed):
    built = (indexed.embedder, indexed.reranker, indexed.search, indexed.read_db)
    for query in ("rent", "pet deposit"):
        r = await call(indexed, "ltm_search", {"query": query})  # a new server each time, same container
        assert not r.is_error
    assert all(a is b for a, b in zip(built, (indexed.embedder, indexed.reranker, indexed.search, indexed.read_db)))


async def test_words_found_in_no_document_are_listed_for_the_model(indexed):
    r = await call(indexed, "ltm_search", {"query": "what is the boiling point of liquid nitrogen on Neptune"})
    out = r.structured_content
    assert "neptune" in out["unmatched_terms"] and "nitrogen" in out["unmatched_terms"]
    r = await call(indexed, "ltm_search", {"query": "how much is the pet deposit?"})
    assert r.structured_content["unmatched_terms"] == []


async def test_a_detail_no_passage_mentions_is_listed_and_the_verdict_is_low(indexed):
    # The lease is for apartment 4B: a question about apartment 7 finds it, and must not be told it is the answer.
    r = await call(indexed, "ltm_search", {"query": "what is the monthly rent for apartment 7 at 118 Harbor Street?"})
    out = r.structured_content
    assert out["hits"][0]["path"].endswith("harbor-lease-2024.pdf")
    assert out["unmentioned_details"] == ["apartment 7"] and out["confidence"] == "low"
    assert "apartment 7" in out["advice"] and out["verdict_score"] is None  # no passage names it to rest on
    r = await call(indexed, "ltm_search", {"query": "what is the monthly rent for apartment 4B at 118 Harbor Street?"})
    out = r.structured_content
    assert out["unmentioned_details"] == [] and out["confidence"] != "low"
    assert out["verdict_score"] == out["hits"][0]["rerank_score"]


async def test_the_server_tells_the_model_how_to_read_the_verdict_and_its_evidence(indexed):
    async with Client(build_server(indexed)) as client:
        instructions = client.instructions or ""
    assert "ltm_search" in instructions and "confidence" in instructions
    assert "unmatched_terms" in instructions and "unmentioned_details" in instructions
