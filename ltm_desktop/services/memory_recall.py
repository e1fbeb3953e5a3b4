"""Reading memory: recall (hybrid: vectors + full text, fused like document search, reranked) and list.

Both page with opaque cursors and report `total` and `has_more`, so the model decides when it has enough.
Recall ranks chunks, then keeps each memory once, at the place of its best chunk.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime

from ltm_desktop.core.errors import InvalidInput
from ltm_desktop.core.memory import MemoryMatch, MemoryScope, MemoryView
from ltm_desktop.core.models import Caller, Candidate
from ltm_desktop.services import memory_rules as rules
from ltm_desktop.services.memory import MemoryService
from ltm_desktop.services.search import SearchTuning, fuse, make_snippet


@dataclass(frozen=True)
class MemoryItem:
    view: MemoryView
    text: str  # the whole content, or a snippet when it is longer than item_chars
    truncated: bool
    rerank_score: float | None = None
    cosine: float | None = None


@dataclass(frozen=True)
class MemoryPage:
    items: tuple[MemoryItem, ...]
    total: int
    has_more: bool
    next_cursor: str | None


def _candidate(m: MemoryMatch, dense_rank: int | None, lexical_rank: int | None) -> Candidate:
    return Candidate(m.chunk_id, m.text, m.context, m.cosine, lexical_rank, dense_rank)


def _item(view: MemoryView, best_text: str | None, query: str, limit: int, **scores: float | None) -> MemoryItem:
    content = view.current.content
    if len(content) <= limit:
        return MemoryItem(view, content, False, **scores)
    return MemoryItem(view, make_snippet(best_text or content[:limit], query, limit), True, **scores)


class MemoryReader:
    """Recall and list on top of a MemoryService (same store, models, clock and rules)."""

    def __init__(self, service: MemoryService) -> None:
        self._s = service

    def scope(self, caller: Caller, at: datetime, as_of: bool, **filters: object) -> MemoryScope:
        return MemoryScope(viewer=caller.client, sees_private_of_all=caller.is_owner, at=at, as_of=as_of, **filters)

    def recall(
        self,
        caller: Caller,
        query: str,
        type: str | None = None,
        tags: Sequence[str] | None = None,
        project: str | None = None,
        author: str | None = None,
        since: str | datetime | None = None,
        as_of: str | datetime | None = None,
        limit: int = 8,
        cursor: str | None = None,
    ) -> MemoryPage:
        """Memories that answer `query`, best first, as they stood now or at `as_of`."""
        s = self._s
        now = s.now()
        q = " ".join((query or "").split()) if isinstance(query, str) else ""
        if not q:
            raise InvalidInput("the query is empty: say what to recall")
        if len(q) > rules.MAX_QUERY_CHARS:
            raise InvalidInput(f"the query is {len(q)} characters; the limit is {rules.MAX_QUERY_CHARS}")
        limit = rules.check_limit(limit)
        at = rules.check_past(rules.parse_time(as_of, "as_of"), now, "as_of")
        filters = {
            "type": rules.check_filter_type(type), "tags": rules.check_tags(tags),
            "project": rules.check_optional(project, "project", rules.MAX_NAME_CHARS),
            "author": rules.check_optional(author, "author", rules.MAX_NAME_CHARS),
            "since": rules.parse_time(since, "since"),
        }
        fp = rules.fingerprint("recall", caller.client, q, sorted(filters.items()), at)
        offset = 0
        if cursor:
            offset = rules.decode_cursor(cursor, "recall", fp).get("o")
            if not isinstance(offset, int) or offset < 0:
                raise InvalidInput("the cursor is malformed: pass next_cursor exactly as returned")
        scope = self.scope(caller, at or now, at is not None, **filters)
        ranked, best, scores, cosines = self._rank(q, scope)
        if cursor and offset >= len(ranked):
            raise InvalidInput("the cursor points past the end of the results: start again without it")
        page_ids = ranked[offset : offset + limit]
        views = s.store.views(page_ids, scope)
        items = tuple(
            _item(views[i], best.get(i), q, s.tuning.item_chars, rerank_score=scores.get(i), cosine=cosines.get(i))
            for i in page_ids if i in views
        )
        more = offset + limit < len(ranked)
        return MemoryPage(items, len(ranked), more, rules.encode_cursor("recall", fp, {"o": offset + limit}) if more else None)

    def _rank(self, q: str, scope: MemoryScope) -> tuple[list[str], dict[str, str], dict[str, float], dict[str, float]]:
        """Memory ids best first, each memory's best passage, rerank scores and cosines."""
        s = self._s
        depth = s.tuning.depth
        vector = s.embedder.embed_query(q)
        dense = s.store.dense(vector, depth, scope)
        lexical = s.store.lexical(q, depth, scope)
        fused = fuse(
            [_candidate(m, i + 1, None) for i, m in enumerate(dense)],
            [_candidate(m, None, i + 1) for i, m in enumerate(lexical)],
            SearchTuning(),
        )
        by_chunk = {m.chunk_id: m for m in [*lexical, *dense]}
        order: list[str] = []
        best: dict[str, MemoryMatch] = {}
        for chunk_id, _ in fused:
            m = by_chunk[chunk_id]
            if m.memory_id not in best:
                best[m.memory_id] = m
                order.append(m.memory_id)
        chunk_cos = {m.chunk_id: m.cosine for m in dense if m.cosine is not None}
        missing = [best[i].chunk_id for i in order if best[i].chunk_id not in chunk_cos]
        chunk_cos.update(s.store.cosines(vector, missing))
        cosines = {i: round(chunk_cos[best[i].chunk_id], 4) for i in order if best[i].chunk_id in chunk_cos}
        scores: dict[str, float] = {}
        if s.reranker is not None and order:
            head = order[: s.tuning.rerank_candidates]
            passages = [f"{best[i].context}\n{best[i].text}" if best[i].context else best[i].text for i in head]
            scores = {i: round(x, 3) for i, x in zip(head, s.reranker.score(q, passages), strict=True)}
            order = sorted(head, key=lambda i: -scores[i]) + order[len(head) :]
        return order, {i: best[i].text for i in order}, scores, cosines

    def list(
        self,
        caller: Caller,
        project: str | None = None,
        type: str | None = None,
        limit: int = 20,
        cursor: str | None = None,
        namespace_without_project: bool = False,
    ) -> MemoryPage:
        """Newest first, no query."""
        s = self._s
        limit = rules.check_limit(limit)
        filters = {
            "type": rules.check_filter_type(type),
            "project": rules.check_optional(project, "project", rules.MAX_NAME_CHARS),
            "namespace_without_project": namespace_without_project,
        }
        fp = rules.fingerprint("list", caller.client, sorted(filters.items()))
        after = None
        if cursor:
            pos = rules.decode_cursor(cursor, "list", fp)
            when, key = pos.get("t"), pos.get("i")
            if not isinstance(when, str) or not isinstance(key, str):
                raise InvalidInput("the cursor is malformed: pass next_cursor exactly as returned")
            after = (rules.parse_time(when, "cursor"), key)
        scope = self.scope(caller, s.now(), False, **filters)
        views, total = s.store.newest(scope, limit + 1, after)
        more = len(views) > limit
        views = views[:limit]
        items = tuple(_item(v, None, "", s.tuning.item_chars) for v in views)
        nxt = None
        if more:
            last = views[-1]
            nxt = rules.encode_cursor("list", fp, {"t": last.current.created_at.isoformat(), "i": last.id})
        return MemoryPage(items, total, more, nxt)

    def namespace(self, caller: Caller, namespace: str, limit: int = 20) -> MemoryPage:
        """Recent memories of a project, or of `shared` (memories filed under no project)."""
        name = (namespace or "").strip()
        if not name:
            raise InvalidInput("namespace is empty: use a project name or 'shared'")
        if name == rules.SHARED_NAMESPACE:
            return self.list(caller, limit=limit, namespace_without_project=True)
        return self.list(caller, project=name, limit=limit)
