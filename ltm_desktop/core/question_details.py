"""A question's fixed-form details (year, month, quarter, numbered unit or form, amount) and whether passages name them.

Why: the confident wrong answers measured on the sample corpus are passages about the right thing with one detail
wrong: "the rent on apartment 1" answered by apartment 2's lease, "total paid in 2023" by a 2024 invoice. A
cross-encoder scores those like answers (8.2 for the apartment that does not exist), because the passage is about
the right topic. Whether a passage names "2023" or "apartment 1" is a plain text fact, so this module checks it
with rules, not a model, and says which details none of the best passages mention.

Only details with a fixed written form are checked: a paraphrase-proof signal. Names are left out on purpose: a
person asks about "the Riccis" while the lease says "Lena Ricci", and unknown names are already reported by the
index-wide check of words found in no document. A street is the exception that proves the rule: "Oak St" has a
fixed form (name plus a street word, abbreviated or not), and a passage about 9 Birch Lane does not answer a
question about the radon test at 14 Oak Street, however well it scores.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

MONTHS = (
    "january", "february", "march", "april", "may", "june",
    "july", "august", "september", "october", "november", "december",
)
# "may" and "mar" are also ordinary words, so their short forms count only next to a number ("may 2024", "may 3").
_MONTH_ABBREVIATIONS = {m[:3]: m for m in MONTHS if m[:3] not in ("may", "mar")} | {"sept": "september"}

# Nouns that number a thing a person asks about, and the other ways documents write them.
_NUMBERED = {
    "apartment": ("apartment", "apt", "unit", "#"), "apt": ("apartment", "apt", "unit", "#"),
    "unit": ("unit", "apartment", "apt", "#"), "suite": ("suite", "ste"), "space": ("space", "spot"),
    "spot": ("spot", "space"), "lot": ("lot",), "box": ("box",), "line": ("line",), "check": ("check", "ck", "chk"),
    "invoice": ("invoice",), "form": ("form",), "building": ("building", "bldg"), "room": ("room",),
}
# Not "floor": documents write "second floor", so "floor 2" would be reported missing where it is not.
# A single letter is an id only for these ("unit B"); "line a" or "form a" are too often ordinary words.
_LETTER_IDS = frozenset({"apartment", "apt", "unit", "suite", "building"})

# Street words and their written forms. Not "place" or "way" ("darnell's place", "the same way"): too often prose.
_STREET_WORDS = {
    "street": ("street", "st", "str"), "avenue": ("avenue", "ave", "av"), "road": ("road", "rd"),
    "lane": ("lane", "ln"), "drive": ("drive", "dr"), "court": ("court", "ct", "crt"),
    "boulevard": ("boulevard", "blvd"), "terrace": ("terrace", "ter", "terr"), "circle": ("circle", "cir"),
}
# "dr" is left out of questions: "called dr smith" is a doctor, not Called Drive (passages still match "Elm Dr").
_STREET_FORMS = {form: word for word, forms in _STREET_WORDS.items() for form in forms if form != "dr"}
# Words before a street word that make an ordinary phrase, not an address: "the court", "housing court", "hard drive".
_NOT_STREET_NAMES = frozenset(
    "the a an this that these those our my your their his her its which what whose same one each every any no s on "
    "in at of to for from by with down up across off out near via and or but then "
    # "visit st paul": a saint, not Visit Street
    "visit visited visiting call called calling see saw met ask asked tell told "
    "housing claims small district county family superior supreme municipal probate bankruptcy federal state city "
    "traffic appeals tennis basketball food eviction landlord tenant divorce "
    "long short new old big other next last "  # "a long drive", "the next street over" (not "first": First St)
    "hard flash usb thumb test external google shared network disk "
    "fast slow bike memory turn left right passing".split()
)

_YEAR = re.compile(r"(?<!\d)((?:19|20)\d\d)(?!\d)")
_WORD = re.compile(r"[a-z]+")
_NUMBERED_IN_QUESTION = re.compile(
    r"\b(" + "|".join(_NUMBERED) + r")s?\b\.?\s*(?:#|no\.|number)?\s*(\d+[a-z]?|[a-z])\b", re.IGNORECASE
)
_ORDINALS = {"first": 1, "1st": 1, "second": 2, "2nd": 2, "third": 3, "3rd": 3, "fourth": 4, "4th": 4}
_QUARTER = re.compile(r"\bq([1-4])\b|\b(first|1st|second|2nd|third|3rd|fourth|4th) quarter\b")
_AMOUNT = re.compile(r"\$\s?(\d[\d,]*(?:\.\d{1,2})?)")
_NUMBER = re.compile(r"(?<![\d.])\d[\d,]*(?:\.\d+)?")
_SHORT_DATE = re.compile(r"(?<!\d)(\d{1,2})/(\d{1,2})/(\d{2}|\d{4})(?!\d)")
_STREET_IN_QUESTION = re.compile(r"\b([a-z][a-z']*)\s+(" + "|".join(_STREET_FORMS) + r")\b")
_PATH_SEPARATORS = re.compile(r"[-_/\\]+")


@dataclass(frozen=True)
class Detail:
    kind: str  # "year" | "month" | "quarter" | "numbered" | "amount" | "street"
    value: str  # normalised: "2023", "july", "1", "apartment 1", "1325", "oak street"
    label: str  # as the advice shows it: "2023", "July", "Q1", "apartment 1", "$1,325", "Oak Street"


def details_of(question: str) -> list[Detail]:
    """The question's years, months, quarters, numbered things, amounts and streets, once each, grouped by kind."""
    q = question.lower()
    found: dict[tuple[str, str], Detail] = {}

    def add(kind: str, value: str, label: str) -> None:
        found.setdefault((kind, value), Detail(kind, value, label))

    for m in _YEAR.finditer(q):
        add("year", m.group(1), m.group(1))
    for w in _WORD.findall(q):
        month = w if w in MONTHS and w != "may" else _MONTH_ABBREVIATIONS.get(w)
        if month is None and w in ("may", "mar"):
            month = _month_before_number(q, w)
        if month:
            add("month", month, month.capitalize())
    for digit, ordinal in _QUARTER.findall(q):
        quarter = digit or str(_ORDINALS[ordinal])
        add("quarter", quarter, f"Q{quarter}")
    for noun, ident in _NUMBERED_IN_QUESTION.findall(question):
        noun = noun.lower()
        # "which unit a tenant..." is not unit A: a lone lowercase a or i is a word, not an id
        if ident.isalpha() and (noun not in _LETTER_IDS or ident in ("a", "i")):
            continue
        canonical = "apartment" if noun == "apt" else noun
        ident = ident.lower()
        add("numbered", f"{canonical} {ident}", f"{canonical} {ident.upper() if ident.isalpha() else ident}")
    for m in _AMOUNT.finditer(question):
        add("amount", _number_value(m.group(1)), "$" + m.group(1))
    for name, form in _STREET_IN_QUESTION.findall(q):
        if name not in _NOT_STREET_NAMES and len(name) > 1:
            street = f"{name} {_STREET_FORMS[form]}"
            add("street", street, " ".join(w[:1].upper() + w[1:] for w in street.split()))
    return list(found.values())


def _month_before_number(q: str, word: str) -> str | None:
    return {"may": "may", "mar": "march"}[word] if re.search(rf"\b{word}\.?\s+\d", q) else None


def _number_value(text: str) -> str:
    """"1,325.00" and "1325" are the same amount."""
    value = float(text.replace(",", ""))
    return f"{value:.2f}".rstrip("0").rstrip(".")


def is_mentioned(detail: Detail, text: str) -> bool:
    """Whether the text names this detail, in any of the usual written forms."""
    t = text.lower()
    if detail.kind == "year":
        short = detail.value[2:]
        return bool(re.search(rf"(?<!\d){detail.value}(?!\d)", t)) or any(
            y == detail.value or y == short for _, _, y in _SHORT_DATE.findall(t))
    if detail.kind == "month":
        number = MONTHS.index(detail.value) + 1
        names = {detail.value, detail.value[:3]} | ({"sept"} if detail.value == "september" else set())
        return any(re.search(rf"\b{n}\b", t) for n in names) or any(
            int(m) == number for m, _, _ in _SHORT_DATE.findall(t))
    if detail.kind == "quarter":
        # "Q1", "first quarter", or any of its months: a statement for April 1 - June 30 is the second quarter's
        n = int(detail.value)
        named = any(f"{word} quarter" in t for word, i in _ORDINALS.items() if i == n)
        return named or bool(re.search(rf"\bq{n}\b", t)) or any(
            is_mentioned(Detail("month", m, m), t) for m in MONTHS[3 * (n - 1) : 3 * n])
    if detail.kind == "numbered":
        noun, ident = detail.value.split(" ", 1)
        forms = "|".join(re.escape(f) for f in _NUMBERED[noun])
        # "apartment 1", "apt. #1", "unit no. 1", and lists such as "units A and B" or "apartments 2, 3 and 4"
        return bool(re.search(
            rf"(?:{forms})s?\b\.?\s*(?:#|no\.|number)?\s*(?:\w{{1,6}}\s*(?:,|and|&)\s*)*{re.escape(ident)}\b(?!\.\d)", t))
    if detail.kind == "amount":
        return any(_number_value(n) == detail.value for n in _NUMBER.findall(t))
    if detail.kind == "street":
        # "Oak St.", "OAK STREET", and a path such as ".../14-oak-st/lease.pdf"; the house number is not required
        # (one building per street is the usual case, and a passage often names the street alone)
        name, word = detail.value.split(" ")
        forms = "|".join(_STREET_WORDS[word])
        return bool(re.search(rf"\b{re.escape(name)}\s+(?:{forms})\b", _PATH_SEPARATORS.sub(" ", t)))
    raise ValueError(f"unknown detail kind {detail.kind!r}")


def unmentioned_details(question: str, passages: Sequence[str]) -> list[Detail]:
    """The question's details that none of the passages names."""
    return [d for d in details_of(question) if not any(is_mentioned(d, p) for p in passages)]
