"""Export then import into an empty store reproduces every memory and every version, in JSON Lines and in
Markdown, including content that looks like Markdown, tombstones, private memories and sessions."""

from __future__ import annotations

import pytest

from ltm_desktop.core.errors import InvalidInput
from ltm_desktop.core.models import LOCAL_OWNER, Caller
from ltm_desktop.services import memory_transfer as transfer
from tests.conftest import create_database, make_container
from tests.services.test_memory import Clock

ALICE = Caller(client="alice-app", transport="http", is_owner=False)
BOB = Caller(client="bob-app", transport="stdio", is_owner=False)
TRICKY = (
    "# Not a heading of the export\n\n## mem_fake: also not one\n\n- id: \"mem_fake\"\n\n"
    "```text\ncode fence inside\n````\n\n### Version 9\r\nwindows line\r\n\ttab, café, 日本語, 🙂\n\n"
)


@pytest.fixture(scope="module")
def source(tmp_path_factory, pg_uri, shared_models):
    c = make_container(tmp_path_factory.mktemp("src-home"), create_database(pg_uri, "xsrc"), shared_models)
    svc = c.memory
    svc.clock = Clock()
    a = svc.remember(ALICE, "The roof was replaced in 2019 by Summit Roofing.", title="Roof", type="event",
                     tags=["house", "roof"], project="house", source="file:///docs/roof-invoice.pdf").id
    svc.update(ALICE, a, "The roof was replaced in 2019 by Summit Roofing; warranty 25 years.", confidence=0.95)
    svc.update(ALICE, a, TRICKY, visibility="private")
    b = svc.remember(BOB, "Trailing newline matters.\n", type="note", expires_at="2030-01-01T00:00:00Z").id
    svc.forget(BOB, b)
    svc.restore(BOB, b)
    svc.forget(BOB, b)  # exported as a tombstone, with both events
    svc.remember(LOCAL_OWNER, "Owner note without a title.", type="preference")
    svc.session_save(ALICE, "chat-1", "user: hi\r\nassistant: hello ```\n")
    svc.session_save(ALICE, "chat-1", "user: hi\r\nassistant: hello ```\nuser: bye")
    yield c
    c.close()


def records(c) -> list[dict]:
    return [transfer.record_dict(r) for r in c.memory.store.all_records()]


@pytest.mark.parametrize("fmt", ["jsonl", "markdown"])
def test_export_then_import_into_an_empty_store_reproduces_everything(source, fmt, tmp_path, pg_uri, shared_models):
    dump, load = {"jsonl": (transfer.to_jsonl, transfer.from_jsonl),
                  "markdown": (transfer.to_markdown, transfer.from_markdown)}[fmt]
    text = "".join(dump(transfer.export_records(source.memory, LOCAL_OWNER)))
    original = records(source)
    assert len(original) == 4 and sum(len(r["versions"]) for r in original) == 7

    target = make_container(tmp_path, create_database(pg_uri, "xdst"), shared_models)
    try:
        report = transfer.import_records(target.memory, LOCAL_OWNER, load(text))
        assert (report.imported, report.versions, report.skipped) == (4, 7, ())
        assert records(target) == original
        # Imported memories are searchable again (import re-embeds) and keep their rules.
        hits = target.memory_reader.recall(ALICE, "who replaced the roof?").items
        assert hits and hits[0].view.current.content == TRICKY
        assert target.memory.session_load(BOB, "chat-1").content.endswith("user: bye")
        # Importing again skips what is there: never an overwrite, never a copy.
        again = transfer.import_records(target.memory, LOCAL_OWNER, load(text))
        assert again.imported == 0 and len(again.skipped) == 4
        assert records(target) == original
    finally:
        target.close()


def test_markdown_is_readable(source):
    text = "".join(transfer.to_markdown(transfer.export_records(source.memory, LOCAL_OWNER)))
    assert text.startswith("# LTM memory export")
    assert "## mem_" in text and "### Version 3" in text and '- author: "alice-app"' in text
    assert "`````text\n" + TRICKY + "\n`````" in text  # a fence longer than any inside the content


def test_bad_imports_are_refused_and_only_the_owner_moves_everything(source):
    svc = source.memory
    with pytest.raises(InvalidInput, match="line 1 is not JSON"):
        list(transfer.from_jsonl("{not json"))
    with pytest.raises(InvalidInput, match="line 2: not an LTM memory record"):
        list(transfer.from_jsonl('\n{"id": "x"}\n'))
    line = next(transfer.to_jsonl(svc.store.all_records()))
    with pytest.raises(InvalidInput, match="unknown memory type"):
        list(transfer.from_jsonl(line.replace('"type": "event"', '"type": "gossip"')))
    with pytest.raises(InvalidInput, match="not an LTM memory export"):
        list(transfer.from_markdown("# my notes\n\n- id: 1\n"))
    with pytest.raises(InvalidInput, match="local owner"):
        transfer.export_records(svc, ALICE)
    with pytest.raises(InvalidInput, match="local owner"):
        transfer.import_records(svc, ALICE, [])
