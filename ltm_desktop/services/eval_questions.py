"""`ltm eval --on-my-documents`: questions made from the user's own passages, without any generative model.

A sampled passage becomes a question built from its rarest words (by how many indexed chunks hold them),
its names (capitalised runs of words) and a two-word key phrase; the passage's document is the judged
answer. Unanswerable questions are built from invented words, and kept only when the index holds none of
them, so "nothing here answers this" is checked, not assumed. Scores are a lower bound: another document
that also answers a question counts as a miss.
"""

from __future__ import annotations

import random
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Protocol

from ltm_desktop.core.confidence import Thresholds
from ltm_desktop.services.eval_dataset import EvalQuery
from ltm_desktop.services.evaluation import EvalReport, Searcher, evaluate_queries

MIN_PASSAGE_CHARS = 200
_WORD = re.compile(r"[A-Za-z][A-Za-z'-]{3,}")
_NAME = re.compile(r"(?<![.!?]\s)(?<!^)\b([A-Z][a-z]+(?:\s+[A-Z][a-z]+)+)")
_STOP = frozenset(
    "about above after again against also among another because been before being below between both could "
    "does doing down during each either ever every from further have having here hers herself himself into "
    "itself just more most much must myself once only other ought ours over same shall should some such than "
    "that their theirs them themselves then there these they this those through under until upon very were "
    "what when where which while whom whose will with within without would your yours page pages shall".split()
)
_SYLLABLES = ("zor", "vex", "quil", "bram", "thax", "plov", "druz", "keff", "morv", "snib", "yurt", "gwan")


class PassageSource(Protocol):
    def sample(self, n: int, seed: int, min_chars: int) -> list[tuple[int, str, str, tuple[str, ...]]]: ...

    def document_frequencies(self, terms: Sequence[str]) -> dict[str, int]: ...

    def counts(self) -> tuple[int, int]: ...


@dataclass(frozen=True)
class Passage:
    chunk_id: int
    text: str
    context: str
    paths: tuple[str, ...]


def candidate_terms(text: str) -> list[str]:
    """Distinct content words of a passage, lower-cased, in order of first appearance."""
    seen: dict[str, None] = {}
    for m in _WORD.finditer(text):
        w = m.group(0).lower().strip("'-")
        if len(w) >= 4 and w not in _STOP:
            seen.setdefault(w, None)
    return list(seen)


def names_in(text: str) -> list[str]:
    """Runs of capitalised words that do not start a sentence: people, companies, places."""
    return list(dict.fromkeys(m.group(1) for m in _NAME.finditer(" ".join(text.split()))))


def make_question(passage: Passage, df: dict[str, int], style: int) -> str | None:
    """One question for a passage, or None when it has too few distinctive words."""
    terms = [t for t in candidate_terms(passage.text) if df.get(t, 0) > 0]
    if len(terms) < 3:
        return None
    rare = sorted(terms, key=lambda t: (df[t], terms.index(t)))[:3]
    in_order = [t for t in terms if t in rare]
    if style == 0:
        return " ".join(in_order)
    if style == 1:
        names = names_in(passage.text)
        if names:
            return f"what does it say about {names[0]} and {rare[0]}?"
        return f"what about {in_order[0]} {in_order[1]}?"
    words = [w.lower() for w in _WORD.findall(passage.text)]
    pairs = [(a, b) for a, b in zip(words, words[1:]) if a not in _STOP and b not in _STOP and a in df and b in df]
    if not pairs:
        return " ".join(in_order)
    a, b = min(pairs, key=lambda p: df.get(p[0], 0) + df.get(p[1], 0))
    return f"where is the {a} {b} mentioned?"


def invented_questions(source: PassageSource, n: int, seed: int) -> list[str]:
    """Questions about made-up names; kept only if the index holds none of their words."""
    rng = random.Random(seed)
    out: list[str] = []
    for _ in range(n * 3):
        if len(out) >= n:
            break
        name = "".join(rng.choice(_SYLLABLES) for _ in range(2)).capitalize()
        thing = "".join(rng.choice(_SYLLABLES) for _ in range(3))
        words = [name.lower(), thing]
        if any(source.document_frequencies(words).values()):
            continue
        out.append(rng.choice((
            f"what did {name} charge for the {thing} work?",
            f"when is the {thing} renewal with {name} due?",
            f"who signed the {thing} agreement for {name}?",
        )))
    return out


def build_questions(source: PassageSource, n: int, seed: int) -> list[EvalQuery]:
    """n answerable questions from sampled passages, plus about one invented unanswerable one per four."""
    rows = source.sample(n * 2, seed, MIN_PASSAGE_CHARS)
    passages = [Passage(*r) for r in rows]
    df = source.document_frequencies(sorted({t for p in passages for t in candidate_terms(p.text)}))
    queries: list[EvalQuery] = []
    for i, p in enumerate(passages):
        if len(queries) >= n:
            break
        text = make_question(p, df, i % 3)
        if text and text.lower() not in {q.text.lower() for q in queries}:
            queries.append(EvalQuery(f"p{p.chunk_id}", text, {path: 1 for path in p.paths}))
    for j, text in enumerate(invented_questions(source, max(3, n // 4), seed)):
        queries.append(EvalQuery(f"u{j + 1:02d}", text, {}))
    return queries


def evaluate_own_documents(
    source: PassageSource,
    searcher: Searcher,
    n: int,
    seed: int,
    thresholds: tuple[Thresholds, Thresholds],
    progress: Callable[[int, int], None] | None = None,
) -> EvalReport:
    """The same metrics as `ltm eval DIR`, on questions drawn from the user's index (read-only).

    `thresholds` are the (reranker, cosine) verdict thresholds the searcher uses.
    """
    queries = build_questions(source, n, seed)
    documents, _ = source.counts()
    modes, verdicts, runs = evaluate_queries(
        queries, searcher, lambda hit: [hit.path, *hit.also_at],
        thresholds[0], thresholds[1], progress,
    )
    answerable = sum(1 for q in queries if q.relevant)
    return EvalReport(
        dataset="my-documents", documents=documents, queries=len(queries), answerable=answerable,
        unanswerable=len(queries) - answerable, modes=modes, verdicts=verdicts, runs=runs,
    )
