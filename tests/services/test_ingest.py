"""Ingestion against the real embedded Postgres, the real offline models and real tesseract."""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest

from docgen import corrupt_pdf, docx_file, encrypted_pdf, eml_file, multipage_tiff, scan_png, scanned_pdf, text_pdf
from ltm_desktop.core.models import Failed, Ingested, Repointed, SearchFilters, Skipped, Unchanged


class CountingEmbedder:
    """Delegates to the real embedder and counts the passages it was asked to embed."""

    def __init__(self, inner) -> None:
        self._inner = inner
        self.passages = 0

    @property
    def pin(self):
        return self._inner.pin

    def embed_documents(self, texts):
        self.passages += len(texts)
        return self._inner.embed_documents(texts)

    def embed_query(self, text):
        return self._inner.embed_query(text)


@pytest.fixture(scope="module")
def corpus(tmp_path_factory) -> Path:
    d = tmp_path_factory.mktemp("corpus")
    text_pdf(
        d / "Birch Lane mortgage.pdf",
        [
            "First National Bank\n\nMortgage statement for 88 Birch Lane\n\nLoan number 445-221. Principal balance $312,400.17.",
            "Escrow account summary\n\nThe escrow account pays the county property tax. The next property tax payment "
            "of $4,120 is due on November 15, 2025.",
            "Contact us\n\nCall customer service at 555-0100, Monday to Friday.",
        ],
    )
    scanned_pdf(
        d / "scan_0042.pdf",
        [
            "Roof inspection report\n\nProperty: 41 Elm Court\nInspector: Dana Whitfield\n\nGeneral condition is fair.",
            "Findings\n\nThe shingles on the north slope are cracked and must be replaced before winter.\n"
            "Estimated cost of replacement: $8,900.",
        ],
        skew=0.5,
        grey=True,
    )
    docx_file(d / "policy.docx", "Insurance policy summary", ["Policy HX-77812 covers fire and flood at 12 Oak Street.", "The deductible is $2,500 per claim."])
    eml_file(d / "plumber.eml", "tom@plumbco.example", "owner@example.com", "Water heater at 7 Pine Road", "Hi, we replaced the water heater at 7 Pine Road on June 3. Tom")
    (d / "notes").mkdir()
    (d / "notes" / "garden ideas — ünïcode 'quoted'.md").write_text("# Garden\n\nPlant tulip bulbs along the fence in October.\n", encoding="utf-8")
    (d / "notes" / "private.md").write_text("---\nrag: false\n---\nThe safe combination is 31-7-44.\n", encoding="utf-8")
    (d / "notes" / "old rules.md").write_text("---\nlifecycle: superseded\n---\nPets are forbidden in every unit under the 2019 house rules.\n", encoding="utf-8")
    (d / "notes" / "~$lock.docx").write_bytes(b"lock")
    (d / "notes" / "table.xlsx").write_bytes(b"PK\x03\x04 not really")
    return d


@pytest.fixture(scope="module")
def ingested(container, corpus):
    return container.ingest.ingest_paths([corpus])


def _write(path: Path, data: bytes) -> Path:
    path.write_bytes(data)
    return path


def _by_name(outcomes, name):
    [o] = [o for o in outcomes if Path(o.path).name == name]
    return o


def test_every_format_is_ingested_and_bad_ones_are_recorded(ingested, container):
    names = {Path(o.path).name: type(o).__name__ for o in ingested}
    assert names["Birch Lane mortgage.pdf"] == "Ingested"
    assert names["scan_0042.pdf"] == "Ingested"
    assert names["policy.docx"] == names["plumber.eml"] == "Ingested"
    assert names["garden ideas — ünïcode 'quoted'.md"] == "Ingested"
    assert names["private.md"] == "Skipped"
    assert names["table.xlsx"] == "Skipped"
    assert "~$lock.docx" not in names  # lock files are not even listed
    issues = {Path(i.path).name: i.reason for i in container.search_index.issues(50)}
    assert "rag: false" in issues["private.md"]
    assert "unsupported file type .xlsx" in issues["table.xlsx"]


def test_scanned_pdf_is_ocrd_per_page(ingested, container):
    scan = _by_name(ingested, "scan_0042.pdf")
    assert isinstance(scan, Ingested) and scan.ocr_pages == 2
    text = container.documents.read(str(scan.doc_id), pages="2").text
    assert "shingles" in text.lower() and "8,900" in text


def test_born_digital_pdf_found_by_a_natural_question_on_the_right_page(ingested, container):
    result = container.search.search("when is the property tax payment due on Birch Lane?", k=3)
    top = result.hits[0]
    assert Path(top.path).name == "Birch Lane mortgage.pdf"
    assert (top.page_from, top.page_to) == (2, 2)
    assert result.confidence == "high"


def test_scanned_pdf_found_by_a_natural_question_on_the_right_page(ingested, container):
    result = container.search.search("what needs fixing on the roof at Elm Court and how much will it cost?", k=3)
    top = result.hits[0]
    assert Path(top.path).name == "scan_0042.pdf"
    assert top.page_from == 2
    assert result.confidence in ("high", "medium")


def test_email_and_docx_are_searchable_with_metadata(ingested, container):
    hit = container.search.search("who replaced the water heater", k=1).hits[0]
    assert hit.doc_type == "email" and hit.page_from is None
    info = container.documents.resolve("plumber.eml")
    assert info.metadata["from"] == "tom@plumbco.example" and "Water heater" in info.metadata["subject"]
    assert container.search.search("insurance deductible per claim", k=1).hits[0].path.endswith("policy.docx")


def test_frontmatter_rules(ingested, container):
    superseded = container.search.search("are pets allowed under the house rules", k=8)
    assert all("old rules" not in h.path for h in superseded.hits)  # kept, but hidden from search
    assert container.documents.resolve("old rules.md").lifecycle == "superseded"
    secret = container.search.search("safe combination", k=8)
    assert all("private.md" not in h.path for h in secret.hits)


def test_unchanged_file_costs_nothing(ingested, container, corpus):
    counting = CountingEmbedder(container.embedder)
    service = type(container.ingest)(container.document_store, counting, container.extractor)
    again = service.ingest_paths([corpus])
    assert counting.passages == 0
    assert sum(isinstance(o, Unchanged) for o in again) == sum(isinstance(o, Ingested) for o in ingested)


def test_rename_copy_and_touch_cost_no_reembedding(ingested, container, corpus, tmp_path):
    counting = CountingEmbedder(container.embedder)
    service = type(container.ingest)(container.document_store, counting, container.extractor)
    src = corpus / "policy.docx"
    before = container.documents.resolve(str(src))
    moved = corpus / "renamed policy.docx"
    os.rename(src, moved)
    outcome = service.ingest_file(moved, corpus)
    assert isinstance(outcome, Repointed) and outcome.from_path == str(src) and outcome.doc_id == before.doc_id
    copy = tmp_path / "copy of policy.docx"
    shutil.copy2(moved, copy)
    copied = service.ingest_file(copy, tmp_path)
    assert isinstance(copied, Repointed) and copied.from_path is None
    os.utime(moved, (1_600_000_000, 1_600_000_000))
    assert isinstance(service.ingest_file(moved, corpus), Unchanged)
    assert counting.passages == 0
    hit = container.search.search("insurance deductible per claim", k=1).hits[0]
    assert {hit.path, *hit.also_at} == {str(moved), str(copy)}
    os.rename(moved, src)
    service.ingest_file(src, corpus)


def test_modified_file_is_reembedded_and_old_text_disappears(container, tmp_path):
    f = tmp_path / "memo.md"
    f.write_text("The boiler service is booked for Tuesday.\n")
    first = container.ingest.ingest_file(f, tmp_path)
    f.write_text("The boiler service moved to Friday afternoon.\n")
    second = container.ingest.ingest_file(f, tmp_path)
    assert isinstance(second, Ingested) and second.doc_id == first.doc_id
    text = container.documents.read(str(f)).text
    assert "Friday" in text and "Tuesday" not in text


def test_failed_update_keeps_the_previous_version_searchable(container, tmp_path):
    f = tmp_path / "statement.pdf"
    text_pdf(f, ["Account statement\n\nThe closing balance of the operating account is $18,230.55."])
    good = container.ingest.ingest_file(f, tmp_path)
    corrupt_pdf(f)
    bad = container.ingest.ingest_file(f, tmp_path)
    assert isinstance(bad, Failed) and "corrupt" in bad.reason
    hit = container.search.search("closing balance of the operating account", k=1).hits[0]
    assert hit.doc_id == good.doc_id and "18,230.55" in hit.snippet


@pytest.mark.parametrize(
    "make, expect",
    [
        (lambda p: corrupt_pdf(p / "broken.pdf"), "corrupt"),
        (lambda p: encrypted_pdf(p / "locked.pdf", "secret rent roll"), "password-protected"),
        (lambda p: _write(p / "empty.pdf", b""), "empty file"),
        (lambda p: _write(p / "bad.docx", b"not a zip"), "not a readable .docx"),
        (lambda p: _write(p / "binary.txt", b"\x00\x01\x02" * 10), "binary"),
        (lambda p: _write(p / "not-mail.eml", b"\n\n"), "not an e-mail"),
    ],
)
def test_bad_files_fail_with_a_clear_recorded_reason(container, tmp_path, make, expect):
    path = make(tmp_path)
    outcome = container.ingest.ingest_file(path, tmp_path)
    assert isinstance(outcome, Failed) and expect in outcome.reason
    issues = {i.path: i.reason for i in container.search_index.issues(500)}
    assert expect in issues[str(path)]


def test_huge_file_is_skipped_by_the_size_cap(container, tmp_path):
    from ltm_desktop.services.ingest import IngestLimits, IngestService

    capped = IngestService(container.document_store, container.embedder, container.extractor, limits=IngestLimits(max_file_bytes=1024))
    big = tmp_path / "big.txt"
    big.write_text("rent " * 1000)
    outcome = capped.ingest_file(big, tmp_path)
    assert isinstance(outcome, Skipped) and "MiB limit" in outcome.reason


def test_symlink_outside_the_root_is_not_followed(container, tmp_path):
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "secret.md").write_text("Outside secret text about the vault.\n")
    root = tmp_path / "root"
    root.mkdir()
    (root / "link.md").symlink_to(outside / "secret.md")
    (root / "loop").symlink_to(root, target_is_directory=True)  # a loop must not hang the walk
    (root / "a.md").symlink_to(root / "b.md")
    (root / "b.md").symlink_to(root / "a.md")  # a file-level loop
    outcomes = {Path(o.path).name: o for o in container.ingest.ingest_paths([root])}
    assert isinstance(outcomes["link.md"], Skipped) and "outside" in outcomes["link.md"].reason
    assert isinstance(outcomes["a.md"], Skipped) and "symlink loop" in outcomes["a.md"].reason


def test_file_that_vanishes_before_reading_is_recorded(container, tmp_path):
    ghost = tmp_path / "ghost.pdf"
    outcome = container.ingest.ingest_file(ghost, tmp_path)
    assert isinstance(outcome, Failed) and "vanished" in outcome.reason


@pytest.mark.skipif(os.geteuid() == 0, reason="root reads files whatever their mode")
def test_unreadable_file_is_recorded(container, tmp_path):
    f = tmp_path / "locked.md"
    f.write_text("text")
    f.chmod(0)
    outcome = container.ingest.ingest_file(f, tmp_path)
    assert isinstance(outcome, Failed) and "cannot read" in outcome.reason


def test_images_and_multipage_tiff_are_ocrd(container, tmp_path):
    scan_png(tmp_path / "receipt.png", "Hardware store receipt\n\nGalvanized nails and a ladder, total $212.40")
    multipage_tiff(tmp_path / "fax.tiff", ["Fax cover sheet\n\nTo: property owner", "Notice of water shutoff on Maple Avenue on July 9."])
    outcomes = container.ingest.ingest_paths([tmp_path])
    assert all(isinstance(o, Ingested) for o in outcomes)
    hit = container.search.search("when will the water be shut off on Maple Avenue", k=1).hits[0]
    assert hit.path.endswith("fax.tiff") and hit.page_from == 2


def test_parallel_extraction_gives_the_same_result(container, tmp_path, shared_models):
    from ltm_desktop.services.ingest import IngestLimits, IngestService

    for i in range(4):
        text_pdf(tmp_path / f"invoice_{i}.pdf", [f"Invoice {i}\n\nGutter cleaning at unit {i}, amount due ${100 + i}.00"])
    scanned_pdf(tmp_path / "scan.pdf", ["Invoice 99\n\nSnow removal for the parking lot, amount due $640.00"])
    service = IngestService(container.document_store, container.embedder, container.extractor, limits=IngestLimits(workers=2))
    outcomes = service.ingest_paths([tmp_path])
    assert sorted(type(o).__name__ for o in outcomes) == ["Ingested"] * 5
    hit = container.search.search("snow removal parking lot invoice", k=1, filters=SearchFilters(path_contains=str(tmp_path))).hits[0]
    assert hit.path.endswith("scan.pdf")


def test_garbled_text_layer_goes_to_ocr_and_blank_scan_is_a_warning(container, tmp_path):
    import pymupdf

    from docgen import _page_image

    doc = pymupdf.open()
    page = doc.new_page(width=612, height=792)
    page.insert_image(page.rect, stream=_page_image("Notice of rent increase\n\nRent rises to $2,600 on July 1."))
    page.insert_text((72, 760), "%$#@ ~~ ||| ;; 0101 ^^ ** ## @@ !! ++ %%", fontsize=6)  # a broken text layer
    doc.save(tmp_path / "garbled.pdf")
    doc.close()
    scanned_pdf(tmp_path / "blank.pdf", [""])
    garbled = container.ingest.ingest_file(tmp_path / "garbled.pdf", tmp_path)
    assert isinstance(garbled, Ingested) and garbled.ocr_pages == 1
    assert "2,600" in container.documents.read(str(garbled.doc_id)).text
    blank = container.ingest.ingest_file(tmp_path / "blank.pdf", tmp_path)
    assert isinstance(blank, Ingested) and blank.chunks == 0
    issues = {i.path: (i.kind, i.reason) for i in container.search_index.issues(500)}
    assert issues[str(tmp_path / "blank.pdf")][0] == "warning" and "no readable text" in issues[str(tmp_path / "blank.pdf")][1]


def test_a_deleted_file_that_comes_back_is_revived_without_rereading(container, tmp_path):
    f = tmp_path / "deposit.md"
    f.write_text("The security deposit for unit 4B is $1,800.\n")
    first = container.ingest.ingest_file(f, tmp_path)
    assert container.watch_store.tombstone(str(f)) == 1  # what the worker does when the file is deleted
    assert all(h.doc_id != first.doc_id for h in container.search.search("security deposit unit 4B", k=5).hits)

    class NoReading:
        def supports(self, path):
            return True

        def extract(self, path):
            raise AssertionError("known content must not be read again")

    service = type(container.ingest)(container.document_store, container.embedder, NoReading())
    back = service.ingest_file(f, tmp_path)
    assert isinstance(back, Repointed) and back.doc_id == first.doc_id
    assert container.search.search("security deposit unit 4B", k=1).hits[0].doc_id == first.doc_id
