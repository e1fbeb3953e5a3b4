"""`ltm eval`: retrieval quality of every search mode, and how well the verdict flags unanswerable questions.

Each query runs four ways: dense-only, lexical-only, hybrid (fused) and hybrid+rerank. Rankings are
judged per document (a document's first chunk counts, later ones are skipped), as BEIR judges them.
The reranker only rescored the first `rerank_candidates` fused hits, so the hybrid+rerank ranking
continues with the rest of the hybrid list: Recall@50 then measures the same pipeline a user gets.
"""

from __future__ import annotations

import json
import os
import time
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Literal, Protocol

from ltm_desktop.core.confidence import Thresholds, verdict
from ltm_desktop.core.errors import InvalidInput
from ltm_desktop.core.models import Failed, Hit, IngestOutcome, SearchFilters, SearchResult
from ltm_desktop.services.eval_dataset import EvalDataset, EvalQuery
from ltm_desktop.services.eval_metrics import mrr_at, ndcg_at, percentile, recall_at, unique_in_order

Mode = Literal["dense", "lexical", "hybrid", "hybrid+rerank"]
MODES: tuple[Mode, ...] = ("dense", "lexical", "hybrid", "hybrid+rerank")
DEPTH = 50  # Recall@50 needs fifty results
VERDICT_K = 8  # the default k of `ltm search` and the MCP tool: the cosine verdict looks at these hits
TARGET_UNANSWERABLE_LOW = 0.80
TARGET_ANSWERABLE_LOW = 0.10


class Searcher(Protocol):
    def search(
        self, query: str, k: int = ..., filters: SearchFilters = ..., rerank: bool = ..., mode: str = ...
    ) -> SearchResult: ...


@dataclass(frozen=True)
class QueryRun:
    """One query's rankings (document ids, best first), latencies and best scores."""

    query_id: str
    text: str
    relevant: dict[str, int]
    ranked: dict[str, list[str]]
    latency_ms: dict[str, float]
    top_rerank: float | None
    top_cosine: float | None
    error: str | None = None
    rerank_scores: tuple[float, ...] = ()  # the best few reranker scores, for studying the verdict
    # The question's details that none of the best passages mentions, per scorer's search
    rerank_unmentioned: tuple[str, ...] = ()
    cosine_unmentioned: tuple[str, ...] = ()
    # The score each verdict rests on: the best score, or with details in the question the best leading passage's
    # that names them all (None: none does). Equal to top_rerank / top_cosine for most questions.
    rerank_evidence: float | None = None
    cosine_evidence: float | None = None


@dataclass(frozen=True)
class ModeScores:
    mode: str
    ndcg_10: float
    recall_10: float
    recall_50: float
    mrr_10: float
    latency_p50_ms: float
    latency_p95_ms: float


@dataclass(frozen=True)
class VerdictFigures:
    """How the verdict splits answerable from unanswerable questions for one scorer."""

    basis: Literal["rerank", "cosine"]
    medium_threshold: float
    unanswerable_flagged_low: float
    answerable_flagged_low: float
    unanswerable: int
    answerable: int
    meets_target: bool
    suggested_medium: float | None  # the highest threshold flagging <= 10% of answerable questions low on this set
    unanswerable_low_at_suggested: float | None
    # Results whose best score was not low, made low because no leading passage names the question's details
    unanswerable_low_by_details: int = 0
    answerable_low_by_details: int = 0


@dataclass(frozen=True)
class EvalReport:
    dataset: str
    documents: int
    queries: int
    answerable: int
    unanswerable: int
    modes: tuple[ModeScores, ...]
    verdicts: tuple[VerdictFigures, ...]
    ingest_seconds: float = 0.0
    failed_files: tuple[str, ...] = ()
    settings: dict[str, object] = field(default_factory=dict)
    runs: tuple[QueryRun, ...] = ()

    def mode(self, name: str) -> ModeScores:
        return next(m for m in self.modes if m.mode == name)


# ---- running queries -------------------------------------------------------------------------------


def _ranked_docs(hits: Iterable[Hit], doc_ids_of: Callable[[Hit], Sequence[str]]) -> list[str]:
    return unique_in_order([doc for h in hits for doc in doc_ids_of(h)])


def run_query(
    query: EvalQuery, searcher: Searcher, doc_ids_of: Callable[[Hit], Sequence[str]], modes: Sequence[Mode] = MODES
) -> QueryRun:
    """Search one query in every mode; a query the search refuses (too long, say) is recorded, not raised."""
    ranked: dict[str, list[str]] = {}
    latency: dict[str, float] = {}
    top_rerank = top_cosine = None
    head: tuple[float, ...] = ()
    unmentioned: dict[str, tuple[str, ...]] = {}
    evidence: dict[str, float | None] = {}
    hybrid_hits: tuple[Hit, ...] = ()
    try:
        for mode in modes:
            start = time.perf_counter()
            if mode == "hybrid+rerank":
                result = searcher.search(query.text, k=DEPTH, rerank=True, mode="hybrid")
            else:
                result = searcher.search(query.text, k=DEPTH, rerank=False, mode=mode)
            latency[mode] = (time.perf_counter() - start) * 1000
            if mode == "hybrid":
                hybrid_hits = result.hits
                cosines = [h.cosine for h in result.hits[:VERDICT_K] if h.cosine is not None]
                top_cosine = max(cosines) if cosines else None
                unmentioned["cosine"] = result.unmentioned_details
                # the search's own evidence is over all its hits; the verdict as `ltm search` gives it sees 8
                evidence["cosine"] = (None if result.verdict_score is None or top_cosine is None
                                      else min(top_cosine, result.verdict_score))
            if mode == "hybrid+rerank":
                scores = sorted((h.rerank_score for h in result.hits if h.rerank_score is not None), reverse=True)
                top_rerank = scores[0] if scores else None
                head = tuple(scores[:5])
                unmentioned["rerank"] = result.unmentioned_details
                evidence["rerank"] = result.verdict_score
                # The reranked head, then the fused tail the reranker never saw.
                ranked[mode] = unique_in_order(
                    _ranked_docs(result.hits, doc_ids_of) + _ranked_docs(hybrid_hits, doc_ids_of)
                )[:DEPTH]
            else:
                ranked[mode] = _ranked_docs(result.hits, doc_ids_of)
    except InvalidInput as e:
        return QueryRun(query.query_id, query.text, query.relevant, {}, {}, None, None, error=str(e))
    return QueryRun(query.query_id, query.text, query.relevant, ranked, latency, top_rerank, top_cosine, None, head,
                    unmentioned.get("rerank", ()), unmentioned.get("cosine", ()),
                    evidence.get("rerank"), evidence.get("cosine"))


# ---- scoring ---------------------------------------------------------------------------------------


def score_modes(runs: Sequence[QueryRun], modes: Sequence[Mode] = MODES) -> tuple[ModeScores, ...]:
    """Mean metrics over the answerable queries, per mode; latency percentiles over all queries."""
    answerable = [r for r in runs if r.relevant]
    out = []
    for mode in modes:
        def mean(metric: Callable[[list[str], dict[str, int]], float]) -> float:
            if not answerable:
                return 0.0
            return round(sum(metric(r.ranked.get(mode, []), r.relevant) for r in answerable) / len(answerable), 4)

        times = [r.latency_ms[mode] for r in runs if mode in r.latency_ms]
        out.append(
            ModeScores(
                mode=mode,
                ndcg_10=mean(lambda ranked, rel: ndcg_at(ranked, rel, 10)),
                recall_10=mean(lambda ranked, rel: recall_at(ranked, rel, 10)),
                recall_50=mean(lambda ranked, rel: recall_at(ranked, rel, 50)),
                mrr_10=mean(lambda ranked, rel: mrr_at(ranked, rel, 10)),
                latency_p50_ms=round(percentile(times, 50), 1),
                latency_p95_ms=round(percentile(times, 95), 1),
            )
        )
    return tuple(out)


Judged = tuple[float | None, float | None]  # a result's best score, and the score its verdict rests on


def share_low(results: Sequence[Judged], thresholds: Thresholds) -> float:
    """Share of results that earn a 'low' verdict."""
    if not results:
        return 0.0
    return round(sum(verdict(evidence, thresholds) == "low" for _, evidence in results) / len(results), 4)


def suggest_medium_threshold(
    answerable: Sequence[Judged],
    unanswerable: Sequence[Judged],
    max_answerable_low: float = TARGET_ANSWERABLE_LOW,
) -> float | None:
    """The highest 'medium' threshold that flags at most `max_answerable_low` of answerable results low.

    Higher thresholds flag more unanswerable questions, so the highest allowed one is the best trade;
    None when no scores exist. The value sits midway between neighbouring scores, so it is not tied to one.
    """
    known = sorted(evidence for _, evidence in answerable if evidence is not None)
    if not known or not unanswerable:
        return None
    missing = len(answerable) - len(known)  # no passage to rest on (nothing, or none naming the details): always low
    allowed = int(max_answerable_low * len(answerable) + 1e-9) - missing
    if allowed < 0:
        return None
    # Flag the `allowed` weakest answerable results low: the threshold sits just above them.
    if allowed == 0:
        return round(known[0] - 1e-3, 3)
    if allowed >= len(known):
        return round(known[-1] + 1e-3, 3)
    return round((known[allowed - 1] + known[allowed]) / 2, 3)


def verdict_figures(
    runs: Sequence[QueryRun], rerank_thresholds: Thresholds, cosine_thresholds: Thresholds
) -> tuple[VerdictFigures, ...]:
    out = []
    for basis, thresholds, attr in (
        ("rerank", rerank_thresholds, "top_rerank"),
        ("cosine", cosine_thresholds, "top_cosine"),
    ):
        def judged(r: QueryRun) -> Judged:
            return getattr(r, attr), getattr(r, f"{basis}_evidence")

        ans = [judged(r) for r in runs if r.relevant and not r.error]
        una = [judged(r) for r in runs if not r.relevant and not r.error]
        if basis == "rerank" and all(s is None for s, _ in ans + una):
            continue  # no reranker was run
        u_low, a_low = share_low(una, thresholds), share_low(ans, thresholds)
        suggested = suggest_medium_threshold(ans, una)
        at_suggested = None if suggested is None else share_low(una, Thresholds(max(suggested, thresholds.high), suggested))
        out.append(
            VerdictFigures(
                basis=basis,
                medium_threshold=thresholds.medium,
                unanswerable_flagged_low=u_low,
                answerable_flagged_low=a_low,
                unanswerable=len(una),
                answerable=len(ans),
                meets_target=bool(una) and u_low >= TARGET_UNANSWERABLE_LOW and a_low <= TARGET_ANSWERABLE_LOW,
                suggested_medium=suggested,
                unanswerable_low_at_suggested=at_suggested,
                unanswerable_low_by_details=_low_by_details(una, thresholds),
                answerable_low_by_details=_low_by_details(ans, thresholds),
            )
        )
    return tuple(out)


def _low_by_details(results: Sequence[Judged], thresholds: Thresholds) -> int:
    return sum(1 for best, evidence in results
               if verdict(best, thresholds) != "low" and verdict(evidence, thresholds) == "low")


def evaluate_queries(
    queries: Sequence[EvalQuery],
    searcher: Searcher,
    doc_ids_of: Callable[[Hit], Sequence[str]],
    rerank_thresholds: Thresholds,
    cosine_thresholds: Thresholds,
    progress: Callable[[int, int], None] | None = None,
    modes: Sequence[Mode] = MODES,
) -> tuple[tuple[ModeScores, ...], tuple[VerdictFigures, ...], tuple[QueryRun, ...]]:
    """Run every query in every mode and score the results."""
    runs = []
    for i, q in enumerate(queries, start=1):
        runs.append(run_query(q, searcher, doc_ids_of, modes))
        if progress:
            progress(i, len(queries))
    return score_modes(runs, modes), verdict_figures(runs, rerank_thresholds, cosine_thresholds), tuple(runs)


# ---- loading a dataset into a (throwaway) store ------------------------------------------------------


def stage_corpus(dataset: EvalDataset, work_dir: Path) -> dict[str, str]:
    """Files to ingest -> corpus id: a document's real file, or its text written out as a titled .txt file."""
    work_dir.mkdir(parents=True, exist_ok=True)
    paths: dict[str, str] = {}
    for n, doc in enumerate(dataset.docs):
        if doc.file is not None:
            paths[os.path.abspath(doc.file)] = doc.doc_id
            continue
        target = work_dir / f"{n:07d}.txt"
        # Frontmatter carries the title, which ingestion embeds with every chunk (as BEIR models see it).
        front = f"---\ntitle: {json.dumps(doc.title)}\n---\n" if doc.title.strip() else ""
        target.write_text(front + doc.text + "\n", encoding="utf-8")
        paths[os.path.abspath(target)] = doc.doc_id
    return paths


def doc_id_lookup(paths: dict[str, str]) -> Callable[[Hit], list[str]]:
    """Map a hit to the corpus ids of every file that holds its content (copies share one content)."""

    def lookup(hit: Hit) -> list[str]:
        return [paths[p] for p in (hit.path, *hit.also_at) if p in paths]

    return lookup


def ingest_dataset(
    dataset: EvalDataset,
    work_dir: Path,
    ingest: Callable[[list[Path]], list[IngestOutcome]],
) -> tuple[dict[str, str], float, tuple[str, ...]]:
    """Stage and ingest the corpus: (path -> corpus id, seconds taken, files that failed with the reason)."""
    paths = stage_corpus(dataset, work_dir)
    start = time.perf_counter()
    outcomes = ingest([Path(p) for p in paths])
    seconds = time.perf_counter() - start
    failed = tuple(f"{o.path}: {o.reason}" for o in outcomes if isinstance(o, Failed))
    return paths, round(seconds, 2), failed
