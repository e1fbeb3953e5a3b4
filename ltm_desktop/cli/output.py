"""Turning domain values into JSON and into lines a person reads."""

from __future__ import annotations

import dataclasses
import json
import sys
from typing import Any

from ltm_desktop.core.models import DocumentText, Hit, SearchResult


def to_jsonable(value: Any) -> Any:
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return {k: to_jsonable(v) for k, v in dataclasses.asdict(value).items()}
    if isinstance(value, (list, tuple)):
        return [to_jsonable(v) for v in value]
    if isinstance(value, dict):
        return {str(k): to_jsonable(v) for k, v in value.items()}
    return value


def print_json(value: Any) -> None:
    json.dump(to_jsonable(value), sys.stdout, indent=2, ensure_ascii=False, default=str)
    sys.stdout.write("\n")


def hit_json(hit: Hit) -> dict[str, Any]:
    d = to_jsonable(hit)
    d["page"] = None if hit.page_from is None else (
        hit.page_from if hit.page_from == hit.page_to else f"{hit.page_from}-{hit.page_to}"
    )
    d["also_at"] = list(hit.also_at)
    return d


def search_json(result: SearchResult) -> dict[str, Any]:
    return {
        "query": result.query,
        "confidence": result.confidence,
        "confidence_basis": result.confidence_basis,
        "advice": result.advice,
        "hits": [hit_json(h) for h in result.hits],
        "unmatched_terms": list(result.unmatched_terms),
        "unmentioned_details": list(result.unmentioned_details),
        "verdict_score": result.verdict_score,
    }


def citation(hit: Hit) -> str:
    if hit.page_from is None:
        return hit.path
    pages = f"p. {hit.page_from}" if hit.page_from == hit.page_to else f"pp. {hit.page_from}-{hit.page_to}"
    return f"{hit.path}, {pages}"


def print_search(result: SearchResult) -> None:
    label = {"rerank": "reranker", "cosine": "vector similarity only", "none": "no matches"}[result.confidence_basis]
    print(f"confidence: {result.confidence} ({label}) - {result.advice}")
    for i, h in enumerate(result.hits, 1):
        scores = [f"rerank {h.rerank_score:+.2f}" if h.rerank_score is not None else "",
                  f"cosine {h.cosine:.3f}" if h.cosine is not None else ""]
        print(f"\n{i}. {h.title}  [{h.doc_type}]  (doc {h.doc_id}; {', '.join(s for s in scores if s)})")
        print(f"   {citation(h)}" + (f"  §{h.heading}" if h.heading else ""))
        print(f"   {h.snippet}")


def print_document(doc: DocumentText) -> None:
    i = doc.info
    pages = f", pages {doc.pages[0]}-{doc.pages[1]} of {i.page_count}" if doc.pages else ""
    print(f"# {i.title}  (doc {i.doc_id}, {i.doc_type}, {i.mime}{pages})\n# {i.path}\n")
    print(doc.text)
    if doc.next_offset is not None:
        print(f"\n[cut at {doc.next_offset} of {doc.total_chars} characters; continue with --offset {doc.next_offset}]")
