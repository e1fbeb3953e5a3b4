"""Upkeep documents: vendor invoices, inspection reports, insurance policies and claims."""

from __future__ import annotations

from ltm_desktop.sample_corpus.docs_money import Payment
from ltm_desktop.sample_corpus.model import Question, SampleDoc, ask
from ltm_desktop.sample_corpus.world import World, money

# (doc key, vendor, property, month, lines [(description, amount)], format, question)
INVOICES = (
    ("pipe", "plumber", "maple", 1, [
        ("Emergency call, Sunday night, frozen and split supply line, Apartment 2 kitchen", 285.00),
        ("Cut open wall, replace 4 ft of 1/2 in. copper with PEX, insulate exterior wall cavity", 742.00),
        ("Materials: PEX, fittings, foam insulation", 119.00),
        ("Shut-off and restore building water, check Apartment 1 ceiling below", 240.00),
    ], "pdf", "what did the plumber charge for the frozen pipe repair at Maple Avenue?"),
    ("waterheater", "plumber", "oak", 2, [
        ("Remove failed 40-gallon electric water heater, Unit B basement", 180.00),
        ("Supply and install Rheem 50-gallon electric water heater with expansion tank", 1315.00),
        ("Permit fee, City of Portland", 75.00),
        ("Haul away old tank", 70.00),
    ], "pdf", "how much did the new water heater in Oak Street unit B cost?"),
    ("panel", "electric", "forest", 4, [
        ("Add four GFCI outlets at bakery prep counters (required by health inspection)", 860.00),
        ("Replace 60-amp fuse panel in Apartment 3 with 100-amp breaker panel", 1265.00),
        ("Electrical permit and inspection", 150.00),
    ], "pdf", "what electrical work did we have done at the Forest Avenue building in April and what did it cost?"),
    ("roof", "roofer", "oak", 3, [
        ("Storm repair after March 10 wind event: replace 3 squares of architectural shingles, rear slope", 2480.00),
        ("Replace damaged drip edge and ridge vent section", 460.00),
        ("Dumpster and disposal", 240.00),
    ], "pdf", "what did Summit Roofing do at Oak Street after the windstorm?"),
    ("cleanup", "landscape", "maple", 4, [
        ("Spring cleanup: 221 Maple Avenue, 14 Oak Street, 9 Birch Lane", 780.00),
        ("Edge and mulch front beds, 221 Maple Avenue (4 yards dark bark mulch)", 370.00),
    ], "scan", "how much was the spring yard cleanup this year?"),
    ("plowing", "snow", "maple", 1, [
        ("Winter 2023-24 seasonal plowing contract, final installment: lots at 221 Maple Ave and 1300 Forest Ave", 2100.00),
        ("Sanding and salting beyond the 12 applications in the contract (5 extra visits at $60)", 300.00),
    ], "pdf", "what do we still owe the plow guy for this winter?"),
    ("pest", "pest", "forest", 5, [
        ("Monthly commercial pest service, bakery kitchen and storage room", 95.00),
        ("Mouse exclusion, Apartment 2: seal gaps around heating pipes, 6 snap stations", 190.00),
    ], "scan", "did the exterminator find mice in one of the Forest Avenue apartments?"),
    ("boiler", "hvac", "maple", 3, [
        ("Annual service of gas boiler: clean burner, test safeties, combustion analysis", 289.00),
        ("Replace failed Taco circulator pump, zone 2 (Apartments 3 and 4)", 548.00),
        ("Bleed air from radiators, Apartments 3 and 4", 75.00),
    ], "scan", "why was there no heat in apartments 3 and 4 at Maple, what got replaced?"),
    ("repaint", "painter", "maple", 1, [
        ("Repaint Apartment 1 after move-out: walls and ceilings, two coats, Benjamin Moore Chantilly Lace", 1650.00),
        ("Patch nail holes and a fist-size hole in the bedroom door", 220.00),
        ("Stain-block primer over water stain on living room ceiling", 180.00),
    ], "docx", "what color did the painter use in Maple apartment 1?"),
    ("dishwasher", "appliance", "cedar", 5, [
        ("Service call: Bosch dishwasher not draining, Unit 3", 95.00),
        ("Replace drain pump and clear filter", 173.50),
    ], "scan", "what was wrong with the dishwasher at the condo?"),
    ("rekey", "locksmith", "birch", 6, [
        ("Rekey front and back door locks after tenant reported lost keys, 9 Birch Lane", 110.00),
        ("Four new keys", 35.00),
    ], "pdf", "how much did it cost to change the locks at Birch Lane when the keys got lost?"),
)


def invoices(w: World) -> tuple[list[SampleDoc], list[Payment]]:
    rng = w.rng
    docs, payments = [], []
    for n, (key, vkey, pkey, month, lines, fmt, question) in enumerate(INVOICES):
        v, p = w.vendors[vkey], w.prop(pkey)
        number = f"{v.name.split()[0][:3].upper()}-{2024}-{rng.randrange(100, 999)}"
        day = rng.randrange(3, 20)
        total = sum(a for _, a in lines)
        table = "\n".join(f"{d[:70]:<72}{a:>10,.2f}" if fmt != "docx" else f"{d}: {money(a)}" for d, a in lines)
        blocks = [
            f"# {v.name}\n{v.address}\nContact: {v.contact}",
            f"INVOICE {number}\nDate: {month:02d}/{day:02d}/2024\nBill to: {w.company}, {w.office}\n"
            f"Job site: {p.full_address}",
            table,
            f"TOTAL DUE: {money(total)}\nTerms: net 15 days. Please make checks payable to {v.name}.",
        ]
        docs.append(ask(
            SampleDoc(f"invoice-{key}", fmt, "invoices", f"Invoice_{v.name.split()[0]}_{number}",
                      f"Invoice {number} {v.name}", blocks, mono=fmt != "docx"),
            question,
        ))
        pay_month, pay_day = (month, min(day + 12, 28)) if day < 16 else (month + 1, 5)
        if pay_month <= 6:
            payments.append(Payment(pay_month, pay_day, v.name, total, 1041 + n))
    return docs, payments


def inspections(w: World) -> list[SampleDoc]:
    birch, maple1 = w.unit("birch"), w.unit("maple-1")
    docs = [
        ask(SampleDoc("inspection-movein-birch", "docx", "inspections", "Move-in_Inspection_9_Birch_Lane",
                      "Move-in inspection - 9 Birch Lane", [
                          "# Move-in Condition Report",
                          f"Property: {birch.prop.full_address}. Tenant: {birch.tenant.household}. "
                          "Inspected with the tenant on move-in day; both signed.",
                          "## Living room",
                          "Hardwood floor: a 10-inch scratch near the front window, otherwise good. Walls freshly "
                          "painted. Two window screens torn (left side).",
                          "## Kitchen",
                          "Range, refrigerator and dishwasher clean and working. One cabinet door under the sink "
                          "is loose. Small chip in the countertop edge by the stove.",
                          "## Upstairs bathroom",
                          "One cracked floor tile next to the tub. Exhaust fan noisy but works. Caulk around tub "
                          "is new.",
                          "## Bedrooms and basement",
                          "Bedrooms good. Carpet in the small bedroom has a faded patch. Basement dry; dehumidifier "
                          "provided and working. Smoke and CO detectors tested on every floor.",
                      ]),
            "what damage was already there when the tenants moved into the Birch Lane house?"),
        ask(SampleDoc("inspection-fire-maple", "scan", "inspections", "Fire_Inspection_221_Maple_2024",
                      "Fire and life safety inspection - 221 Maple Ave", [
                          "# SOUTH PORTLAND FIRE DEPARTMENT\nFire Prevention Bureau - Inspection Report",
                          "Occupancy: 221 Maple Avenue, four-unit residential. Inspection date: 02/21/2024. "
                          "Inspector: Lt. R. Gallant.",
                          "VIOLATIONS FOUND\n1. Apartment 3: hallway smoke alarm missing from its base.\n"
                          "2. Basement: portable fire extinguisher out of date (last tagged 2022).\n"
                          "3. Rear egress stairs: storage (bicycles, grill) blocking the path of exit.",
                          "All violations must be corrected before re-inspection on 03/20/2024. Failure to correct "
                          "may result in a summons. Interconnected smoke alarms in all units are otherwise in "
                          "working order; CO alarms present on each level.",
                      ]),
            "what did the fire inspector write us up for at the Maple Avenue building?",
            "when is the fire re-inspection at the fourplex?"),
        ask(SampleDoc("inspection-roof-forest", "pdf", "inspections", "Roof_Inspection_1300_Forest_2024",
                      "Roof inspection - 1300 Forest Avenue", [
                          "# Summit Roofing Co. - Roof Condition Report",
                          "Building: 1300 Forest Avenue, Portland. Flat roof, about 4,200 sq ft, EPDM rubber "
                          "membrane installed around 2005. Inspected May 2, 2024 by Pete Larrabee.",
                          "## Findings",
                          "Membrane is chalking and shrinking at the parapet edges. Seams are lifting in two places "
                          "on the north side. Water ponds near the rear drain after rain (about 30 sq ft). No active "
                          "leaks found inside, but a stain on the Apartment 3 closet ceiling suggests past leaking.",
                          "## Recommendation",
                          "Expected remaining life: 2 to 4 years. Interim repair of seams and the rear drain area "
                          "now, about $1,200. Plan a full tear-off and new 60-mil EPDM with tapered insulation, "
                          "estimated at $46,500 in 2024 dollars.",
                      ]),
            "how many years does the flat roof on Forest Avenue have left?",
            "what would a full roof replacement at Forest Ave cost?"),
        ask(SampleDoc("inspection-furnace-oak", "pdf", "inspections", "Furnace_Inspection_14_Oak_2024",
                      "Heating system inspection - 14 Oak Street", [
                          "# Coastal Comfort HVAC - Heating System Inspection",
                          "Site: 14 Oak Street, Portland, Units A and B. Two oil-fired warm-air furnaces. Date: "
                          "October 8, 2024. Technician: Jen Beaulieu.",
                          "Unit A furnace (2012): cleaned, new nozzle and filter. Combustion efficiency 83%. "
                          "Carbon monoxide in flue normal. No issues.",
                          "Unit B furnace (1998): cleaned, new nozzle and filter. Efficiency 79%. Hairline cracks "
                          "starting at the heat exchanger seams. Not dangerous today, but we recommend replacing "
                          "this furnace within two heating seasons. Quote for a new 95% efficient unit to follow.",
                      ]),
            "which Oak Street furnace needs replacing and why?"),
        ask(SampleDoc("radon-birch", "pdf", "inspections", "Radon_Test_9_Birch_Lane", "Radon test - 9 Birch Lane", [
            "# Maine Radon Testing Lab - Air Test Result",
            "Address: 9 Birch Lane, Westbrook, ME. Test type: 48-hour continuous monitor, basement. Test period "
            "April 12-14, 2024.",
            "Result: 5.6 pCi/L. The EPA action level is 4.0 pCi/L and Maine requires landlords to test and disclose "
            "radon results to tenants.",
            "Recommendation: install a sub-slab depressurization (mitigation) system and retest afterwards. Typical "
            "installed cost in the area is $1,400 to $1,900.",
        ]), "did the radon test at Birch Lane come back high?"),
        ask(SampleDoc("inspection-moveout-maple1", "docx", "inspections", "Move-out_Inspection_221_Maple_Apt1",
                      "Move-out inspection - 221 Maple Ave Apt 1", [
                          "# Move-out Inspection",
                          f"221 Maple Avenue, Apartment 1. Former tenant: Greta Halvorsen, moved out December 31, "
                          f"2023. The new lease for this apartment is with {maple1.tenant.name}.",
                          "Kitchen: burn mark on the laminate countertop left of the range (about 3 inches). "
                          "Refrigerator left dirty.",
                          "Living room: two sets of blinds missing. Carpet stain near the couch area, did not come "
                          "out with cleaning.",
                          "Bedroom: fist-size hole in the door. Otherwise normal wear: faded paint, scuffs.",
                      ]),
            "what damage did Greta leave behind when she moved out?"),
    ]
    return docs


def insurance(w: World) -> tuple[list[SampleDoc], list[Question]]:
    oak, maple, birch = w.prop("oak"), w.prop("maple"), w.prop("birch")
    docs = [
        ask(SampleDoc("policy-dwelling", "pdf", "insurance", "Granite_State_Dwelling_Policy_2024",
                      "Dwelling fire policy declarations 2024-2025", [
                          "# Granite State Mutual Insurance\nDwelling Property Policy - Declarations",
                          f"Named insured: {w.company}. Policy number GSM-DP-448812. Policy period: March 1, 2024 to "
                          "March 1, 2025, 12:01 a.m. standard time.",
                          f"Location 1: {oak.full_address}, dwelling limit $520,000.\nLocation 2: "
                          f"{maple.full_address}, dwelling limit $890,000.\nLocation 3: {birch.full_address}, "
                          "dwelling limit $365,000.",
                          "Coverages at each location: other structures 10% of dwelling; fair rental value (loss of "
                          "rents) up to 12 months; premises liability $1,000,000 each occurrence; medical payments "
                          "$5,000 per person.",
                          "Deductible: $2,500 per occurrence, all perils. Endorsements: water backup of sewers and "
                          "drains, $10,000 limit; ordinance or law, 10%.",
                          "Annual premium: $7,842.00, paid in full.",
                      ]),
            "what's the deductible on the rental houses insurance?",
            "how long will insurance cover lost rent if a unit becomes unlivable?"),
        ask(SampleDoc("policy-commercial-forest", "pdf", "insurance", "Bay_Colony_Commercial_Policy_1300_Forest",
                      "Commercial property policy - 1300 Forest Avenue", [
                          "# Bay Colony Insurance Company\nCommercial Property Declarations",
                          "Insured: Harborview Property Management LLC. Premises: 1300 Forest Avenue, Portland, ME. "
                          "Policy BC-CP-7731905, term June 15, 2024 to June 15, 2025.",
                          "Building: $1,150,000 replacement cost. Business income with extra expense: actual loss "
                          "sustained up to 12 months. Equipment breakdown: included.",
                          "Deductibles: $5,000 all other perils. Wind and hail: 2% of the building limit per "
                          "occurrence ($23,000).",
                          "Annual premium: $6,310.00.",
                      ]),
            "is there a separate wind deductible on the Forest Avenue building policy?"),
        ask(SampleDoc("policy-umbrella", "pdf", "insurance", "Granite_State_Umbrella_2024", "Umbrella policy 2024", [
            "# Granite State Mutual Insurance\nCommercial Umbrella Liability - Declarations",
            "Named insured: Harborview Property Management LLC. Policy GSM-UMB-20931. March 1, 2024 to March 1, 2025.",
            "Each occurrence limit: $2,000,000. Aggregate: $2,000,000. Self-insured retention: $10,000.",
            "Required underlying insurance: premises liability of $1,000,000 at each scheduled location, including "
            "1300 Forest Avenue. Annual premium: $1,180.00.",
        ]), "how much umbrella liability coverage do we have on top of the regular policies?"),
        ask(SampleDoc("policy-condo-cedar", "scan", "insurance", "Pine_Tree_HO6_57_Cedar_Court",
                      "Condo unit owner policy - 57 Cedar Court Unit 3", [
                          "# Pine Tree Insurance\nCondominium Unit-Owners Policy (HO-6) - Declarations",
                          "Insured location: 57 Cedar Court, Unit 3, Portland, ME 04103 (rented to others).",
                          "Coverage A, building property (walls-in): $60,000\nCoverage D, loss of rents: $12,000\n"
                          "Coverage E, personal liability: $500,000\nLoss assessment: $50,000",
                          "Deductible $1,000. Loss assessment covers the owner's share of a condominium "
                          "association assessment after a covered loss to the common property.",
                      ]),
            "would the condo insurance help pay if the HOA charges owners for storm damage?"),
        ask(SampleDoc("claim-notice-maple", "pdf", "insurance", "Loss_Notice_221_Maple_Jan2024",
                      "Property loss notice - 221 Maple Ave", [
                          "# PROPERTY LOSS NOTICE",
                          "Insurer: Granite State Mutual. Policy GSM-DP-448812. Claim number GSM-CL-24-00871.",
                          "Date of loss: January 14, 2024, about 11 p.m. Location: 221 Maple Avenue, South Portland.",
                          "Description: during the cold snap a water supply pipe in the exterior kitchen wall of "
                          "Apartment 2 froze and split. Water ran into the Apartment 2 kitchen and through the "
                          "ceiling of Apartment 1 below. Plumber shut the water off at 11:40 p.m.",
                          "Reported by Dana Whitfield on January 15, 2024. Apartment 1 was vacant and under "
                          "renovation; no tenant was displaced.",
                      ]),
            "what's the claim number for the frozen pipe water damage?"),
        ask(SampleDoc("claim-settlement-maple", "scan", "insurance", "Claim_Settlement_GSM-CL-24-00871",
                      "Claim settlement letter GSM-CL-24-00871", [
                          "# Granite State Mutual Insurance - Claims",
                          "March 4, 2024\nRe: Claim GSM-CL-24-00871, 221 Maple Avenue, date of loss 01/14/2024",
                          "Dear Ms. Whitfield: We have completed our review. Covered repairs (plumbing, drywall, "
                          "ceiling, flooring and paint in Apartments 1 and 2) total $9,640.00. After your $2,500.00 "
                          "deductible we are issuing payment of $7,140.00.",
                          "Contents of the tenant in Apartment 2 are not covered under your policy. Please contact "
                          "me with any questions. Colleen Marchetti, Property Claims Adjuster, (603) 555-0177.",
                      ]),
            "how much did the insurance company end up paying for the burst pipe?",
            "who is the adjuster on the Maple water damage claim?"),
        ask(SampleDoc("claim-wind-oak", "pdf", "insurance", "Claim_Letter_Wind_14_Oak", "Wind claim letter - 14 Oak St", [
            "# Granite State Mutual Insurance - Claims",
            "April 9, 2024\nRe: Claim GSM-CL-24-01255, 14 Oak Street, Portland, wind damage on March 10, 2024",
            "Our inspection confirmed wind damage to the rear roof slope. The repair invoice from Summit Roofing "
            "of $3,180.00 is accepted as the covered amount. Less the $2,500.00 deductible, we are paying $680.00.",
            "Older wear on the front slope was not caused by the storm and is not covered.",
        ]), "did insurance cover the Oak Street roof damage from the March storm, and how much did they pay?"),
    ]
    cross = [
        Question("what happened with the frozen pipe at Maple in January: who fixed it and what did insurance pay?",
                 {"claim-notice-maple": 2, "claim-settlement-maple": 2, "invoice-pipe": 2}),
    ]
    return docs, cross
