"""The drop window against the real ingest pipeline and database: dropped files get indexed, bad ones say why."""

from __future__ import annotations

import os

import pytest
from tests.docgen import text_pdf
from PySide6.QtCore import QMimeData, QPointF, Qt, QUrl
from PySide6.QtGui import QDropEvent

from ltm_desktop.core.models import Failed, Ingested, Skipped
from ltm_desktop.gui.drop_window import DropWindow
from ltm_desktop.gui.tasks import serial_pool


@pytest.fixture
def window(qtbot, container):
    w = DropWindow(container, None, serial_pool())
    qtbot.add_widget(w)
    return w


def test_dropped_files_are_ingested_with_per_file_results(qtbot, window, container, tmp_path):
    folder = tmp_path / "drop"
    folder.mkdir()
    pdf = text_pdf(folder / "boiler_manual.pdf", ["The boiler pressure should stay between 1.0 and 1.5 bar.", "Bleed the radiators yearly."])
    note = folder / "notes.md"
    note.write_text("# Heating\nThe boiler was serviced in March by Acme Heating.\n", encoding="utf-8")
    odd = folder / "photo.xyz"
    odd.write_bytes(b"\x00\x01 not a document")

    # a real drop event, as the window system delivers it
    mime = QMimeData()
    mime.setUrls([QUrl.fromLocalFile(str(p)) for p in (pdf, note, odd)])
    event = QDropEvent(QPointF(10, 10), Qt.DropAction.CopyAction, mime, Qt.MouseButton.LeftButton, Qt.KeyboardModifier.NoModifier)
    with qtbot.wait_signal(window.batch_finished, timeout=120_000) as finished:
        window.drop_area.dropEvent(event)
    outcomes = {os.path.basename(o.path): o for o in finished.args[0]}
    assert isinstance(outcomes["boiler_manual.pdf"], Ingested) and outcomes["boiler_manual.pdf"].pages == 2
    assert isinstance(outcomes["notes.md"], Ingested)
    assert isinstance(outcomes["photo.xyz"], Skipped)
    rows = window.outcome_rows()
    assert rows[str(pdf)][0] == "ingested" and "2 pages" in rows[str(pdf)][1]
    assert rows[str(odd)] == ("skipped", "unsupported file type .xyz")
    assert "2 ingested" in window.summary.text() and "1 skipped" in window.summary.text()
    # really in the index: the search service finds the dropped content
    hits = container.search.search("boiler pressure bar", k=3).hits
    assert hits and hits[0].path == str(pdf)

    # dropping the same files again: nothing is re-read
    with qtbot.wait_signal(window.batch_finished, timeout=60_000) as again:
        window.add_paths([pdf, note])
    assert [window.outcome_rows()[str(p)][0] for p in (pdf, note)] == ["unchanged", "unchanged"]
    assert len(again.args[0]) == 2


def test_a_file_that_vanished_before_ingestion_is_reported(qtbot, window, tmp_path):
    gone = tmp_path / "scan_0001.pdf"
    text_pdf(gone, ["A scanner's half-finished page."])
    gone.unlink()  # deleted between the drop and its handling
    window.add_paths([gone])
    assert window.outcome_rows()[str(gone)][0] == "failed"
    assert "no longer exists" in window.outcome_rows()[str(gone)][1]


def test_a_folder_is_walked_and_empty_or_broken_files_fail_with_a_reason(qtbot, window, tmp_path):
    folder = tmp_path / "mixed"
    (folder / "sub").mkdir(parents=True)
    (folder / "sub" / "minutes.txt").write_text("Minutes of the residents' meeting: the roof repair was approved.", encoding="utf-8")
    (folder / "empty.txt").write_text("", encoding="utf-8")
    (folder / "~$lock.docx").write_text("lock", encoding="utf-8")  # office lock file: passed over silently
    with qtbot.wait_signal(window.batch_finished, timeout=60_000) as finished:
        window.add_paths([folder])
    outcomes = finished.args[0]
    by_name = {os.path.basename(o.path): o for o in outcomes}
    assert set(by_name) == {"minutes.txt", "empty.txt"}
    assert isinstance(by_name["minutes.txt"], Ingested)
    assert isinstance(by_name["empty.txt"], Failed) and "empty file" in by_name["empty.txt"].reason
    assert window.outcome_rows()[str(folder / "empty.txt")][0] == "failed"


def test_a_huge_folder_offers_watching_instead(qtbot, container, tmp_path, monkeypatch):
    import ltm_desktop.gui.drop_window as drop_window

    monkeypatch.setattr(drop_window, "LARGE_BATCH_FILES", 3)
    watched = []
    w = DropWindow(container, lambda path: watched.append(path), serial_pool())
    qtbot.add_widget(w)
    big = tmp_path / "archive"
    big.mkdir()
    for i in range(5):
        (big / f"letter_{i}.txt").write_text(f"Letter number {i} about the garden fence.", encoding="utf-8")
    asked = []
    w.ask_large_batch = lambda n: asked.append(n) or "watch"
    with qtbot.wait_signal(w.folder_watched, timeout=30_000):
        w.add_paths([big])
    assert asked == [5]
    assert watched == [str(big)]
    assert w.outcome_rows()[str(big)][0] == "watching"


def test_drag_enter_accepts_only_local_files(qtbot, window):
    from ltm_desktop.gui.drop_window import local_paths

    urls = [QUrl("https://example.com/a.pdf"), QUrl.fromLocalFile("/tmp/a.pdf")]
    assert [str(p) for p in local_paths(urls)] == ["/tmp/a.pdf"]
    assert local_paths([QUrl("https://example.com/")]) == []
