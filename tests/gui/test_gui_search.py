"""The search window on a real index: hits with title, path, page, snippet, scores and verdict; the Memory tab."""

from __future__ import annotations

import pytest
from tests.conftest import create_database, make_container
from tests.docgen import text_pdf
from PySide6.QtCore import Qt
from PySide6.QtGui import QGuiApplication

from ltm_desktop.core.models import LOCAL_OWNER, Caller
from ltm_desktop.gui.search_window import SearchWindow


@pytest.fixture(scope="module")
def indexed(container, tmp_path_factory):
    docs = tmp_path_factory.mktemp("docs")
    lease = text_pdf(
        docs / "lease_agreement.pdf",
        [
            "Residential lease between Ana Pereira and Harbour Lets Ltd. Term: twelve months from 1 May 2025.",
            "Rent and deposit. The monthly rent is 1,450 euros, due on the first day of each month. "
            "The security deposit is two months' rent, held in a protected deposit scheme.",
        ],
        title="Lease agreement — Rua das Flores 12",
    )
    (docs / "garden.md").write_text("# Garden\nThe apple tree is pruned every February.\n", encoding="utf-8")
    container.ingest.ingest_paths([docs])
    return lease


def test_a_question_shows_hits_with_page_scores_and_verdict(qtbot, container, indexed):
    w = SearchWindow(container)
    qtbot.add_widget(w)
    tab = w.documents
    tab.query.setText("how much is the monthly rent?")
    with qtbot.wait_signal(tab.results_shown, timeout=60_000) as shown:
        qtbot.mouseClick(tab.button, Qt.MouseButton.LeftButton)
    result = shown.args[0]
    assert result.hits and result.hits[0].path == str(indexed)
    card = tab.cards[0]
    assert card.hit.page_from == 2
    assert card.open_button.text() == "Open at p. 2"
    assert "1,450 euros" in card.hit.snippet
    assert result.confidence in ("high", "medium")
    assert "confidence" in tab.verdict.text() and tab.verdict.isVisibleTo(w)
    card.copy_button.click()
    copied = QGuiApplication.clipboard().text()
    assert copied.startswith("Lease agreement — Rua das Flores 12 (") and ", p. 2)" in copied and "1,450" in copied


def test_an_unanswerable_question_is_judged_low(qtbot, container, indexed):
    w = SearchWindow(container)
    qtbot.add_widget(w)
    tab = w.documents
    tab.query.setText("what is the boiling point of liquid nitrogen on Jupiter")
    with qtbot.wait_signal(tab.results_shown, timeout=60_000) as shown:
        tab.run_search()
    assert shown.args[0].confidence == "low"
    assert "Low confidence" in tab.verdict.text()


def test_an_empty_query_asks_for_one_without_searching(qtbot, container):
    w = SearchWindow(container)
    qtbot.add_widget(w)
    w.documents.query.setText("   ")
    with qtbot.assert_not_emitted(w.documents.results_shown, wait=100):
        w.documents.run_search()
    assert "Type a question" in w.documents.status.text()


def test_search_before_anything_is_indexed_says_what_to_do(qtbot, pg_uri, shared_models, tmp_path):
    empty = make_container(tmp_path / "home", create_database(pg_uri, "gui_empty"), shared_models)
    empty.write_db  # noqa: B018 (a migrated but empty store)
    try:
        w = SearchWindow(empty)
        qtbot.add_widget(w)
        w.documents.query.setText("anything")
        with qtbot.wait_signal(w.documents.search_failed, timeout=30_000) as failed:
            w.documents.run_search()
        assert "no index yet" in failed.args[0] and "watched folder" in failed.args[0]
    finally:
        empty.close()


def test_memory_tab_browses_searches_edits_forgets_and_restores(qtbot, container, indexed):
    memory = container.memory
    mine = memory.remember(LOCAL_OWNER, "The user prefers invoices filed by supplier, not by date.", type="preference").id
    other = Caller(client="claude-desktop", transport="http", is_owner=False)
    memory.remember(other, "The boiler service is due every March.", title="Boiler service", type="fact")
    w = SearchWindow(container)
    qtbot.add_widget(w)
    tab = w.memory
    assert tab is not None and w.tabs.count() == 2
    with qtbot.wait_signal(tab.listed, timeout=30_000) as listed:
        tab.show_recent()
    assert listed.args[0] == 2
    tab.query.setText("how should invoices be organised?")
    with qtbot.wait_signal(tab.listed, timeout=30_000):
        tab.refresh()
    top = tab.table.topLevelItem(0)
    assert top.data(0, Qt.ItemDataRole.UserRole) == mine
    tab.table.setCurrentItem(top)
    qtbot.wait_until(lambda: tab.current_id == mine and tab.save_button.isEnabled(), timeout=30_000)
    tab.content.setPlainText("The user prefers invoices filed by supplier, then by year.")
    with qtbot.wait_signal(tab.changed, timeout=30_000):
        tab.save()
    detail = memory.get(LOCAL_OWNER, mine)
    assert detail.record.current.content.endswith("then by year.") and len(detail.record.versions) == 2
    with qtbot.wait_signal(tab.changed, timeout=30_000):
        tab.forget()
    assert memory.get(LOCAL_OWNER, mine).status == "forgotten"
    with qtbot.wait_signal(tab.listed, timeout=30_000) as forgotten:
        tab.show_forgotten()
    assert forgotten.args[0] == 1
    tab.table.setCurrentItem(tab.table.topLevelItem(0))
    qtbot.wait_until(lambda: tab.restore_button.isEnabled(), timeout=30_000)
    with qtbot.wait_signal(tab.changed, timeout=30_000):
        tab.restore()
    assert memory.get(LOCAL_OWNER, mine).status == "active"


def test_open_at_page_uses_a_pdf_viewer_that_takes_a_page(monkeypatch, tmp_path):
    from ltm_desktop.gui.open_file import citation, viewer_command

    pdf = tmp_path / "manual.pdf"
    pdf.write_bytes(b"%PDF-1.4")
    monkeypatch.setenv("PATH", str(tmp_path / "bin"))
    assert viewer_command(str(pdf), 3) is None  # no known viewer: the desktop's default app opens it
    (tmp_path / "bin").mkdir()
    zathura = tmp_path / "bin" / "zathura"
    zathura.write_text("#!/bin/sh\n")
    zathura.chmod(0o755)
    assert viewer_command(str(pdf), 3) == [str(zathura), "-P", "3", str(pdf)]
    assert viewer_command(str(tmp_path / "notes.md"), 3) is None
    assert citation("Manual", "/d/manual.pdf", 3, 5, " the valve ") == 'Manual (/d/manual.pdf, pp. 3–5)\n"the valve"'
    assert citation("Notes", "/d/notes.md", None, None) == "Notes (/d/notes.md)"
