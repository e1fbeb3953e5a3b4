"""Fixtures for the MCP server tests: a generated corpus indexed once per module, and MCP clients."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests import docgen
from tests.conftest import create_database, make_container

# Facts placed on known pages, so a test can check the right document AND the right page come back.
LEASE_PAGES = [
    (
        "Residential Lease Agreement between Harbor Street Properties LLC (Landlord) and Mina Okafor (Tenant). "
        "The premises are apartment 4B at 118 Harbor Street."
    ),
    (
        "Rent and deposits. The monthly rent is $2,450, due on the first day of each month. "
        "A late fee of $75 applies after the fifth day."
    ),
    (
        "Pets. The tenant may keep one cat. The pet deposit is $400 and is refundable at move-out "
        "if the apartment shows no pet damage."
    ),
]
INSPECTION_PAGES = [
    "Home inspection report for 27 Quarry Lane prepared by Northfield Inspections.",
    (
        "Roof. The asphalt shingles are about eighteen years old; the inspector recommends replacement "
        "within two years. Flashing around the chimney is loose."
    ),
    (
        "Basement. Efflorescence on the north foundation wall suggests past water intrusion; "
        "a dehumidifier is advised."
    ),
    "Electrical. The panel is a 200 amp Square D unit with no double-tapped breakers.",
]


def _write_corpus(root: Path) -> Path:
    root.mkdir(parents=True, exist_ok=True)
    docgen.text_pdf(root / "harbor-lease-2024.pdf", LEASE_PAGES, title="Harbor Street Lease 2024")
    docgen.text_pdf(root / "quarry-lane-inspection.pdf", INSPECTION_PAGES, title="Quarry Lane Inspection")
    notes = root / "notes"
    notes.mkdir(exist_ok=True)
    (notes / "garden-plan.md").write_text(
        "# Garden plan\n\nPlant the tomatoes in late May after the last frost. "
        "The raised bed by the fence gets six hours of sun.\n",
        encoding="utf-8",
    )
    # Several near-identical names so a path fragment can be ambiguous.
    for year in (2021, 2022, 2023):
        (notes / f"budget-{year}.md").write_text(
            f"# Budget {year}\n\nGroceries {year}: about {300 + year % 10} dollars a month.\n", encoding="utf-8"
        )
    long_text = "\n\n".join(f"Paragraph {i}: the quick survey of ledger entries number {i}." for i in range(400))
    (notes / "ledger-long.txt").write_text(long_text, encoding="utf-8")
    docgen.eml_file(
        root / "plumber.eml", "joe@plumbing.example", "me@example.com", "Water heater quote",
        "Hi, the quote to replace the 50 gallon water heater is $1,380 installed. Joe",
    )
    return root


# The corpus has ~40 chunks; reranking 16 of them keeps the real path while the suite stays fast on 2 cores.
RERANK_CANDIDATES = 16


@pytest.fixture(scope="session")
def corpus(tmp_path_factory) -> Path:
    return _write_corpus(tmp_path_factory.mktemp("corpus"))


@pytest.fixture(scope="session")
def mcp_db(pg_uri) -> str:
    """One database for the MCP tests, indexed once (ingesting is the slow part)."""
    return create_database(pg_uri, "mcp")


@pytest.fixture(scope="session")
def indexed(tmp_path_factory, mcp_db, shared_models, corpus):
    """A container with the corpus ingested (real extraction, real embeddings). Tests add only uniquely named
    tokens and journal rows to it, never documents."""
    c = make_container(tmp_path_factory.mktemp("home"), mcp_db, shared_models, ingest_workers=1,
                       rerank_candidates=RERANK_CANDIDATES)
    outcomes = c.ingest.ingest_paths([corpus])
    failed = [o for o in outcomes if type(o).__name__ == "Failed"]
    assert not failed, failed
    yield c
    c.close()


@pytest.fixture
def anyio_backend():
    return "asyncio"


@pytest.fixture(scope="module")
def fresh_container(tmp_path_factory, pg_uri, shared_models):
    """A container whose database exists but holds nothing (no schema): the 'no index yet' state."""
    c = make_container(tmp_path_factory.mktemp("empty-home"), create_database(pg_uri, "empty"), shared_models)
    yield c
    c.close()
