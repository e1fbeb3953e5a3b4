"""Memory results as JSON-ready dicts: one shape for the MCP tools, the resource and `ltm memory --json`."""

from __future__ import annotations

from typing import Any

from ltm_desktop.services.memory import MemoryDetail, Remembered, SessionPage
from ltm_desktop.services.memory_recall import MemoryItem, MemoryPage
from ltm_desktop.services.memory_transfer import iso_time, version_dict


def item_dict(item: MemoryItem) -> dict[str, Any]:
    v = item.view
    cur = v.current
    d: dict[str, Any] = {
        "id": v.id, "title": cur.title, "content": item.text, "truncated": item.truncated, "type": cur.type,
        "tags": list(cur.tags), "project": cur.project, "author": v.author, "visibility": cur.visibility,
        "confidence": cur.confidence, "version": cur.version, "created_at": iso_time(v.created_at),
        "updated_at": iso_time(cur.created_at), "expires_at": iso_time(cur.expires_at), "source": cur.source,
    }
    if item.rerank_score is not None or item.cosine is not None:
        d.update(rerank_score=item.rerank_score, cosine=item.cosine)
    return d


def page_dict(page: MemoryPage) -> dict[str, Any]:
    return {
        "items": [item_dict(i) for i in page.items], "total": page.total, "has_more": page.has_more,
        "next_cursor": page.next_cursor,
    }


def detail_dict(detail: MemoryDetail) -> dict[str, Any]:
    r = detail.record
    cur = r.current
    return {
        "id": r.id, "author": r.author, "status": detail.status, "created_at": iso_time(r.created_at),
        "forgotten_at": iso_time(r.forgotten_at), "restorable_until": iso_time(detail.restorable_until),
        "session_id": r.session_key, "current_version": cur.version, "title": cur.title, "content": cur.content,
        "type": cur.type, "tags": list(cur.tags), "project": cur.project, "visibility": cur.visibility,
        "confidence": cur.confidence, "expires_at": iso_time(cur.expires_at), "source": cur.source,
        "versions": [version_dict(v) for v in r.versions],
        "events": [{"kind": e.kind, "by_client": e.by_client, "transport": e.transport, "at": iso_time(e.at)} for e in r.events],
    }


def remembered_dict(r: Remembered) -> dict[str, Any]:
    return {"id": r.id, "status": r.status, "version": r.version, "similarity": r.similarity, "hint": r.hint}


def session_dict(p: SessionPage) -> dict[str, Any]:
    return {
        "session_id": p.session_id, "memory_id": p.memory_id, "version": p.version, "author": p.author,
        "saved_at": iso_time(p.saved_at), "content": p.content, "page": p.page, "page_size": p.page_size,
        "total_chars": p.total_chars, "total_pages": p.total_pages, "has_more": p.has_more,
    }
