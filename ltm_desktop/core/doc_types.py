"""A small, fixed vocabulary of document types, guessed from the name and the first page.

Types let a person (or an AI) narrow a search ("only leases"); a frontmatter `doc_type:` overrides the guess.
Rules are ordered: the first that matches wins, so specific types come before general ones.
"""

import re

DOC_TYPES: dict[str, str] = {
    "lease": "leases, rental agreements, riders and renewals",
    "mortgage": "mortgage and loan statements, notes and agreements",
    "bank_statement": "bank and credit-card statements",
    "tax": "tax forms and bills: 1099, W-2, 1040, property tax",
    "insurance": "insurance policies, declarations and claims",
    "invoice": "invoices, bills and receipts from vendors",
    "inspection": "inspection and appraisal reports",
    "email": "e-mail messages",
    "note": "notes and Markdown/text files",
    "report": "other reports and letters",
    "document": "anything else",
}

_RULES: list[tuple[str, re.Pattern[str]]] = [
    ("lease", re.compile(r"\b(lease|tenant|landlord|rental agreement|rider)\b", re.I)),
    ("mortgage", re.compile(r"\b(mortgage|promissory note|loan (statement|agreement|number)|escrow)\b", re.I)),
    ("tax", re.compile(r"\b(1099|w-2|1040|property tax|tax bill|tax statement|irs|assessor)\b", re.I)),
    ("insurance", re.compile(r"\b(insurance|policy (number|period)|insured|claim (number|no))\b", re.I)),
    ("bank_statement", re.compile(r"\b(statement period|account statement|bank statement|beginning balance)\b", re.I)),
    ("invoice", re.compile(r"\b(invoice|amount due|bill to|receipt)\b", re.I)),
    ("inspection", re.compile(r"\b(inspection|inspector|appraisal)\b", re.I)),
]


def guess_doc_type(file_name: str, first_text: str, mime: str) -> str:
    """The type whose rule matches the file name or the start of the text; e-mail and notes by format."""
    if mime == "message/rfc822":
        return "email"
    head = first_text[:3000]
    for name, pattern in _RULES:
        if pattern.search(file_name.replace("_", " ").replace("-", " ")):
            return name
    for name, pattern in _RULES:
        if pattern.search(head):
            return name
    if mime in ("text/markdown", "text/plain"):
        return "note"
    return "document"
