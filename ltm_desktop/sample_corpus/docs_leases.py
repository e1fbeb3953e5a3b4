"""Leases with their riders, the store-front lease, renewals and the rent roll."""

from __future__ import annotations

from datetime import date

from ltm_desktop.sample_corpus.model import Question, SampleDoc, ask
from ltm_desktop.sample_corpus.world import Unit, World, long_date, money

UTILITIES = {
    "oak": "Landlord pays water, sewer and trash removal. Tenant pays electricity and the heating oil for the "
           "unit's own furnace; the oil tank gauge is read at move-in and move-out.",
    "maple": "Heat and hot water come from the building's central gas boiler and are paid by Landlord, as are water "
             "and sewer. Tenant pays the unit's electricity and internet.",
    "birch": "Tenant pays all utilities and services: electricity, natural gas, water and sewer, internet, lawn "
             "mowing in summer and snow shovelling of the walks.",
    "cedar": "The condominium association fee paid by Landlord covers water, sewer, trash and snow removal. Tenant "
             "pays electricity, which also runs the heat pumps.",
    "forest": "Landlord pays water and sewer. Each apartment has its own electric meter and electric baseboard "
              "heat, paid by Tenant.",
}


def _lease_id(u: Unit) -> str:
    return f"lease-{u.key}"


def residential_lease(w: World, u: Unit, fmt: str) -> SampleDoc:
    rng = w.rng
    t, p = u.tenant, u.prop
    deposit = u.rent if rng.random() < 0.6 else u.rent * 1.5
    grace = rng.choice((5, 7, 10))
    late_fee = rng.choice((50.0, 75.0, 100.0))
    w.extras[f"late_fee:{u.key}"] = late_fee
    notice = rng.choice((30, 60))
    signed = date(u.lease_start.year if u.lease_start.month > 1 else u.lease_start.year - 1,
                  u.lease_start.month - 1 if u.lease_start.month > 1 else 12, rng.randrange(8, 26))
    occupants = t.household + (", and their son, age 7" if u.bedrooms == 3 and rng.random() < 0.5 else "")
    beds = f"{u.bedrooms}-bedroom" if u.bedrooms else "studio"
    blocks = [
        "# RESIDENTIAL LEASE AGREEMENT",
        f'This Residential Lease Agreement ("Lease") is made on {long_date(signed)} between {w.company}, '
        f'{w.office} ("Landlord"), and {t.household} ("Tenant").',
        "## 1. Premises",
        f'Landlord leases to Tenant the {beds} dwelling at {u.address}, {p.city}, Maine {p.zip_code} (the '
        f'"Premises"), part of a {p.kind} built in {p.year_built}, together with the appliances listed in the '
        "move-in inspection report.",
        "## 2. Term",
        f"The term begins on {long_date(u.lease_start)} and ends on {long_date(u.lease_end)}. If Tenant stays after "
        "the end date with Landlord's written consent, the tenancy continues month to month on the same terms.",
        "## 3. Rent",
        f"Tenant shall pay rent of {money(u.rent)} per month, in advance, on or before the first day of each month, "
        f"by electronic transfer to Landlord's operating account at {w.bank} or by check delivered to the office.",
        "## 4. Late Charge",
        f"Rent not received by the {grace}th day of the month incurs a late charge of {money(late_fee)}. A returned "
        "check or reversed transfer costs $35.00 in addition to any late charge.",
        "## 5. Security Deposit",
        f"Tenant has paid a security deposit of {money(deposit)}, held in a separate escrow account at {w.bank} "
        f"(account ending {w.deposit_account_last4}). Landlord returns it within 30 days after the tenancy ends, less "
        "itemized deductions for unpaid rent and for damage beyond normal wear and tear.",
        "## 6. Utilities",
        UTILITIES[p.key],
        "## 7. Maintenance and Repairs",
        "Tenant shall keep the Premises clean and safe and report needed repairs promptly by e-mail to "
        "repairs@harborviewpm.com. For emergencies such as no heat, flooding or a smell of gas, call the 24-hour "
        "line at (207) 555-0100. Tenant pays for damage caused by Tenant or guests.",
        "## 8. Entry by Landlord",
        "Landlord may enter the Premises with 24 hours' notice for inspections, repairs or showings, and at any "
        "time in an emergency.",
        "## 9. Occupants",
        f"Only the following people may live at the Premises: {occupants}. Guests may stay no more than 14 nights "
        "in any six-month period without Landlord's written consent.",
        "## 10. Smoking",
        "Smoking or vaping of any substance is prohibited inside the building and within 20 feet of any entrance.",
        "## 11. Renewal and Notice",
        f"Either party who does not wish to renew shall give the other at least {notice} days' written notice "
        "before the end of the term.",
        f"Landlord: {w.owner}, Managing Member, {w.company}        Tenant: {t.household}",
    ]
    first, street = t.name.split()[0], p.street.split(" ", 1)[1]
    questions = [
        ("rent", rng.choice((f"How much is {t.name}'s monthly rent at {p.street}?",
                             f"what does {first} {t.last} pay per month for the place on {street}",
                             f"rent for the {t.last} apartment on {street}?"))),
        ("end", rng.choice((f"when does the lease for {u.address} run out",
                            f"until what date is {t.name} locked into the lease?",
                            f"when is the {t.last} lease up for renewal"))),
        ("deposit", rng.choice((f"What security deposit did {first} {t.last} put down?",
                                f"how much deposit are we holding for {t.household}?",
                                f"what did the {t.last}s pay as a damage deposit when they moved in"))),
        ("late", rng.choice((f"what happens if the {t.last}s pay rent late, how much is the fee and after how many days?",
                             f"late fee in {first} {t.last}'s lease?",
                             f"how many days' grace does {t.name} get before a late charge"))),
    ]
    rng.shuffle(questions)
    picked = []
    for kind, text in questions[:2]:
        if kind in ("rent", "end"):
            # The rent roll (and any renewal) state these too: judged with them in lease_documents.
            w.extras.setdefault("roll_questions", []).append((_lease_id(u), text))
        else:
            picked.append(text)
    breaks = [len(blocks)]
    if u.pet:
        kind, what = u.pet
        pet_deposit = rng.choice((250.0, 300.0, 400.0))
        pet_rent = rng.choice((25.0, 35.0, 50.0))
        blocks += [
            "# PET RIDER",
            f"This rider is part of the Lease for {u.address}. Landlord permits Tenant to keep {what} ({kind}) at the "
            "Premises. No other animals may be kept without written consent.",
            f"Tenant pays a refundable pet deposit of {money(pet_deposit)} and pet rent of {money(pet_rent)} per month "
            "with the rent. Tenant is liable for all damage caused by the pet, shall keep it leashed in common areas "
            "and shall pick up after it immediately.",
        ]
        picked.append(rng.choice((f"Is {t.name} allowed an animal, and what does the pet cost them each month?",
                                  f"what pet does the {t.last} household have and what's the pet rent?")))
    if u.parking_space:
        fee = w.rng.choice((40.0, 50.0, 65.0))
        blocks += [
            "# PARKING RIDER",
            f"Tenant is assigned off-street parking {u.parking_space} in the lot behind {p.street} for one registered "
            f"passenger vehicle, for {money(fee)} per month. During a declared snow emergency, Tenant shall move the "
            "vehicle to the street side of the lot by 10 p.m. so the lot can be plowed.",
        ]
        picked.append(rng.choice((f"which parking spot goes with {u.label.lower()} at {p.street}, and what does it cost?",
                                  f"where does {first} park and do they pay for it?")))
    if p.year_built < 1978:
        blocks += [
            "# LEAD-BASED PAINT DISCLOSURE",
            f"Housing built before 1978 may contain lead-based paint. Landlord has no knowledge of lead-based paint "
            f"hazards at {u.address} and has no reports on it. Tenant has received the pamphlet Protect Your Family "
            "From Lead in Your Home.",
        ]
    return ask(
        SampleDoc(_lease_id(u), fmt, "leases", f"Lease_{u.key.replace('-', '_')}_{u.lease_start.year}",
                  f"Lease - {u.address}", blocks, page_breaks=tuple(breaks)),
        *picked,
    )


def store_lease(w: World, u: Unit) -> SampleDoc:
    p = u.prop
    cam = 425.0
    blocks = [
        "# COMMERCIAL LEASE",
        f"Landlord: {w.company}. Tenant: Crumb & Crust Bakery LLC, doing business as Crumb & Crust, "
        f"represented by its owner {u.tenant.name}.",
        "## Premises and Permitted Use",
        f"The ground-floor store of {p.full_address}, about 1,450 square feet with the rear kitchen. The premises may "
        "be used only as a retail bakery and cafe with seating for up to 24 customers, and for no other purpose "
        "without Landlord's written consent. Hours open to the public may not run past 9 p.m.",
        "## Term and Options",
        f"The initial term is three years, from {long_date(u.lease_start)} to {long_date(u.lease_end)}. Tenant has two "
        "options to extend for three years each, by written notice at least 180 days before the term ends; base "
        "rent rises 3 percent at the start of each option term.",
        "## Rent and Common Area Charges",
        f"Base rent is {money(u.rent)} per month. Tenant also pays a share of common area maintenance, real estate "
        f"taxes and building insurance, estimated at {money(cam)} per month and reconciled each January.",
        "## Insurance",
        "Tenant shall carry commercial general liability insurance of at least $1,000,000 per occurrence and "
        "$2,000,000 aggregate, naming Landlord as additional insured, and insurance on its own equipment.",
        "## Signs and Alterations",
        "Tenant may install one sign on the front facade, of a design approved in writing by Landlord. Kitchen "
        "exhaust, grease trap and any other alterations need Landlord's prior written approval and the city's permits.",
        "## Personal Guaranty",
        f"{u.tenant.name} personally guarantees Tenant's obligations for the first 24 months of the term.",
    ]
    return ask(
        SampleDoc(_lease_id(u), "pdf", "leases", "Commercial_Lease_Crumb_and_Crust_1300_Forest",
                  "Commercial Lease - Crumb & Crust Bakery", blocks),
        "what is the bakery allowed to use the storefront for?",
        "can the bakery extend its lease and for how long",
        "How much liability insurance does the bakery tenant have to carry?",
    )


def renewal(w: World, u: Unit, raise_pct: float) -> tuple[SampleDoc, Question]:
    new_rent = round(u.rent * (1 + raise_pct) / 5) * 5
    new_start = date(u.lease_end.year, u.lease_end.month, u.lease_end.day).toordinal() + 1
    start = date.fromordinal(new_start)
    end = date(start.year + 1, start.month, 1).toordinal() - 1
    blocks = [
        "# Lease Renewal Addendum",
        f"Landlord {w.company} and Tenant {u.tenant.household} agree to renew the Lease for {u.address}, "
        f"{u.prop.city}, dated for the term ending {long_date(u.lease_end)}.",
        f"The renewal term runs from {long_date(start)} to {long_date(date.fromordinal(end))}.",
        f"Beginning {long_date(start)}, monthly rent is {money(new_rent)}, up from {money(u.rent)}. All other terms "
        "of the Lease, including any riders, stay in force. The security deposit already held carries over.",
        f"Signed: {w.owner} for Landlord; {u.tenant.household}, Tenant.",
    ]
    doc = SampleDoc(f"renewal-{u.key}", "docx", "leases", f"Renewal_Addendum_{u.key.replace('-', '_')}",
                    f"Lease Renewal - {u.address}", blocks)
    q = Question(f"what will {u.tenant.name}'s rent be after the lease renewal?", {doc.doc_id: 2, _lease_id(u): 1})
    return doc, q


def rent_roll(w: World) -> SampleDoc:
    lines = ["| Property | Unit | Tenant | Rent | Lease ends |", "|---|---|---|---|---|"]
    for u in w.units:
        lines.append(
            f"| {u.prop.street} | {u.label or 'house'} | {u.tenant.household} | {money(u.rent)} | {long_date(u.lease_end)} |"
        )
    total = sum(u.rent for u in w.units)
    blocks = [
        "# Rent roll, mid 2024",
        "Kept for the bank and the accountant. Rents are the contract rents before pet and parking fees.",
        "\n".join(lines),
        f"Scheduled monthly rent across all {len(w.units)} units: {money(total)}. Vacancy: none as of this update.",
    ]
    return SampleDoc("rent-roll", "md", "notes", "rent_roll_2024", "Rent roll, mid 2024", blocks)


def lease_documents(w: World) -> tuple[list[SampleDoc], list[Question]]:
    docs: list[SampleDoc] = []
    questions: list[Question] = []
    scanned = {"oak-b", "maple-2"}
    docx_units = {"cedar"}
    for u in w.units:
        if u.commercial:
            docs.append(store_lease(w, u))
            continue
        fmt = "scan" if u.key in scanned else "docx" if u.key in docx_units else "pdf"
        docs.append(residential_lease(w, u, fmt))
    roll = rent_roll(w)
    docs.append(roll)
    renewals = {}
    for key, pct in (("oak-a", 0.04), ("maple-3", 0.05)):
        doc, q = renewal(w, w.unit(key), pct)
        renewals[_lease_id(w.unit(key))] = doc.doc_id
        docs.append(doc)
        questions.append(q)
    # The rent roll (and a renewal) also state rents and end dates: they help (grade 1) with those questions.
    for lease_id, text in w.extras.get("roll_questions", []):
        judged = {lease_id: 2, roll.doc_id: 1}
        if lease_id in renewals:
            judged[renewals[lease_id]] = 1
        if lease_id == "lease-maple-4":
            judged["letter-increase-maple4"] = 1  # the rent increase notice states the current rent
        questions.append(Question(text, judged))
    # The cedar tenants later got a second cat: the approval letter and their e-mail also speak to pets.
    cedar = next(d for d in docs if d.doc_id == "lease-cedar")
    for text in [q for q in cedar.questions if " pet" in q]:
        cedar.questions.remove(text)
        questions.append(Question(text, {"lease-cedar": 2, "letter-pet-cedar": 1, "email-secondcat-cedar": 1}))
    questions.append(Question(
        "total monthly rent we should be collecting across all the units",
        {roll.doc_id: 2},
    ))
    questions.append(Question(
        "who pays for heating oil at the Oak Street duplex?",
        {"lease-oak-a": 2, "lease-oak-b": 2},
    ))
    questions.append(Question(
        "Do the tenants at Birch Lane have to mow the lawn themselves?",
        {"lease-birch": 2},
    ))
    return docs, questions
