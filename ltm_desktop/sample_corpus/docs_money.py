"""Money documents: bank statements, the deposit escrow account, mortgages, tax bills and 1099s."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import date

from ltm_desktop.sample_corpus.model import Question, SampleDoc, ask
from ltm_desktop.sample_corpus.world import MONTHS, World, long_date, money


@dataclass(frozen=True)
class Payment:
    """A vendor bill paid from the operating account (an invoice elsewhere in the corpus)."""

    month: int
    day: int
    payee: str
    amount: float
    check: int


@dataclass(frozen=True)
class Loan:
    prop: str
    lender: str
    number: str
    rate: str
    original: float
    balance: float
    principal_interest: float
    escrow: float
    maturity: str
    extra: str


def loans(w: World) -> list[Loan]:
    rng = w.rng
    return [
        Loan("oak", "Pinecrest Mortgage Services", f"0071{rng.randrange(100000, 999999)}", "4.125% fixed",
             320000.0, 268000.0 + rng.randrange(0, 9000), 1550.86, 712.40, "May 1, 2049",
             "There is no prepayment penalty on this loan."),
        Loan("maple", "Seacoast Savings Bank", f"SSB-{rng.randrange(10000, 99999)}", "6.25% adjustable",
             505000.0, 471000.0 + rng.randrange(0, 9000), 3109.35, 1288.10, "August 1, 2052",
             "The interest rate adjusts once a year on August 1, beginning in 2025, with a cap of 2% per adjustment "
             "and 5% over the life of the loan."),
        Loan("forest", "Atlantic Federal Credit Union", f"AFCU-CRE-{rng.randrange(1000, 9999)}", "6.75% fixed",
             640000.0, 598000.0 + rng.randrange(0, 9000), 4151.03, 0.0, "October 1, 2029 (balloon)",
             "A balloon payment of the remaining principal, about $552,000, is due at maturity on October 1, 2029. "
             "Prepayment penalty: 3% of the amount prepaid in loan year 1-3, 2% in year 4, 1% in year 5."),
    ]


def bank_statements(w: World, payments: list[Payment]) -> tuple[list[SampleDoc], list[Question]]:
    rng = w.rng
    docs: list[SampleDoc] = []
    balance = 38000.0 + rng.randrange(0, 6000) + 0.15
    bounced = w.unit("forest-2")
    mortgage_days = {"oak": 1, "maple": 3, "forest": 5}
    for month in range(1, 7):
        rows: list[tuple[int, str, float]] = []
        for n, u in enumerate(w.units):
            if u.lease_start > date(2024, month, 1):
                continue
            label = f"{u.prop.street.split(' ', 1)[1].upper()[:12]} {u.label.split()[-1].upper() if u.label else ''}"
            rows.append((1 + n % 4, f"ACH CREDIT RENT {u.tenant.last.upper()} {label}".strip(), u.rent))
        if month == 4:
            rows.append((8, f"RETURNED ITEM NSF RENT {bounced.tenant.last.upper()}", -bounced.rent))
            rows.append((8, "RETURNED ITEM FEE", -12.0))
            rows.append((19, f"MOBILE DEPOSIT RENT {bounced.tenant.last.upper()} (REPLACEMENT)", bounced.rent))
        for loan in loans_cache(w):
            rows.append((mortgage_days[loan.prop], f"ACH DEBIT {loan.lender.upper()[:24]} LOAN",
                         -(loan.principal_interest + loan.escrow)))
        for pay in payments:
            if pay.month == month:
                rows.append((pay.day, f"CHECK {pay.check} {pay.payee.upper()[:28]}", -pay.amount))
        interest = round(2.0 + rng.random() * 4, 2)
        rows.append((28 if month == 2 else 30, "INTEREST PAID", interest))
        rows.sort(key=lambda r: (r[0], r[1]))
        start_balance = balance
        lines = []
        for day, text, amount in rows:
            balance = round(balance + amount, 2)
            lines.append(f"{month:02d}/{day:02d}  {text:<46}{amount:>11,.2f}{balance:>12,.2f}")
        credits = sum(a for _, _, a in rows if a > 0)
        debits = -sum(a for _, _, a in rows if a < 0)
        last_day = 29 if month == 2 else 30 if month in (4, 6) else 31
        blocks = [
            f"{w.bank.upper()}                         BUSINESS CHECKING STATEMENT\n"
            f"{w.company}          Account ending {w.account_last4}\n"
            f"410 Harbor Road, Suite 2                    Statement period: {MONTHS[month - 1]} 1 - "
            f"{MONTHS[month - 1]} {last_day}, 2024\nPortland, ME 04101",
            "ACCOUNT SUMMARY\n"
            f"Beginning balance                        {money(start_balance):>14}\n"
            f"Deposits and other credits               {money(credits):>14}\n"
            f"Withdrawals and other debits             {money(debits):>14}\n"
            f"Ending balance                           {money(balance):>14}\n"
            f"Interest paid this period                {money(interest):>14}",
            "TRANSACTION DETAIL\nDate   Description                                       Amount     Balance\n"
            + "\n".join(lines),
            "Questions about this statement? Call Business Banking at (207) 555-0142. Member FDIC.",
        ]
        doc = SampleDoc(f"bank-2024-{month:02d}", "pdf", "bank", f"FirstHarbor_Checking_2024-{month:02d}",
                        f"Checking statement {MONTHS[month - 1]} 2024", blocks, mono=True)
        doc.questions.append(
            f"what was the business checking balance at the end of {MONTHS[month - 1]} 2024?"
            if month % 2 else f"how much did we have in the operating account when {MONTHS[month - 1]} closed"
        )
        if month == 2:
            doc.questions.append("How much interest did the business checking account pay in February?")
        docs.append(doc)
    return docs, []


def loans_cache(w: World) -> list[Loan]:
    """The loans are drawn once per world, so statements, 1098 and escrow analysis agree."""
    if "loans" not in w.extras:
        w.extras["loans"] = loans(w)
    return w.extras["loans"]


def deposit_escrow(w: World) -> SampleDoc:
    held = sum(u.rent for u in w.units if not u.commercial)
    blocks = [
        f"{w.bank.upper()}          TENANT SECURITY DEPOSIT ESCROW - QUARTERLY STATEMENT\n"
        f"{w.company}, as trustee          Account ending {w.deposit_account_last4}\n"
        "Statement period: April 1 - June 30, 2024",
        f"Beginning balance            {money(held - 1575):>14}\nDeposits                     {money(1575):>14}\n"
        f"Interest credited            {money(18.42):>14}\nEnding balance               {money(held + 18.42):>14}",
        "This account holds tenant security deposits separately from the operating account, as Maine law "
        "(14 M.R.S. section 6038) requires. Interest credited belongs to the landlord unless a lease says otherwise.",
    ]
    return ask(
        SampleDoc("escrow-2024-q2", "pdf", "bank", "FirstHarbor_Deposit_Escrow_2024-Q2",
                  "Security deposit escrow statement Q2 2024", blocks, mono=True),
        "how much money is sitting in the tenants' security deposit account?",
    )


def mortgage_documents(w: World) -> list[SampleDoc]:
    docs = []
    for loan in loans_cache(w):
        p = w.prop(loan.prop)
        interest = round(loan.balance * float(loan.rate.split("%")[0]) / 100 / 12, 2)
        principal = round(loan.principal_interest - interest, 2)
        blocks = [
            f"# {loan.lender}\nMortgage Statement - June 2024",
            f"Borrower: {w.company}\nProperty address: {p.full_address}\nLoan number: {loan.number}",
            f"Payment due date: July 1, 2024\nAmount due: {money(loan.principal_interest + loan.escrow)}\n"
            f"If received after July 16, 2024, a late fee of {money(round(loan.principal_interest * 0.05, 2))} is charged.",
            "EXPLANATION OF AMOUNT DUE\n"
            f"Principal              {money(principal):>12}\nInterest               {money(interest):>12}\n"
            f"Escrow (taxes and insurance) {money(loan.escrow):>12}\n"
            f"Total                  {money(loan.principal_interest + loan.escrow):>12}",
            f"ACCOUNT INFORMATION\nOutstanding principal balance: {money(loan.balance)}\n"
            f"Interest rate: {loan.rate}\nOriginal loan amount: {money(loan.original)}\nMaturity date: {loan.maturity}",
            loan.extra,
        ]
        doc = SampleDoc(f"mortgage-{loan.prop}-2024-06", "pdf", "mortgage", f"Mortgage_Statement_{loan.prop}_2024-06",
                        f"{loan.lender} statement June 2024", blocks, mono=True)
        street = p.street.split(" ", 1)[1]
        doc.questions.append({
            "oak": f"what interest rate are we paying on the {street} mortgage?",
            "maple": f"how much principal do we still owe on {p.nickname}?",
            "forest": f"when is the balloon payment due on the {street} loan, and roughly how big is it?",
        }[loan.prop])
        if loan.prop == "forest":
            doc.questions.append("Is there a penalty if we pay off the Forest Avenue mortgage early?")
        if loan.prop == "maple":
            doc.questions.append("when can the rate on the Maple Avenue loan change and by how much at most?")
        docs.append(doc)
    oak = next(ln for ln in loans_cache(w) if ln.prop == "oak")
    docs.append(ask(
        SampleDoc("form-1098-oak-2023", "pdf", "tax", "Form_1098_Pinecrest_2023", "Form 1098 Mortgage Interest 2023", [
            "Form 1098  Mortgage Interest Statement  2023  (Copy B for payer/borrower)",
            f"RECIPIENT/LENDER: {oak.lender}, PO Box 4410, Columbus, OH 43216\n"
            f"PAYER/BORROWER: {w.company}, {w.office}",
            f"Box 1 Mortgage interest received from payer/borrower: {money(round(oak.balance * 0.04125, 2))}\n"
            f"Box 2 Outstanding mortgage principal as of 1/1/2023: {money(oak.balance + 7790.12)}\n"
            "Box 3 Mortgage origination date: 05/01/2019\nBox 5 Mortgage insurance premiums: $0.00\n"
            f"Box 8 Address of property securing mortgage: {w.prop('oak').full_address}\nAccount number: {oak.number}",
            "The information in boxes 1 through 9 is important tax information and is being furnished to the IRS.",
        ], mono=True),
        "how much mortgage interest did we pay on the Oak Street loan in 2023 for taxes?",
    ))
    maple = next(ln for ln in loans_cache(w) if ln.prop == "maple")
    shortage = 1843.20
    docs.append(ask(
        SampleDoc("escrow-analysis-maple-2024", "pdf", "mortgage", "Escrow_Analysis_Maple_2024",
                  "Annual escrow account disclosure - 221 Maple Avenue", [
                      f"# {maple.lender}\nAnnual Escrow Account Disclosure Statement",
                      f"Loan number {maple.number}, property {w.prop('maple').full_address}. Review date: June 14, 2024.",
                      "Your escrow account pays the South Portland property tax and the hazard insurance premium. "
                      "Over the last year the property tax bill and the insurance premium both went up, so the "
                      f"account is short by {money(shortage)}.",
                      f"The shortage is spread over the next 12 payments ({money(shortage / 12)} a month). Together "
                      "with the higher projected disbursements, your escrow deposit rises from "
                      f"{money(maple.escrow)} to {money(maple.escrow + 221.75)} a month, beginning with the payment "
                      "due August 1, 2024. Principal and interest do not change.",
                  ]),
        "why is the mortgage payment on the fourplex going up in August?",
    ))
    return docs


def tax_bills(w: World) -> list[SampleDoc]:
    docs = []
    schedule = {
        "Portland": ("City of Portland, Maine", ("September 15, 2024", "March 15, 2025"), 2),
        "South Portland": ("City of South Portland", ("September 15, 2024", "November 15, 2024", "February 15, 2025",
                                                      "May 15, 2025"), 4),
        "Westbrook": ("City of Westbrook", ("September 15, 2024", "March 16, 2025"), 2),
    }
    for p in w.properties:
        town, dues, parts = schedule[p.city]
        value = p.assessed_land + p.assessed_building
        tax = round(value * p.mill_rate / 1000, 2)
        installments = "\n".join(f"Installment {i + 1} due {d}: {money(round(tax / parts, 2))}" for i, d in enumerate(dues))
        blocks = [
            f"# {town}\nReal Estate Tax Bill - Fiscal Year July 1, 2024 to June 30, 2025",
            f"Owner: {w.company}\nLocation: {p.full_address}\nMap/Lot (parcel): {p.parcel}",
            f"Land value              {money(p.assessed_land):>14}\nBuilding value          {money(p.assessed_building):>14}\n"
            f"Total assessed value    {money(value):>14}\nMill rate               {p.mill_rate:>11.2f} per $1,000\n"
            f"Total tax               {money(tax):>14}",
            installments,
            "Interest at 8.5% per year is charged on any installment not paid by its due date. Keep this bill for "
            "your records; a receipt is mailed only on request.",
        ]
        fmt = "scan" if p.key in ("maple", "birch") else "pdf"
        doc = SampleDoc(f"tax-bill-{p.key}-fy2025", fmt, "tax", f"Property_Tax_{p.key}_FY2025",
                        f"Property tax bill FY2025 - {p.street}", blocks, mono=True)
        doc.questions.append(f"what's the property tax bill on {p.nickname} for this fiscal year?")
        if p.key in ("maple", "birch", "forest"):
            doc.questions.append(f"when are the tax installments due for {p.street}?")
        if p.key == "cedar":
            doc.questions.append("what is the assessed value of the condo?")
        docs.append(doc)
    return docs


def forms_1099(w: World) -> list[SampleDoc]:
    rng = w.rng
    ein = f"47-{rng.randrange(1000000, 9999999)}"
    docs = []
    for key in ("plumber", "landscape", "snow", "painter"):
        v = w.vendors[key]
        paid = round(rng.randrange(2500, 14000) + rng.choice((0, 0.5)), 2)
        doc = SampleDoc(f"1099-nec-{key}-2023", "pdf", "tax", f"1099-NEC_2023_{key}", f"1099-NEC 2023 {v.name}", [
            "Form 1099-NEC  Nonemployee Compensation  Tax year 2023  (Copy B - For Recipient)",
            f"PAYER'S name and address: {w.company}, {w.office}\nPAYER'S TIN: {ein}",
            f"RECIPIENT'S TIN: {v.tin}\nRECIPIENT'S name: {v.name}\nStreet address: {v.address}",
            f"Box 1 Nonemployee compensation: {money(paid)}\nBox 4 Federal income tax withheld: $0.00\n"
            "Box 5 State tax withheld: $0.00\nBox 6 State/Payer's state no.: ME",
        ], mono=True)
        doc.questions.append(f"How much did we pay {v.name} in 2023 per the 1099?")
        if key == "snow":
            doc.questions.append("what's the taxpayer ID number for the snow plowing company?")
        docs.append(doc)
    docs.append(ask(
        SampleDoc("1099-int-2023", "scan", "tax", "1099-INT_2023_FirstHarbor", "1099-INT 2023 First Harbor Bank", [
            "Form 1099-INT  Interest Income  2023  Copy B for Recipient",
            f"PAYER: {w.bank}, 1 Monument Square, Portland, ME 04101\nRECIPIENT: {w.company}\nRECIPIENT'S TIN: {ein}",
            f"Box 1 Interest income: {money(round(48 + rng.random() * 40, 2))}\nBox 3 Interest on U.S. Savings Bonds "
            "and Treasury obligations: $0.00\nBox 4 Federal income tax withheld: $0.00",
            f"Accounts: business checking ending {w.account_last4}; security deposit escrow ending "
            f"{w.deposit_account_last4}.",
        ], mono=True),
        "how much interest income did the bank report for us for 2023?",
    ))
    return docs
