"""Recall and list on the real store and models: paraphrases, filters, visibility, as_of, paging with
opaque cursors, the memory://{namespace} listing, and sessions that round-trip exactly."""

from __future__ import annotations

import random
from datetime import timedelta

import pytest

from ltm_desktop.core.errors import InvalidInput, NotFound
from ltm_desktop.core.models import LOCAL_OWNER, Caller
from ltm_desktop.services.memory import NotYours
from tests.conftest import create_database, make_container
from tests.services.test_memory import Clock

ALICE = Caller(client="alice-app", transport="http", is_owner=False)
BOB = Caller(client="bob-app", transport="http", is_owner=False)

# (author, content, type, tags, project, visibility) and a paraphrased question that shares few words with it.
MEMORIES = [
    (ALICE, "The user is allergic to penicillin; a doctor confirmed it in 2019.", "fact", ["health"], None, "shared",
     "which antibiotic must the user avoid?"),
    (ALICE, "We chose Postgres with pgvector for the billing service because it keeps everything in one database.",
     "decision", ["architecture"], "billing", "shared", "what storage did we pick for invoices and why?"),
    (BOB, "To release: run make release, then push the tag, then announce in the team channel.", "procedure",
     ["release"], "billing", "shared", "how do I ship a new version?"),
    (BOB, "Dana Whitfield is the user's accountant; she files the taxes every April.", "person", ["taxes"], None,
     "shared", "who prepares my tax return?"),
    (ALICE, "The user likes their coffee black, no sugar, from a French press.", "preference", ["food"], None,
     "private", "how should I make the user's morning drink?"),
    (BOB, "The kitchen renovation starts on May 12 and the contractor is Hollis Builders.", "event",
     ["house", "renovation"], "house", "shared", "when does work on the cooking area begin?"),
]


@pytest.fixture(scope="module")
def mem(tmp_path_factory, pg_uri, shared_models):
    c = make_container(tmp_path_factory.mktemp("recall-home"), create_database(pg_uri, "recall"), shared_models)
    c.memory.clock = Clock()
    ids = []
    for author, content, type_, tags, project, visibility, _ in MEMORIES:
        ids.append(c.memory.remember(author, content, type=type_, tags=tags, project=project, visibility=visibility).id)
    c.ids = ids
    yield c
    c.close()


def recall_ids(mem, caller, query, **kw) -> list[str]:
    return [i.view.id for i in mem.memory_reader.recall(caller, query, **kw).items]


def test_recall_finds_memories_by_paraphrase(mem):
    for (author, *_, question), mid in zip(MEMORIES, mem.ids, strict=True):
        page = mem.memory_reader.recall(author, question, limit=3)
        assert page.items[0].view.id == mid, (question, [i.text for i in page.items])
        assert page.items[0].rerank_score is not None and page.items[0].cosine is not None


def test_private_memories_are_seen_by_their_author_and_the_owner_only(mem):
    coffee = mem.ids[4]
    q = "how does the user take their coffee?"
    assert coffee in recall_ids(mem, ALICE, q)
    assert coffee in recall_ids(mem, LOCAL_OWNER, q)
    assert coffee not in recall_ids(mem, BOB, q, limit=50)
    assert coffee not in [i.view.id for i in mem.memory_reader.list(BOB, limit=50).items]


def test_recall_filters(mem):
    r = mem.memory_reader
    assert set(recall_ids(mem, ALICE, "billing", project="billing")) == {mem.ids[1], mem.ids[2]}
    assert recall_ids(mem, ALICE, "billing", project="billing", type="procedure") == [mem.ids[2]]
    assert recall_ids(mem, ALICE, "renovation contractor", tags=["house", "renovation"]) == [mem.ids[5]]
    assert recall_ids(mem, ALICE, "renovation contractor", tags=["house", "garden"]) == []
    assert set(recall_ids(mem, ALICE, "anything at all", author="bob-app", limit=50)) == {mem.ids[2], mem.ids[3], mem.ids[5]}
    later = mem.memory.now()
    assert recall_ids(mem, ALICE, "billing", since=later.isoformat()) == []
    assert r.recall(ALICE, "billing", type="FACT").total >= 0  # type names are case-insensitive


def test_as_of_returns_the_state_at_a_past_time(mem):
    svc = mem.memory
    i = svc.remember(ALICE, "The office wifi password is stored in the blue binder.", type="fact", project="office").id
    before_update = svc.now()
    svc.clock.advance(hours=1)
    svc.update(ALICE, i, "The office wifi password is now kept in the password manager.")
    svc.clock.advance(hours=1)
    before_forget = svc.now()
    svc.clock.advance(hours=1)
    svc.forget(ALICE, i)
    q = "where is the wifi password?"
    assert i not in recall_ids(mem, ALICE, q, project="office")
    then = mem.memory_reader.recall(ALICE, q, project="office", as_of=before_update.isoformat()).items
    assert [(x.view.id, x.view.current.version) for x in then] == [(i, 1)] and "blue binder" in then[0].text
    then = mem.memory_reader.recall(ALICE, q, project="office", as_of=before_forget.isoformat()).items
    assert [(x.view.id, x.view.current.version) for x in then] == [(i, 2)] and "password manager" in then[0].text
    created = svc.get(ALICE, i).record.created_at
    assert recall_ids(mem, ALICE, q, project="office", as_of=(created - timedelta(seconds=1)).isoformat()) == []
    with pytest.raises(InvalidInput, match="in the future"):
        mem.memory_reader.recall(ALICE, q, as_of=(svc.now() + timedelta(days=1)).isoformat())
    svc.restore(ALICE, i)


def test_cursors_page_through_everything_once_and_are_validated(mem):
    r = mem.memory_reader
    rng = random.Random(7)
    for n in range(9):
        mem.memory.remember(BOB, f"Garden log {n}: planted {rng.choice(['kale', 'beans', 'leeks'])} in bed {n * 7 + 3}.",
                            type="event", project="garden")
    for call in (lambda c: r.recall(BOB, "what was planted in the garden beds?", project="garden", limit=2, cursor=c),
                 lambda c: r.list(BOB, project="garden", limit=2, cursor=c)):
        seen, cursor, pages = [], None, 0
        while True:
            page = call(cursor)
            seen += [i.view.id for i in page.items]
            pages += 1
            assert page.total == 9 and page.has_more == (page.next_cursor is not None)
            if not page.has_more:
                break
            cursor = page.next_cursor
        assert len(seen) == len(set(seen)) == 9 and pages == 5
    listed = [i.view.current.created_at for i in r.list(BOB, project="garden", limit=50).items]
    assert listed == sorted(listed, reverse=True)  # newest first

    good = r.list(BOB, project="garden", limit=2).next_cursor
    for bad in ("not-a-cursor", good[:-3], good + "x", "e30", r.recall(BOB, "garden", limit=1).next_cursor):
        with pytest.raises(InvalidInput, match="cursor"):
            r.list(BOB, project="garden", limit=2, cursor=bad)
    with pytest.raises(InvalidInput, match="cursor"):  # a cursor from another query is refused, not reused
        r.recall(BOB, "what did we plant?", project="garden", limit=2,
                 cursor=r.recall(BOB, "garden beds", project="garden", limit=2).next_cursor)
    for kw, message in (({"limit": 0}, "limit"), ({"limit": 51}, "limit"), ({"type": "gossip"}, "unknown memory type")):
        with pytest.raises(InvalidInput, match=message):
            r.recall(BOB, "garden", **kw)
    with pytest.raises(InvalidInput, match="query is empty"):
        r.recall(BOB, "  ")


def test_namespace_listing(mem):
    r = mem.memory_reader
    billing = [i.view.id for i in r.namespace(ALICE, "billing").items]
    assert set(billing) == {mem.ids[1], mem.ids[2]}
    shared = {i.view.id for i in r.namespace(ALICE, "shared", limit=50).items}
    assert {mem.ids[0], mem.ids[3], mem.ids[4]} <= shared and mem.ids[1] not in shared
    assert mem.ids[4] not in {i.view.id for i in r.namespace(BOB, "shared", limit=50).items}  # private stays private


def test_a_session_round_trips_exactly_and_is_chunked_on_write(mem):
    """(The 200,000-character round trip runs once, through the MCP tools: tests/mcp/test_memory_tools.py.)"""
    svc = mem.memory
    rng = random.Random(5)
    # A transcript-like text with the characters that break naive round trips: CRLF, tabs, fences, accents, emoji.
    lines = ["user: what did the plumber quote for the boiler?", "assistant: He quoted $1,380 installed, café hours.",
             "user: and the 日本 trip?\r", "assistant:\tthe flights are booked 🙂", "```python\nprint('hi')\n```",
             "## notes", "user: remind me about the roof shingles next spring"]
    text = "\n".join(rng.choice(lines) + f" #{n}" for n in range(1_000))[:30_000]
    assert len(text) == 30_000
    saved = svc.session_save(ALICE, "chat-2026-03-01", text, project="house")
    assert saved.status == "created"
    pages, page = [], 0
    while True:
        p = svc.session_load(BOB, "chat-2026-03-01", page=page, page_size=8000)
        pages.append(p.content)
        assert p.total_chars == 30_000 and p.total_pages == 4
        if not p.has_more:
            break
        page += 1
    assert "".join(pages) == text
    # Chunked on write: one vector per chunk.
    import psycopg

    with psycopg.connect(mem.settings.database_url) as conn:
        n = conn.execute("SELECT count(*) FROM memory_chunks c JOIN memory_chunk_embeddings e ON e.chunk_id = c.id"
                         " WHERE c.memory_id = %s", (saved.id,)).fetchone()[0]
    assert n >= 15

    assert svc.session_save(ALICE, "chat-2026-03-01", text).status == "unchanged"
    short = svc.session_save(ALICE, "chat-short", "user: hi")
    again = svc.session_save(ALICE, "chat-short", "user: hi\nassistant: hello")
    assert (again.status, again.id, again.version) == ("updated", short.id, 2)
    assert svc.session_load(ALICE, "chat-short", page=1, page_size=20).content == "hello"
    # Sessions stay out of memory recall unless asked for.
    assert saved.id not in recall_ids(mem, ALICE, "boiler quote", limit=50)
    assert saved.id in recall_ids(mem, ALICE, "boiler quote", type="session")
    with pytest.raises(NotYours, match="saved by 'alice-app'"):
        svc.session_save(BOB, "chat-2026-03-01", "overwrite attempt")
    for kw, message in (({"page": 99}, "past the end"), ({"page": -1}, "page must be"),
                        ({"page_size": 0}, "page_size"), ({"page_size": 100_001}, "page_size")):
        with pytest.raises(InvalidInput, match=message):
            svc.session_load(ALICE, "chat-2026-03-01", **kw)
    with pytest.raises(NotFound, match="no saved session"):
        svc.session_load(ALICE, "never-saved")
    with pytest.raises(InvalidInput, match="session_id is empty"):
        svc.session_save(ALICE, " ", "text")
    with pytest.raises(InvalidInput, match="limit is 2,000,000"):
        svc.session_save(ALICE, "too-long", "x" * 2_000_001)


def test_full_text_skips_terms_most_memories_share_when_rarer_ones_remain(mem):
    """(Runs last in this module: it ANALYZEs the table.) The bound on full-text cost at 100k memories."""
    import psycopg

    svc, store = mem.memory, mem.memory.store
    for n in range(30):
        svc.remember(BOB, f"Orchard diary {n}: the orchard got {n} buckets of water.", type="event", project="orchard")
    rare = svc.remember(BOB, "The orchard ladder was lent to the Kowalczyk family.", type="event", project="orchard").id
    with psycopg.connect(mem.settings.database_url, autocommit=True) as conn:
        conn.execute("ANALYZE memory_chunks")
    scope = mem.memory_reader.scope(BOB, svc.now(), False)
    assert {m.memory_id for m in store.lexical("orchard Kowalczyk", 50, scope)} == {rare}
    assert len(store.lexical("orchard", 50, scope)) == 31  # a query of common terms only still matches them...
    both = {m.memory_id for m in store.lexical("orchard water", 50, scope)}
    assert len(both) == 30 and rare not in both  # ...all of them at once
    top = mem.memory_reader.recall(BOB, "who borrowed the orchard ladder?", project="orchard").items[0]
    assert top.view.id == rare
