"""Memory writes and their rules on the real store and models: versions, provenance, ownership, visibility,
forget/restore/purge, near-duplicates, expiry, and every bad input leaving the store unchanged."""

from __future__ import annotations

import threading
from concurrent.futures import ThreadPoolExecutor
from datetime import UTC, datetime, timedelta

import psycopg
import pytest

from ltm_desktop.core.errors import InvalidInput, NotFound
from ltm_desktop.core.models import LOCAL_OWNER, Caller
from ltm_desktop.services.memory import NotYours
from tests.conftest import create_database, make_container

ALICE = Caller(client="alice-app", transport="http", is_owner=False)
BOB = Caller(client="bob-app", transport="http", is_owner=False)


class Clock:
    """A settable clock, so tests can cross a 30-day window or an expiry without waiting."""

    def __init__(self) -> None:
        self.now = datetime(2026, 3, 1, 9, 0, tzinfo=UTC)

    def __call__(self) -> datetime:
        self.now += timedelta(milliseconds=1)  # every write gets its own instant, as in real life
        return self.now

    def advance(self, **kw: float) -> None:
        self.now += timedelta(**kw)


@pytest.fixture(scope="module")
def mem(tmp_path_factory, pg_uri, shared_models):
    c = make_container(tmp_path_factory.mktemp("mem-home"), create_database(pg_uri, "mem"), shared_models)
    c.memory.clock = Clock()
    yield c
    c.close()


def snapshot(c) -> list:
    """Everything stored, for checking that a refused call changed nothing."""
    return list(c.memory.store.all_records())


def test_remember_records_provenance_and_update_keeps_history(mem):
    svc = mem.memory
    r = svc.remember(ALICE, "The boiler at 27 Quarry Lane was serviced by Northfield Heating.", title="Boiler service",
                     type="event", tags=["house", "boiler"], project="quarry-lane", source="doc:12")
    assert r.status == "created" and r.id.startswith("mem_")
    svc.update(ALICE, r.id, "The boiler at 27 Quarry Lane was serviced in March; next service due next March.",
               tags=["house"])
    d = svc.get(BOB, r.id)
    v1, v2 = d.record.versions
    assert d.record.author == "alice-app" and d.status == "active"
    assert (v1.version, v1.supersedes, v2.version, v2.supersedes) == (1, None, 2, 1)
    assert v1.content.startswith("The boiler at 27 Quarry Lane was serviced by")
    assert (v1.author, v1.transport, v1.source, v1.tags) == ("alice-app", "http", "doc:12", ("house", "boiler"))
    # Unspecified fields carry over; the new version has its own provenance and a later time.
    assert (v2.title, v2.type, v2.project, v2.source, v2.tags) == ("Boiler service", "event", "quarry-lane", "doc:12", ("house",))
    assert v2.created_at > v1.created_at
    # The local owner may edit anyone's memory; the version records who did.
    svc.update(LOCAL_OWNER, r.id, "The boiler was serviced in March 2026.")
    assert svc.get(ALICE, r.id).record.current.author == "local-owner"


def test_only_the_author_or_owner_may_change_and_a_refusal_changes_nothing(mem):
    svc = mem.memory
    shared = svc.remember(ALICE, "Alice's team deploys on Thursdays only.", type="procedure").id
    private = svc.remember(ALICE, "Alice's VPN password hint is the cat's name.", visibility="private").id
    before = snapshot(mem)
    for call in (lambda i: svc.update(BOB, i, "Bob was here"), lambda i: svc.forget(BOB, i),
                 lambda i: svc.restore(BOB, i)):
        with pytest.raises(NotYours, match="belongs to 'alice-app'"):
            call(shared)
        with pytest.raises(NotFound, match="no memory with id"):  # someone's private memory stays unknown
            call(private)
    with pytest.raises(NotFound):
        svc.get(BOB, private)
    assert snapshot(mem) == before
    assert svc.get(ALICE, private).record.current.visibility == "private"
    assert svc.get(LOCAL_OWNER, private).record.author == "alice-app"


def test_private_versions_of_a_now_shared_memory_stay_hidden_from_others(mem):
    svc = mem.memory
    i = svc.remember(ALICE, "Draft: surprise party for Dana on June 3.", visibility="private").id
    svc.update(ALICE, i, "Team lunch for Dana on June 3.", visibility="shared")
    seen_by_bob = svc.get(BOB, i).record.versions
    assert [v.version for v in seen_by_bob] == [2]
    assert [v.version for v in svc.get(ALICE, i).record.versions] == [1, 2]


def test_forget_hides_restore_brings_back_and_purge_after_30_days(mem):
    svc, reader = mem.memory, mem.memory_reader
    i = svc.remember(ALICE, "The spare house key is in the blue flowerpot by the shed.", type="fact").id
    assert i in [x.view.id for x in reader.recall(ALICE, "where is the spare key hidden?").items]
    d = svc.forget(ALICE, i)
    assert d.status == "forgotten" and d.restorable_until == d.record.forgotten_at + timedelta(days=30)
    assert i not in [x.view.id for x in reader.recall(ALICE, "where is the spare key hidden?").items]
    assert i not in [x.view.id for x in reader.list(ALICE, limit=50).items]
    with pytest.raises(NotFound):
        svc.get(BOB, i)  # a tombstone is its author's business
    assert svc.forget(ALICE, i).status == "forgotten"  # forgetting twice is harmless
    assert svc.restore(ALICE, i).status == "active"
    assert i in [x.view.id for x in reader.recall(ALICE, "where is the spare key hidden?").items]
    events = svc.get(ALICE, i).record.events
    assert [(e.kind, e.by_client) for e in events] == [("forget", "alice-app"), ("restore", "alice-app")]

    svc.forget(ALICE, i)
    svc.clock.advance(days=29)
    assert svc.restore(ALICE, i).status == "active"  # still inside the window
    svc.forget(ALICE, i)
    svc.clock.advance(days=31)
    with pytest.raises(NotFound, match="purged"):
        svc.restore(ALICE, i)
    with psycopg.connect(mem.settings.database_url) as conn:
        left = conn.execute(
            "SELECT (SELECT count(*) FROM memory_versions WHERE memory_id = %s),"
            " (SELECT count(*) FROM memory_chunks WHERE memory_id = %s)", (i, i)
        ).fetchone()
    assert left == (0, 0)


def test_near_duplicates_return_the_existing_id_and_never_overwrite(mem):
    svc = mem.memory
    first = svc.remember(ALICE, "The user prefers dark mode in VS Code.", type="preference")
    again = svc.remember(ALICE, "User prefers dark mode in VSCode.", type="preference")
    assert (again.status, again.id) == ("duplicate", first.id)
    assert again.similarity >= 0.96 and "memory_update" in again.hint
    assert svc.get(ALICE, first.id).record.current.content == "The user prefers dark mode in VS Code."
    assert len(svc.get(ALICE, first.id).record.versions) == 1
    # A different author's copy is their own memory; a changed meaning is a new memory.
    assert svc.remember(BOB, "The user prefers dark mode in VS Code.", type="preference").status == "created"
    assert svc.remember(ALICE, "The user prefers light mode in VS Code.", type="preference").status == "created"


def test_the_same_remember_sent_twice_at_once_stores_one_memory(mem):
    """A client retrying after a timeout sends the same remember twice, concurrently: one is stored, the other
    reports it. Without the per-author lock both passed the duplicate check before either had written."""
    svc = mem.memory
    carol = Caller(client="carol-app", transport="http", is_owner=False)
    facts = ("The roof at 14 Oak Street was replaced in May 2024 by Summit Roofing.",
             "Grace prefers to be contacted by text message, never before 9 am.",
             "The accountant's deadline for the 2024 receipts is February 15.",
             "Parking space 3 at Maple Avenue belongs to the upstairs tenant.")
    for fact in facts:
        barrier = threading.Barrier(2)

        def remember(fact=fact, barrier=barrier):
            barrier.wait()
            return svc.remember(carol, fact)

        with ThreadPoolExecutor(max_workers=2) as pool:
            results = [f.result() for f in [pool.submit(remember), pool.submit(remember)]]
        assert sorted(r.status for r in results) == ["created", "duplicate"], fact
        assert results[0].id == results[1].id
    stored = [r for r in svc.store.all_records() if r.author == "carol-app"]
    assert sorted(r.current.content for r in stored) == sorted(facts)


def test_expiry_hides_only_expired_memories(mem):
    svc, reader = mem.memory, mem.memory_reader
    soon = (svc.now() + timedelta(hours=2)).isoformat()
    temp = svc.remember(ALICE, "The garage door code this week is 4471.", type="fact", project="expiry", expires_at=soon).id
    lasting = svc.remember(ALICE, "The garage door opener battery is a CR2032.", type="fact", project="expiry").id
    ids = lambda: {x.view.id for x in reader.list(ALICE, project="expiry").items}
    assert ids() == {temp, lasting}
    svc.clock.advance(hours=3)
    assert ids() == {lasting}
    assert temp not in [x.view.id for x in reader.recall(ALICE, "garage door code", project="expiry").items]
    assert svc.get(ALICE, temp).status == "expired"  # still readable by id, never silently lost
    svc.update(ALICE, temp, "The garage door code is now 9902.")  # updating an expired memory brings it back
    assert ids() == {temp, lasting} and svc.get(ALICE, temp).record.current.expires_at is None


def test_bad_input_is_refused_by_name_and_changes_nothing(mem):
    svc = mem.memory
    own = svc.remember(ALICE, "The water shut-off valve is behind the washing machine.").id
    before = snapshot(mem)
    past = (svc.now() - timedelta(days=1)).isoformat()
    cases = [
        (lambda: svc.remember(ALICE, "   "), "content is empty"),
        (lambda: svc.remember(ALICE, "x" * 20_001), "limit is 20,000"),
        (lambda: svc.remember(ALICE, "ok", type="gossip"), "unknown memory type 'gossip'"),
        (lambda: svc.remember(ALICE, "ok", expires_at=past), "expires_at .* is in the past"),
        (lambda: svc.remember(ALICE, "ok", expires_at="next tuesday"), "not an ISO 8601 time"),
        (lambda: svc.remember(ALICE, "ok", visibility="public"), "visibility must be"),
        (lambda: svc.remember(ALICE, "ok", confidence=1.5), "confidence must be"),
        (lambda: svc.remember(ALICE, "ok", tags=[f"t{i}" for i in range(21)]), "the limit is 20"),
        (lambda: svc.remember(ALICE, "ok", project="shared"), "reserved"),
        (lambda: svc.remember(ALICE, "nul \x00 byte"), "NUL"),
        (lambda: svc.update(ALICE, "mem_doesnotexist", "new text"), "no memory with id 'mem_doesnotexist'"),
        (lambda: svc.update(ALICE, own, ""), "content is empty"),
        (lambda: svc.update(ALICE, own, "ok", type="gossip"), "unknown memory type"),
        (lambda: svc.update(ALICE, own, "ok", expires_at=past), "in the past"),
        (lambda: svc.forget(ALICE, "mem_doesnotexist"), "no memory with id"),
        (lambda: svc.restore(ALICE, ""), "not valid"),
        (lambda: svc.get(ALICE, "x" * 500), "not valid"),
    ]
    for call, message in cases:
        with pytest.raises((InvalidInput, NotFound), match=message):
            call()
    assert snapshot(mem) == before


def test_memory_writes_go_through_the_narrow_role(mem):
    db = mem.memory_db
    with db.connection() as conn:
        assert conn.execute("SELECT current_user").fetchone()[0] == "ltm_memory_writer"
    with pytest.raises(psycopg.errors.InsufficientPrivilege), db.connection() as conn:
        conn.execute("DELETE FROM documents")
    with pytest.raises(psycopg.errors.InsufficientPrivilege), db.connection() as conn:
        conn.execute("UPDATE model_pin SET dim = 1")


def test_a_model_change_re_embeds_memory_vectors(mem):
    """After `ltm reindex` pins another model, memory notices and re-embeds rather than mixing vector spaces."""
    from dataclasses import replace

    from ltm_desktop.adapters.postgres.memory_store import ensure_memory_vectors

    svc = mem.memory
    svc.remember(ALICE, "The piano tuner comes every October.", type="event")
    pin = mem.embedder.pin
    assert ensure_memory_vectors(mem.write_db, pin) is False  # same model: nothing to do
    assert ensure_memory_vectors(mem.write_db, replace(pin, files_sha256="another-model")) is True
    assert ensure_memory_vectors(mem.write_db, pin) is True  # and back: vectors from this model are needed again
    with psycopg.connect(mem.settings.database_url) as conn:
        chunks = conn.execute("SELECT count(*) FROM memory_chunks").fetchone()[0]
        assert conn.execute("SELECT count(*) FROM memory_chunk_embeddings").fetchone()[0] == 0
    assert svc.reembed() == chunks
    top = mem.memory_reader.recall(ALICE, "when does the piano get tuned?").items[0]
    assert "piano tuner" in top.text
