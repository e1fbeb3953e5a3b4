"""Assemble the sample corpus: every document, every question, and the BEIR files that tie them together."""

from __future__ import annotations

import json
from pathlib import Path

from ltm_desktop.sample_corpus import docs_leases, docs_messages, docs_money, docs_property
from ltm_desktop.sample_corpus.model import Question, SampleDoc
from ltm_desktop.sample_corpus.world import build_world
from ltm_desktop.sample_corpus.writers import write_document

# Questions the corpus cannot answer. Most sit close to what it does hold (another property, a policy we
# don't have), because those are the ones a search engine is tempted to answer confidently and wrongly.
UNANSWERABLE = (
    "What is the Wi-Fi password at the Birch Lane house?",
    "when was the septic tank at Birch Lane last pumped",
    "How much did we pay to replace the water heater at the Cedar Court condo?",
    "what's the warranty on the solar panels at Forest Avenue?",
    "who lives in apartment 5 at Maple Avenue?",
    "How much is the flood insurance premium for Birch Lane?",
    "what did the 2019 appraisal say the Oak Street duplex was worth",
    "what is our workers' compensation policy number?",
    "how much did the electrician charge to put in EV chargers at Maple?",
    "What is the monthly HOA fee for 9 Birch Lane?",
    "which tenant has a waterbed",
    "what nightly rate do we charge when the Cedar Court condo is on Airbnb?",
    "when does the bakery's health department license expire?",
    "How big was the gas bill for the Maple Avenue boiler in January?",
    "who did the asbestos survey at 1300 Forest Avenue?",
    "when is the elevator inspection due at Forest Avenue?",
    "did the Oak Street tenants buy renters insurance from Lemonade?",
    "What's a good recipe for blueberry pie?",
    "who won the Super Bowl in 2019",
    "What time does the ferry to Peaks Island leave on Sundays?",
    "how do I reset my iPhone passcode",
    "When is my next dentist appointment?",
    "what's the weather going to be in Portland this weekend",
    "How many calories are in a croissant?",
    "what time is my daughter's soccer practice on Thursday?",
)


def assemble(seed: int) -> tuple[list[SampleDoc], list[Question]]:
    """All documents and questions for a seed, in a fixed order."""
    w = build_world(seed)
    docs: list[SampleDoc] = []
    cross: list[Question] = []
    leases, q = docs_leases.lease_documents(w)
    docs += leases
    cross += q
    invoices, payments = docs_property.invoices(w)
    bank, q = docs_money.bank_statements(w, payments)
    docs += bank + [docs_money.deposit_escrow(w)] + docs_money.mortgage_documents(w)
    docs += docs_money.tax_bills(w) + docs_money.forms_1099(w) + invoices + docs_property.inspections(w)
    cross += q
    policies, q = docs_property.insurance(w)
    docs += policies
    cross += q
    mails, q = docs_messages.emails(w)
    docs += mails
    cross += q
    docs += docs_messages.notes(w)
    letters, q = docs_messages.letters(w)
    docs += letters
    cross += q
    questions = [Question(text, {d.doc_id: 2}) for d in docs for text in d.questions]
    questions += cross
    questions += [Question(text, {}) for text in UNANSWERABLE]
    _check(docs, questions)
    return docs, questions


def _check(docs: list[SampleDoc], questions: list[Question]) -> None:
    ids = [d.doc_id for d in docs]
    dupes = {i for i in ids if ids.count(i) > 1}
    if dupes:
        raise ValueError(f"duplicate document ids: {sorted(dupes)}")
    known = set(ids)
    for q in questions:
        unknown = set(q.relevant) - known
        if unknown:
            raise ValueError(f"question {q.text!r} judges unknown documents {sorted(unknown)}")
    texts = [q.text.lower() for q in questions]
    if len(set(texts)) != len(texts):
        raise ValueError("two questions have the same text")


def _jsonl(rows: list[dict]) -> str:
    return "".join(json.dumps(r, ensure_ascii=False) + "\n" for r in rows)


def generate(out: Path, seed: int) -> tuple[int, int]:
    """Write the corpus into `out` (files/, corpus.jsonl, queries.jsonl, qrels/test.tsv); returns (documents, questions)."""
    docs, questions = assemble(seed)
    out.mkdir(parents=True, exist_ok=True)
    for d in docs:
        write_document(d, out)
    (out / "corpus.jsonl").write_text(
        _jsonl([{"_id": d.doc_id, "title": d.title, "text": d.text, "file": d.rel_path, "format": d.fmt} for d in docs]),
        encoding="utf-8",
    )
    answerable = [q for q in questions if q.relevant]
    unanswerable = [q for q in questions if not q.relevant]
    ids = [f"q{n:03d}" for n in range(1, len(answerable) + 1)] + [f"u{n:02d}" for n in range(1, len(unanswerable) + 1)]
    ordered = answerable + unanswerable
    (out / "queries.jsonl").write_text(_jsonl([{"_id": i, "text": q.text} for i, q in zip(ids, ordered)]), encoding="utf-8")
    lines = ["query-id\tcorpus-id\tscore"]
    for qid, q in zip(ids, answerable):
        lines += [f"{qid}\t{doc}\t{grade}" for doc, grade in q.relevant.items()]
    (out / "qrels").mkdir(exist_ok=True)
    (out / "qrels" / "test.tsv").write_text("\n".join(lines) + "\n", encoding="utf-8")
    return len(docs), len(questions)
