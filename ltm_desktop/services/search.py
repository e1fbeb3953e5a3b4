"""Hybrid search: vector and full-text candidates, fused, reranked by a cross-encoder, with a verdict.

The verdict judges the whole result by the absolute strength of its best passage (with a year, month, unit, amount
or street in the question: its best leading passage that names them), so a question the documents cannot answer
comes back "low" with advice to say so, rather than a confident wrong answer.
"""

from __future__ import annotations

import dataclasses
import re
from collections.abc import Sequence
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass
from typing import Literal

from ltm_desktop.core.confidence import ADVICE, COSINE_THRESHOLDS, RERANK_THRESHOLDS, Thresholds, verdict
from ltm_desktop.core.errors import InvalidInput
from ltm_desktop.core.models import Candidate, Hit, SearchFilters, SearchResult
from ltm_desktop.core.ports import Embedder, Reranker, SearchIndex, Vector
from ltm_desktop.core.question_details import details_of, is_mentioned

MAX_K = 50
MAX_QUERY_CHARS = 2000
MAX_CHECKED_WORDS = 30  # words of a question checked against the index (one probe each)
DETAIL_PASSAGES = 3  # best passages in which a question's year, month, unit, amount or street must appear
# The detail check reads the document's path and opening with each passage: a lease names its apartment and a
# statement its period in the first few hundred characters, often past the reranker's 300 (documents' openings in
# the sample corpus name them within 1,000).
DETAIL_LEAD_CHARS = 1000
MAX_LISTED_DETAILS = 10  # the output stays bounded whatever the question lists
SNIPPET_CHARS = 320
Fusion = Literal["rrf", "minmax"]


@dataclass(frozen=True)
class SearchTuning:
    depth: int = 50  # candidates from each retriever
    rerank_candidates: int = 20  # measured: as good as 40 on the sample set, at half the reranking time
    rrf_k: int = 60
    fusion: Fusion = "rrf"
    dense_weight: float = 1.0
    lexical_weight: float = 1.0
    # The reranker reads each passage after its document's opening (who, where, what kind of paper): a parking
    # rider that never names the tenant still answers "where does Lena park?". 300 characters: on the sample set
    # nDCG@10 0.822 -> 0.877 and the right document first 68% -> 78%, for 1.12x search time (bench/tune_retrieval.py
    # --stage lead / lead-latency; docs/retrieval.md). 0 turns it off.
    lead_chars: int = 300
    rerank_thresholds: Thresholds = RERANK_THRESHOLDS
    cosine_thresholds: Thresholds = COSINE_THRESHOLDS


_WORD = re.compile(r"\w+", re.UNICODE)
_STOP = frozenset(
    "a an and are as at be by do does did for from has have how i in is it its me my of on or our that the their "
    "there this to was were what when where which who why will with you your"
    # question words Postgres keeps but that say nothing about the topic (no "unmatched: much" in the advice)
    " much many get got go goes going us whose also ever still last next one would could should can may might".split()
)


def query_terms(query: str) -> list[str]:
    return [w for w in (m.group(0).lower() for m in _WORD.finditer(query)) if w not in _STOP and len(w) > 1]


def make_snippet(text: str, query: str, width: int = SNIPPET_CHARS) -> str:
    """The window of the chunk that holds the most query terms, cut at word boundaries."""
    flat = " ".join(text.split())
    if len(flat) <= width:
        return flat
    terms = query_terms(query)
    lower = flat.lower()
    best_start, best_score = 0, -1
    positions = sorted({m.start() for t in terms for m in re.finditer(re.escape(t), lower)})
    for pos in positions or [0]:
        start = max(0, pos - width // 4)
        window = lower[start : start + width]
        score = sum(1 for t in set(terms) if t in window)
        if score > best_score:
            best_start, best_score = start, score
    start = best_start
    if start > 0:
        space = flat.find(" ", start)
        start = space + 1 if 0 <= space < start + 30 else start
    end = min(len(flat), start + width)
    if end < len(flat):
        space = flat.rfind(" ", start, end)
        end = space if space > start + width // 2 else end
    return ("… " if start > 0 else "") + flat[start:end] + (" …" if end < len(flat) else "")


def rerank_passage(c: Candidate, lead: str, lead_chars: int) -> str:
    """What the cross-encoder reads: title and heading, the document's opening (cut at a word), the chunk."""
    if not lead.strip():
        return f"{c.context}\n{c.text}"
    if len(lead) >= lead_chars:  # it was cut: end it at a word
        cut = lead.rfind(" ")
        lead = (lead[:cut] if cut > 0 else lead) + " …"
    return f"{c.context}\n{' '.join(lead.split())}\n{c.text}"


def _fuse(dense: list[Candidate], lexical: list[Candidate], t: SearchTuning) -> list[tuple[int, float]]:
    """(chunk_id, fused score), best first. RRF by default; min-max score fusion as the measured alternative."""
    scores: dict[int, float] = {}
    if t.fusion == "rrf":
        for weight, ranked in ((t.dense_weight, dense), (t.lexical_weight, lexical)):
            for rank, c in enumerate(ranked, start=1):
                scores[c.chunk_id] = scores.get(c.chunk_id, 0.0) + weight / (t.rrf_k + rank)
    else:
        for weight, ranked in ((t.dense_weight, dense), (t.lexical_weight, lexical)):
            if not ranked:
                continue
            n = len(ranked)
            for rank, c in enumerate(ranked):
                # Ranks, not raw scores: ts_rank_cd has no fixed scale, and this keeps both lists on [0, 1].
                scores[c.chunk_id] = scores.get(c.chunk_id, 0.0) + weight * (1.0 - rank / n)
    return sorted(scores.items(), key=lambda kv: -kv[1])


# Public name: memory recall fuses its candidates exactly as document search does.
fuse = _fuse


class SearchService:
    def __init__(
        self,
        index: SearchIndex,
        embedder: Embedder,
        reranker: Reranker | None,
        tuning: SearchTuning = SearchTuning(),
    ) -> None:
        self._index = index
        self._embedder = embedder
        self._reranker = reranker
        self.tuning = tuning

    def validate(self, query: str, k: int, filters: SearchFilters) -> str:
        q = " ".join(query.split())
        if not q:
            raise InvalidInput("the query is empty: ask a question or give keywords")
        if len(q) > MAX_QUERY_CHARS:
            raise InvalidInput(f"the query is {len(q)} characters; the limit is {MAX_QUERY_CHARS}: shorten it to the question itself")
        if not 1 <= k <= MAX_K:
            raise InvalidInput(f"k must be between 1 and {MAX_K} (got {k})")
        if filters.doc_type is not None:
            known = self._index.doc_types()
            if filters.doc_type not in known:
                raise InvalidInput(
                    f"unknown doc_type {filters.doc_type!r}; types in the index: {', '.join(known) or 'none yet'}"
                )
        return q

    def search(
        self,
        query: str,
        k: int = 8,
        filters: SearchFilters = SearchFilters(),
        rerank: bool = True,
        mode: Literal["hybrid", "dense", "lexical"] = "hybrid",
    ) -> SearchResult:
        q = self.validate(query, k, filters)
        # The database work that does not need the query vector runs on a side thread while the question is
        # embedded and the rest proceeds: full text (hybrid mode), then the probe for words found in no document.
        words = list(dict.fromkeys(query_terms(q)))[:MAX_CHECKED_WORDS]
        with ThreadPoolExecutor(max_workers=1, thread_name_prefix="ltm-search-side") as side:
            full_text = side.submit(self._index.lexical, q, self.tuning.depth, filters) if mode == "hybrid" else None
            unmatched = side.submit(self._index.unmatched_terms, words)
            vector, dense, lexical = self._retrieve(q, filters, mode, full_text)
            result = self._rank_and_judge(q, k, filters, rerank, vector, dense, lexical)
            unmatched_words = tuple(unmatched.result())
        if not unmatched_words:
            return result
        advice = (f"{result.advice} Words of the question found in none of the user's documents: "
                  f"{', '.join(unmatched_words)}. If the question is about them, say the documents do not cover it.")
        return dataclasses.replace(result, advice=advice, unmatched_terms=unmatched_words)

    def _rank_and_judge(
        self, q: str, k: int, filters: SearchFilters, rerank: bool,
        vector: Vector | None, dense: list[Candidate], lexical: list[Candidate],
    ) -> SearchResult:
        t = self.tuning
        fused = _fuse(dense, lexical, t)
        by_id = {c.chunk_id: c for c in [*lexical, *dense]}
        cosine = {c.chunk_id: c.cosine for c in dense if c.cosine is not None}
        use_rerank = rerank and self._reranker is not None
        pool = fused[: t.rerank_candidates] if use_rerank else fused[: max(k * 3, k)]
        if vector is not None:
            missing = [cid for cid, _ in pool if cid not in cosine]
            cosine.update(self._index.cosines(vector, missing))
        rerank_scores: dict[int, float] = {}
        if use_rerank and pool:
            leads = self._index.leads([cid for cid, _ in pool], t.lead_chars) if t.lead_chars else {}
            passages = [rerank_passage(by_id[cid], leads.get(cid, ""), t.lead_chars) for cid, _ in pool]
            rerank_scores = dict(zip((cid for cid, _ in pool), self._reranker.score(q, passages), strict=True))
            pool = sorted(pool, key=lambda kv: -rerank_scores[kv[0]])
        fused_score = dict(fused)
        details = self._index.chunk_details([cid for cid, _ in pool], filters)
        hits: list[Hit] = []
        for cid, _ in pool:
            d = details.get(cid)
            if d is None:
                continue
            hits.append(
                Hit(
                    doc_id=d.doc_id, path=d.path, title=d.title, doc_type=d.doc_type,
                    page_from=d.page_from if d.paginated else None,
                    page_to=d.page_to if d.paginated else None,
                    heading=d.heading, snippet=make_snippet(d.text, q),
                    cosine=round(cosine[cid], 4) if cid in cosine else None,
                    rerank_score=round(rerank_scores[cid], 3) if cid in rerank_scores else None,
                    fused_score=round(fused_score.get(cid, 0.0), 5), chunk_id=cid, also_at=d.also_at,
                )
            )
            if len(hits) >= k:
                break
        return self._judge(q, hits, use_rerank, *self._detail_evidence(q, hits, by_id))

    def _detail_evidence(
        self, q: str, hits: Sequence[Hit], by_id: dict[int, Candidate]
    ) -> tuple[tuple[str, ...], Sequence[Hit]]:
        """The question's details that none of the best passages names, and the passages the verdict may rest on.

        Each of the best passages is read with its document's path and opening. Without details every hit may
        carry the verdict; with them, only a leading passage that names them all: Birch Lane's radon report scoring
        4.3 does not vouch for "the radon test at 14 Oak St" because an Oak Street furnace report ranks third.
        """
        details = details_of(q)
        if not hits or not details:  # most questions have none: no query
            return (), hits
        top = hits[:DETAIL_PASSAGES]
        openings = self._index.leads([h.chunk_id for h in top], DETAIL_LEAD_CHARS)
        missing = []
        for h in top:
            c = by_id[h.chunk_id]
            passage = f"{h.path}\n{c.context}\n{openings.get(h.chunk_id, '')}\n{c.text}"
            missing.append({d for d in details if not is_mentioned(d, passage)})
        unmentioned = tuple(d.label for d in details if all(d in m for m in missing))[:MAX_LISTED_DETAILS]
        return unmentioned, [h for h, m in zip(top, missing) if not m]

    def _retrieve(
        self, q: str, filters: SearchFilters, mode: str, full_text: Future[list[Candidate]] | None
    ) -> tuple[Vector | None, list[Candidate], list[Candidate]]:
        """The query vector and both candidate lists.

        In hybrid mode the full-text query (`full_text`, already running) has its own connection while the
        question is embedded and the vector query runs: both wait mostly on other processes' work (Postgres,
        onnxruntime) with the GIL released. On 2 busy cores it gained 0-8 ms at p50 against the sequential order, p95 within noise
        (bench/bench_search.py, docs/benchmarks.md); with a free core it takes the longer of the two, not their sum.
        """
        depth = self.tuning.depth
        if mode == "lexical":
            return None, [], self._index.lexical(q, depth, filters)
        if mode == "dense":
            vector = self._embedder.embed_query(q)
            return vector, self._index.dense(vector, depth, filters), []
        assert full_text is not None, "hybrid search starts the full-text query before embedding"
        vector = self._embedder.embed_query(q)
        dense = self._index.dense(vector, depth, filters)
        return vector, dense, full_text.result()

    def _judge(
        self, q: str, hits: Sequence[Hit], reranked: bool, unmentioned: tuple[str, ...], evidence: Sequence[Hit]
    ) -> SearchResult:
        if not hits:
            return SearchResult(q, "low", "none", "Nothing matched: the answer does not appear to be in the user's documents.", ())
        if reranked:
            score = max((h.rerank_score for h in evidence if h.rerank_score is not None), default=None)
            conf = verdict(score, self.tuning.rerank_thresholds)
            basis: Literal["rerank", "cosine"] = "rerank"
            advice = ADVICE[conf]
        else:
            score = max((h.cosine for h in evidence if h.cosine is not None), default=None)
            conf = verdict(score, self.tuning.cosine_thresholds)
            basis = "cosine"
            advice = ADVICE[conf] + " (Coarse verdict from vector similarity only: no reranker was used.)"
        if unmentioned:
            advice += (f" Details of the question that none of the best passages mentions: {', '.join(unmentioned)}."
                       " A passage about another year, month, unit, amount or street does not answer it: if no"
                       " passage has them, say the documents do not cover it.")
        elif not evidence:
            advice += (" None of the best passages names all of the question's details together (its year, month,"
                       " unit, amount or street): check that a passage is about exactly what was asked.")
        return SearchResult(q, conf, basis, advice, tuple(hits), unmentioned_details=unmentioned, verdict_score=score)
