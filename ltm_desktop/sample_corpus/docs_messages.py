"""E-mails, notes and letters: the informal half of a small landlord's records."""

from __future__ import annotations

from ltm_desktop.sample_corpus.model import Question, SampleDoc, ask
from ltm_desktop.sample_corpus.world import World, money

OWNER_EMAIL = "Dana Whitfield <dana@harborviewpm.com>"


def _mail(doc_id: str, sender: str, to: str, date: str, subject: str, body: list[str], *questions: str) -> SampleDoc:
    doc = SampleDoc(doc_id, "eml", "email", doc_id, subject, body,
                    headers={"From": sender, "To": to, "Date": date, "Subject": subject})
    return ask(doc, *questions)


def emails(w: World) -> tuple[list[SampleDoc], list[Question]]:
    m2, m3, oakb, cedar, shop, f2 = (w.unit(k) for k in ("maple-2", "maple-3", "oak-b", "cedar", "forest-shop", "forest-2"))

    def tenant(u) -> str:
        return f"{u.tenant.name} <{u.tenant.email}>"

    docs = [
        _mail("email-noheat-maple3", tenant(m3), OWNER_EMAIL, "Mon, 11 Mar 2024 07:12:00 -0400",
              "Radiators cold again", [
                  "Hi Dana,", "The radiators in our apartment have been cold since Saturday night and it was 58 "
                  "degrees inside this morning. The neighbours in number 4 say theirs are cold too. Can someone "
                  "come today? We are using a space heater for the kids' room.",
                  f"Thanks, {m3.tenant.name.split()[0]}",
              ], f"when did the {m3.tenant.last}s complain the heat was off?"),
        _mail("email-vacate-oakb", tenant(oakb), OWNER_EMAIL, "Fri, 02 Aug 2024 18:40:00 -0400",
              "Notice - moving out", [
                  "Dear Ms. Whitfield,", f"This is our written notice that we will move out of {oakb.address} on "
                  "September 30, 2024. We bought a house in Gorham. Please send the security deposit to 18 "
                  "Fort Hill Road, Gorham, ME 04038.", "We can leave the keys in the lockbox. Thank you for "
                  f"everything over the years. {oakb.tenant.household}",
              ], "which tenant gave notice that they're leaving, and when are they out?",
              f"where should we mail the {oakb.tenant.last} deposit?"),
        _mail("email-secondcat-cedar", tenant(cedar), OWNER_EMAIL, "Tue, 14 May 2024 20:05:00 -0400",
              "Question about adopting a second cat", [
                  "Hi Dana,", "We'd like to adopt a second cat from the shelter. She is spayed and three years old. "
                  "Would that be OK under our lease? We're happy to pay another pet deposit if needed.",
                  f"Best, {cedar.tenant.name}",
              ]),
        _mail("email-sign-bakery", tenant(shop), OWNER_EMAIL, "Wed, 24 Jan 2024 10:22:00 -0500",
              "New sign and awning for the bakery", [
                  "Hi Dana,", "I'd like to replace the old sign with a lit blade sign and add a green canvas awning "
                  "over the front window. The sign maker is Portland Sign Works; quote attached, about $4,800. "
                  "They say the city needs a sign permit. Can you approve it in writing?",
                  "Rosalind, Crumb & Crust",
              ], "what did the bakery owner ask permission to put up on the front of the building?"),
        _mail("email-roof-quote-oak", "Pete Larrabee <pete@summitroofing.example>", OWNER_EMAIL,
              "Tue, 12 Mar 2024 16:31:00 -0400", "Oak St roof - storm damage estimate", [
                  "Dana,", "Looked at 14 Oak today. Wind took off shingles over about 3 squares on the back slope "
                  "and bent the drip edge. We can do it next week for about $3,200. The front slope is old but not "
                  "storm damage, I'd budget to redo it in 3-5 years. Photos attached for your insurance.", "Pete",
              ], "what did the roofer say about the front slope at Oak Street?"),
        _mail("email-adjuster-maple", "Colleen Marchetti <cmarchetti@granitestatemutual.example>", OWNER_EMAIL,
              "Thu, 18 Jan 2024 09:02:00 -0500", "Claim GSM-CL-24-00871 - inspection visit", [
                  "Good morning Ms. Whitfield,", "I am the adjuster assigned to your water damage claim at 221 Maple "
                  "Avenue. I can inspect on Tuesday, January 23 at 10 a.m. Please have the plumber's invoice and "
                  "photos of the ceiling in Apartment 1 ready. Do not discard damaged materials until I have seen them.",
                  "Colleen Marchetti",
              ], "when was the adjuster coming to inspect the water damage?"),
        _mail("email-cpa-docs", "Howard Lin CPA <hlin@linandparkcpa.example>", OWNER_EMAIL,
              "Mon, 05 Feb 2024 13:15:00 -0500", "2023 tax return - what I need from you", [
                  "Hi Dana,", "To finish the 2023 partnership return (Form 1065) and your K-1 I still need: the "
                  "1098 forms from all three lenders, the property tax payment receipts, the 1099-NEC copies you "
                  "issued, the year-end rent roll, and receipts for the Maple Avenue boiler work and any other "
                  "improvements over $2,500.",
                  "The deadline is March 15. If you can't get everything by March 1 I'll file an extension (Form "
                  "7004), which moves it to September 15.", "Howard",
              ], "what does the accountant still need for the 2023 taxes, and what's the deadline?"),
        _mail("email-hoa-cedar", "Cedar Court Condominium Association <board@cedarcourtcondo.example>", OWNER_EMAIL,
              "Mon, 29 Apr 2024 17:00:00 -0400", "Special assessment - siding and balconies", [
                  "Dear owners,", "At the April 25 meeting the board approved a special assessment for replacing the "
                  "siding and rebuilding the balconies on Building C. Each unit's share is $4,350, payable in full by "
                  "August 1, 2024 or in three installments of $1,450 (August 1, October 1, December 1).",
                  "Monthly common charges stay at $385 per unit.", "The Board of Directors",
              ], "how much is the condo special assessment and can we pay it in installments?",
              "what are the monthly condo fees at Cedar Court?"),
        _mail("email-code-forest", "Code Enforcement <codes@portlandmaine.example>", OWNER_EMAIL,
              "Wed, 05 Jun 2024 11:45:00 -0400", "Notice of violation - 1300 Forest Ave", [
                  "A complaint was received about overflowing trash containers and loose bags behind 1300 Forest "
                  "Avenue. An inspection on June 4 confirmed the condition. Please provide a second dumpster or "
                  "more frequent pickup, and clean the area within 10 days. A re-check is set for June 17.",
                  "Housing Safety Office, City of Portland",
              ], "what did the city complain about at the Forest Avenue property?"),
        _mail("email-realtor-birch", "Meg Tardif <meg@cascorealty.example>", OWNER_EMAIL,
              "Thu, 20 Jun 2024 15:30:00 -0400", "Birch Lane - market analysis", [
                  "Hi Dana,", "Based on five sales in Westbrook this spring, I'd list 9 Birch Lane between $415,000 "
                  "and $435,000 if vacant and staged. With the tenant in place, investors would likely offer "
                  "$390,000 to $405,000. The radon system would need to go in before a sale either way.",
                  "Happy to walk through it. Meg",
              ], "what could we get for the Birch Lane house if we sold it?"),
        _mail("email-rate-maple", "Seacoast Savings Bank <loanservicing@seacoastsavings.example>", OWNER_EMAIL,
              "Fri, 07 Jun 2024 08:00:00 -0400", "Your escrow analysis is ready", [
                  "Your annual escrow account disclosure for loan ending in the Maple Avenue property is available "
                  "in online banking. Please review the new monthly payment, which takes effect with the August "
                  "payment.", "Seacoast Savings Bank Loan Servicing",
              ]),
        _mail("email-noise-maple", tenant(m2), OWNER_EMAIL, "Sun, 21 Apr 2024 23:48:00 -0400",
              "Noise from upstairs", [
                  "Dana, sorry to write so late. The people in apartment 4 have had loud music and guests until 1 or "
                  "2 a.m. three weekends in a row. I work early shifts at the hospital. Could you remind them about "
                  f"quiet hours?", f"{m2.tenant.name}",
              ], "who complained about late-night noise at the fourplex?"),
        _mail("email-snow-renewal", "Dee Morin <dee@cascosnow.example>", OWNER_EMAIL,
              "Tue, 10 Sep 2024 12:10:00 -0400", "Plowing contract 2024-25", [
                  "Hi Dana,", "Attached is the contract for this winter: Maple and Forest lots, 14 sand/salt "
                  "applications included, $4,400 for the season in two payments (December 1 and January 15). That's "
                  "up $200 from last year because of fuel and insurance.", "Dee",
              ], "how much is snow plowing going to cost for the 2024-25 winter?"),
        _mail("email-lawyer-latepay", "Attorney Joan Pelletier <jpelletier@pelletierlaw.example>", OWNER_EMAIL,
              "Mon, 15 Jul 2024 14:20:00 -0400", "Re: tenant behind on rent", [
                  "Dana,", f"For a tenant at will or on a lease in Maine who is 7 or more days behind, you can serve a "
                  "14-day notice to quit for nonpayment. If they pay everything owed before the 14 days are up, "
                  "the notice is void. Keep a copy and the proof of service. If they don't pay or leave, we file a "
                  "forcible entry and detainer in district court; the hearing is usually 2-3 weeks later.",
                  "My flat fee for an uncontested eviction is $650 plus the $80 filing fee.", "Joan",
              ], "what's the process in Maine if a tenant doesn't pay rent, according to the lawyer?",
              "what does the eviction lawyer charge?"),
        _mail("email-refi-forest", OWNER_EMAIL, "Paul Whitfield <paul.whitfield@examplemail.com>",
              "Sat, 17 Aug 2024 09:40:00 -0400", "Forest Ave refinance - thoughts", [
                  "Paul,", "Atlantic Federal offered to extend the Forest Avenue loan past the 2029 balloon at "
                  "6.9% for 10 years if we refinance now, with a $3,000 fee. A broker says we might get 6.5% "
                  "elsewhere but we'd pay the 2% prepayment penalty. I lean towards waiting a year. Let's talk "
                  "Sunday.", "Dana",
              ], "what refinancing offer did we get on the Forest Avenue loan?"),
        _mail("email-latepay-forest2", tenant(f2), OWNER_EMAIL, "Mon, 08 Apr 2024 19:02:00 -0400",
              "Rent payment", [
                  "Hi Dana,", "I'm so sorry, my April payment bounced because my paycheck was deposited late. I "
                  "will bring a money order to the office next week. Please waive the fee if you can.",
                  f"{f2.tenant.name}",
              ]),
    ]
    cross = [
        Question("did we ever let the Cedar Court tenants get a second cat?",
                 {"email-secondcat-cedar": 2, "letter-pet-cedar": 2, "lease-cedar": 1}),
        Question("what happened when the rent check bounced in April, did they pay it back?",
                 {"bank-2024-04": 2, "email-latepay-forest2": 2}),
        Question("whose rent payment bounced this spring?", {"bank-2024-04": 2, "email-latepay-forest2": 2}),
        Question("Maple Avenue heating failure in March: what was the complaint and what did the repair cost?",
                 {"email-noheat-maple3": 2, "invoice-boiler": 2}),
        Question("why is the Maple Avenue mortgage payment changing in August?",
                 {"escrow-analysis-maple-2024": 2, "email-rate-maple": 1}),
    ]
    return docs, cross


def notes(w: World) -> list[SampleDoc]:
    return [
        ask(SampleDoc("note-cpa-meeting", "md", "notes", "2024-02-20_meeting_with_CPA", "Meeting with CPA", [
            "# Meeting with Howard (CPA), Feb 20 2024",
            "- Depreciation: residential buildings over 27.5 years; the Forest Avenue store front part over 39 years.",
            "- Howard suggests a cost segregation study for Forest Avenue only if we keep it 5+ more years; cost "
            "about $5,000.",
            "- Estimated tax payments for 2024: April 15, June 17, September 16 and January 15, $3,200 each.",
            "- Keep a mileage log for property visits: 2024 IRS rate is 67 cents a mile.",
            "- Boiler circulator and water heater are repairs (expensed), the new Forest electrical panel is an "
            "improvement (depreciated).",
        ]), "when are the quarterly estimated tax payments due this year and how much are they?",
            "what mileage rate can we use for driving to the properties?"),
        ask(SampleDoc("note-maintenance-log", "md", "notes", "maintenance_log_2024", "Maintenance log 2024", [
            "# Maintenance log 2024",
            "## January",
            "- Jan 14: frozen pipe Maple #2, plumber came same night (Reliable). Insurance claim filed.",
            "- Jan 29: changed furnace filters Oak A and B.",
            "## March",
            "- Mar 10: windstorm, shingles off Oak rear slope. Summit fixed it Mar 19.",
            "- Mar 11: no heat Maple #3 and #4, Coastal replaced circulator pump same day.",
            "## May-June",
            "- May 20: gutters cleaned at Oak and Birch.",
            "- Jun 3: tested all smoke and CO detectors at Maple and Forest; replaced 9-volt batteries in 4 units.",
        ]), "when did we last clean the gutters?"),
        ask(SampleDoc("note-capital-plan", "md", "notes", "capital_plan_2025", "Capital plan 2025", [
            "# Capital plan for 2025",
            "| Project | Property | Budget | When |\n|---|---|---|---|\n"
            "| Flat roof replacement | 1300 Forest Ave | $48,000 | summer 2026 at the latest |\n"
            "| Replace Unit B furnace | 14 Oak St | $7,500 | before winter 2025 |\n"
            "| Radon mitigation | 9 Birch Ln | $1,700 | spring 2025 |\n"
            "| Sealcoat and restripe parking lot | 221 Maple Ave | $2,900 | June 2025 |\n"
            "| Condo special assessment | 57 Cedar Ct | $4,350 | August 2024 |",
            "Funding: roof from the reserve account plus a possible equity line; the rest from operating cash.",
        ]), "how much have we budgeted for projects next year, and what's the biggest one?"),
        ask(SampleDoc("note-screening", "md", "notes", "tenant_screening_criteria", "Tenant screening criteria", [
            "# Tenant screening criteria",
            "Applied the same way to every applicant (fair housing).",
            "- Gross household income at least 3 times the monthly rent.",
            "- Credit score 640 or above, or a co-signer who qualifies.",
            "- No evictions in the last 5 years; landlord references from the last two landlords.",
            "- Application fee: none (Maine law does not allow landlords to charge one).",
        ]), "what minimum credit score do we require from new applicants?"),
        ask(SampleDoc("note-emergency", "md", "notes", "emergency_contacts_and_shutoffs", "Emergency contacts and shutoffs", [
            "# Emergency contacts and shutoffs",
            "## Who to call",
            "- Plumbing or no hot water: Reliable Plumbing & Heating, Gus, (207) 555-0131 (24 h).\n"
            "- No heat: Coastal Comfort HVAC, (207) 555-0162.\n- Electrical: Bright Line Electric, Tanya, "
            "(207) 555-0117.\n- Locked out: Keystone Lock & Key, (207) 555-0190.",
            "## Water shutoffs",
            "- 14 Oak St: basement, front wall left of the stairs, red handle.\n- 221 Maple Ave: boiler room, "
            "behind the door, blue lever valve before the meter.\n- 9 Birch Ln: basement utility room next to the "
            "pressure tank.\n- 1300 Forest Ave: bakery back storage room, ceiling access panel.",
        ]), "where's the main water shutoff in the Maple Avenue building?",
            "which heating company do we call when a tenant has no heat?"),
        ask(SampleDoc("note-winterize", "md", "notes", "winterizing_checklist", "Winterizing checklist", [
            "# Winterizing checklist (every November)",
            "- Disconnect garden hoses and shut the inside valves to the outside faucets at Oak, Maple and Birch.",
            "- Heat tape on the Maple Apartment 2 kitchen wall pipe, after last January's freeze.",
            "- Remind tenants in writing: keep heat at 55 F or higher when away.",
            "- Stake driveway edges at Birch for the plow. Check the salt bins at Maple and Forest.",
        ]), "what temperature should tenants keep the heat at when they're away in winter?"),
        ask(SampleDoc("note-birch-sale", "md", "notes", "birch_lane_sell_or_keep", "Birch Lane: sell or keep?", [
            "# Birch Lane: sell or keep?",
            "Pros of selling: highest price per door we own; tenant's lease ends soon; cash for the Forest roof.",
            "Cons: lose about $700 a month cash flow after mortgage-free costs; depreciation recapture at 25%.",
            "Next steps: get the radon system in, ask Meg for a second opinion in the fall, talk to Howard about "
            "a 1031 exchange into a small multifamily.",
        ]), "what are the arguments for and against selling the Birch Lane house?"),
    ]


def letters(w: World) -> tuple[list[SampleDoc], list[Question]]:
    m4, f2, cedar = w.unit("maple-4"), w.unit("forest-2"), w.unit("cedar")
    new_rent = round(m4.rent * 1.06 / 5) * 5
    owed = f2.rent + float(w.extras.get(f"late_fee:{f2.key}", 50.0))
    docs = [
        ask(SampleDoc("letter-increase-maple4", "docx", "letters", "Rent_Increase_Notice_Maple_Apt4",
                      "Rent increase notice - 221 Maple Ave Apt 4", [
                          "# Notice of Rent Increase",
                          f"To: {m4.tenant.household}, 221 Maple Avenue, Apartment 4, South Portland, ME 04106",
                          "Date: June 3, 2024",
                          f"As allowed by your lease and Maine law (at least 45 days' written notice), your monthly "
                          f"rent will increase from {money(m4.rent)} to {money(new_rent)} starting August 1, 2024. "
                          "Rising property taxes, insurance and heating costs have made this necessary.",
                          "All other terms of your tenancy remain the same. Please call with any questions.",
                          "Dana Whitfield, Harborview Property Management LLC",
                      ]), f"how much is rent going up for {m4.tenant.name} and starting when?"),
        ask(SampleDoc("letter-notice-forest2", "docx", "letters", "14-Day_Notice_1300_Forest_Apt2",
                      "14-day notice for nonpayment - 1300 Forest Ave Apt 2", [
                          "# 14-Day Notice to Quit for Nonpayment of Rent",
                          f"To: {f2.tenant.household} and all other occupants of 1300 Forest Avenue, Apartment 2, "
                          "Portland, Maine.",
                          f"You owe {money(owed)} in rent and late charges for July 2024. You must leave the premises "
                          "within 14 days after you receive this notice. If you pay the full amount owed before the "
                          "14 days end, this notice is void.",
                          "Served by hand on July 16, 2024. Landlord: Harborview Property Management LLC.",
                      ]), "how much was the Forest Avenue apartment 2 tenant behind when we served notice in July?"),
        ask(SampleDoc("letter-deposit-maple1", "docx", "letters", "Deposit_Return_Greta_Halvorsen",
                      "Security deposit return - Greta Halvorsen", [
                          "# Return of Security Deposit",
                          "To: Greta Halvorsen, 77 Cumberland Ave, Apt 3, Portland, ME 04101. Date: January 22, 2024.",
                          "Re: 221 Maple Avenue, Apartment 1, tenancy ended December 31, 2023.",
                          "Deposit held: $1,250.00\nLess: countertop burn repair $180.00\nLess: replace two sets "
                          "of blinds $96.00\nLess: door replacement $220.00\nLess: carpet cleaning attempt $85.00",
                          "Amount returned: $669.00, check number 1038, enclosed.",
                      ]), "how much of Greta's security deposit did she get back?"),
        SampleDoc("letter-pet-cedar", "docx", "letters", "Pet_Approval_57_Cedar_Ct", "Pet approval - 57 Cedar Court", [
            "# Approval of an Additional Pet",
            f"To: {cedar.tenant.household}, 57 Cedar Court, Unit 3. Date: May 20, 2024.",
            "We approve one additional cat, spayed, about three years old, under the terms of your Pet Rider. "
            "An additional pet deposit of $200.00 is due with June rent. Pet rent does not change.",
            "The condominium rules also require that pets be registered with the association office.",
        ]),
        ask(SampleDoc("letter-entry-smoke", "docx", "letters", "Notice_of_Entry_Smoke_Detectors",
                      "Notice of entry - smoke detector checks", [
                          "# Notice of Entry",
                          "To all tenants of 221 Maple Avenue and 1300 Forest Avenue. Date: May 28, 2024.",
                          "We will enter each apartment on Monday, June 3, 2024 between 9 a.m. and 1 p.m. to test "
                          "smoke and carbon monoxide alarms and replace batteries. You do not need to be home.",
                      ]), "when were we going into the apartments to check the smoke alarms?"),
    ]
    return docs, []
