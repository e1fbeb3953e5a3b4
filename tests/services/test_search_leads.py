"""The reranker reads each passage after its document's opening: later pages keep the who and where of page 1."""

from __future__ import annotations

import dataclasses

import pytest

from docgen import text_pdf
from ltm_desktop.core.models import SearchFilters
from ltm_desktop.services.search import SearchService

RIDER = (
    "Parking rider\n\nTenant is assigned one off-street parking space in the rear lot, space number {space}, "
    "at ${fee}.00 per month added to the rent. Vehicles must be registered and insured; no repairs, boats or "
    "trailers in the lot. Snow: move the car to the street side during plowing."
)


def lease(path, tenant: str, address: str, space: int, fee: int):
    first = (
        f"Residential lease\n\nThis lease is made between Harborview Property Management LLC (Landlord) and "
        f"{tenant} (Tenant) for the apartment at {address}. The term is twelve months. Rent is due on the "
        "first day of each month; a late charge applies after the fifth day."
    )
    return text_pdf(path, [first, RIDER.format(space=space, fee=fee)])


@pytest.fixture(scope="module")
def leases(container, tmp_path_factory):
    d = tmp_path_factory.mktemp("leases")
    lease(d / "lease-unit-2.pdf", "Lena Ricci", "221 Maple Avenue, Apartment 2", 3, 40)
    lease(d / "lease-unit-4.pdf", "Darnell Nguyen", "221 Maple Avenue, Apartment 4", 7, 55)
    outcomes = container.ingest.ingest_paths([d])
    assert all(type(o).__name__ == "Ingested" for o in outcomes), outcomes
    return d


def test_leads_are_the_documents_opening_for_later_chunks_only(leases, container):
    index = container.search_index
    r = container.search.search("parking space rear lot monthly fee", k=4, rerank=False)
    riders = [h.chunk_id for h in r.hits if h.page_from == 2]
    openings = [h.chunk_id for h in r.hits if h.page_from == 1]
    assert riders and openings
    leads = index.leads(riders + openings, 60)
    assert set(leads) == set(riders)  # an opening chunk needs no lead: it is the lead
    assert all(v.startswith("Residential lease") and len(v) <= 60 for v in leads.values())


def test_a_rider_that_never_names_the_tenant_is_found_through_its_lease(leases, container):
    for tenant, pdf, fee in (("Lena", "lease-unit-2.pdf", "$40.00"), ("Darnell", "lease-unit-4.pdf", "$55.00")):
        r = container.search.search(f"where does {tenant} park and what does the space cost?", k=3)
        top = r.hits[0]
        assert top.path.endswith(pdf) and top.page_from == 2 and fee in top.snippet, (tenant, r.hits)


def test_without_leads_the_reranker_cannot_tell_the_riders_apart(leases, container):
    # The same search with leads turned off: both riders are the same text but for the space and fee, so
    # the reranker's best passage can be either lease; with leads, the named tenant decides (test above).
    plain = SearchService(container.search_index, container.embedder, container.reranker,
                          dataclasses.replace(container.search.tuning, lead_chars=0))
    scores = {}
    for tenant in ("Lena", "Darnell"):
        r = plain.search(f"where does {tenant} park and what does the space cost?", k=4, filters=SearchFilters())
        riders = {h.path.rsplit("/", 1)[-1]: h.rerank_score for h in r.hits if h.page_from == 2}
        scores[tenant] = riders
    # Unnamed riders score nearly alike for either tenant: the difference the lead makes is what picks the lease.
    for riders in scores.values():
        assert len(riders) == 2 and abs(riders["lease-unit-2.pdf"] - riders["lease-unit-4.pdf"]) < 1.5, scores
