"""ingest, search, get, stats: the document index from a terminal."""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from ltm_desktop.cli.output import print_document, print_json, print_search, search_json, to_jsonable
from ltm_desktop.cli.progress import ProgressBar
from ltm_desktop.core.models import Failed, Ingested, Repointed, SearchFilters, Skipped, Unchanged


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("ingest", help="index files and folders (recursively)")
    p.add_argument("paths", nargs="+", type=Path, metavar="PATH")
    p.add_argument("--json", action="store_true", help="print a JSON summary")
    p.add_argument("--ignore", action="append", default=[], metavar="GLOB", help="skip files matching GLOB")
    p.add_argument("--workers", type=int, default=None, help="extraction processes (default: cores - 1)")
    p.set_defaults(handler=cmd_ingest)

    p = sub.add_parser("search", help="search your documents")
    p.add_argument("query", nargs="+")
    p.add_argument("-k", type=int, default=8, help="number of hits (1-50)")
    p.add_argument("--no-rerank", action="store_true", help="skip the cross-encoder (faster, coarser verdict)")
    p.add_argument("--doc-type", default=None)
    p.add_argument("--path-contains", default=None)
    p.add_argument("--json", action="store_true")
    p.set_defaults(handler=cmd_search)

    p = sub.add_parser("get", help="print a document's text from the index")
    p.add_argument("path_or_id")
    p.add_argument("--pages", default=None, help="e.g. 3 or 3-5")
    p.add_argument("--max-chars", type=int, default=20_000)
    p.add_argument("--offset", type=int, default=0)
    p.add_argument("--json", action="store_true")
    p.set_defaults(handler=cmd_get)

    p = sub.add_parser("stats", help="what is indexed, what failed, and the model in use")
    p.add_argument("--json", action="store_true")
    p.set_defaults(handler=cmd_stats)


def _container():
    from ltm_desktop.bootstrap import Container

    return Container()


def cmd_ingest(args: argparse.Namespace) -> int:
    import dataclasses

    from ltm_desktop.services.ingest import IngestLimits

    missing = [str(p) for p in args.paths if not p.exists()]
    if missing:
        print(f"ltm: no such file or folder: {', '.join(missing)}", file=sys.stderr)
        return 1
    c = _container()
    if args.workers is not None:
        c.settings = dataclasses.replace(c.settings, ingest_workers=max(1, args.workers))
    bar = ProgressBar("indexing", enabled=None if not args.json else False)
    outcomes = c.ingest.ingest_paths(args.paths, lambda d, t, o: bar.update(d, t, Path(o.path).name), args.ignore)
    bar.close()
    summary = {
        "ingested": sum(isinstance(o, Ingested) for o in outcomes),
        "unchanged": sum(isinstance(o, Unchanged) for o in outcomes),
        "repointed": sum(isinstance(o, Repointed) for o in outcomes),
        "skipped": sum(isinstance(o, Skipped) for o in outcomes),
        "failed": [{"path": o.path, "error": o.reason} for o in outcomes if isinstance(o, Failed)],
        "skipped_files": [{"path": o.path, "reason": o.reason} for o in outcomes if isinstance(o, Skipped)],
        "chunks": sum(o.chunks for o in outcomes if isinstance(o, Ingested)),
        "pages": sum(o.pages for o in outcomes if isinstance(o, Ingested)),
        "ocr_pages": sum(o.ocr_pages for o in outcomes if isinstance(o, Ingested)),
    }
    if args.json:
        print(json.dumps(summary, indent=2, ensure_ascii=False))
    else:
        print(
            f"{summary['ingested']} ingested ({summary['pages']} pages, {summary['ocr_pages']} OCR'd, "
            f"{summary['chunks']} chunks), {summary['unchanged']} unchanged, {summary['repointed']} moved or copied, "
            f"{summary['skipped']} skipped, {len(summary['failed'])} failed"
        )
        for f in summary["failed"]:
            print(f"  failed: {f['path']}: {f['error']}")
        for s in summary["skipped_files"]:
            if s["reason"] != "temporary or system file":
                print(f"  skipped: {s['path']}: {s['reason']}")
    c.close()
    return 1 if summary["failed"] else 0


def cmd_search(args: argparse.Namespace) -> int:
    c = _container()
    result = c.search.search(
        " ".join(args.query), k=args.k, filters=SearchFilters(args.doc_type, args.path_contains), rerank=not args.no_rerank
    )
    if args.json:
        print(json.dumps(search_json(result), indent=2, ensure_ascii=False))
    else:
        print_search(result)
    return 0


def cmd_get(args: argparse.Namespace) -> int:
    c = _container()
    doc = c.documents.read(args.path_or_id, args.pages, args.max_chars, args.offset)
    if args.json:
        print_json(doc)
    else:
        print_document(doc)
    return 0


def cmd_stats(args: argparse.Namespace) -> int:
    c = _container()
    stats = dict(c.search_index.stats())
    stats["issues"] = to_jsonable(c.search_index.issues(200))
    from ltm_desktop.cli.commands_serve import activity_lines, recent_activity

    stats["mcp_activity"] = recent_activity(c)
    if args.json:
        print_json(stats)
        return 0
    print(f"documents: {stats['documents']}  (" + ", ".join(f"{k} {v}" for k, v in stats["documents_by_type"].items()) + ")")
    print(f"pages: {stats['pages']} ({stats['ocr_pages']} OCR'd, {stats['low_confidence_ocr_pages']} with low OCR confidence)")
    print(f"chunks: {stats['chunks']}, embedded: {stats['embedded_chunks']} ({stats['embedding_coverage']:.1%}); HNSW index: {'yes' if stats['hnsw_index'] else 'no'}")
    pin = stats["model_pin"]
    print(f"model: {pin['model_id']} ({pin['dim']}-d)" if pin else "model: none pinned yet")
    print(f"database size: {stats['database_bytes'] / 1e6:.1f} MB")
    print(f"failed files: {stats['failed_files']}, skipped with a reason: {stats['skipped_files']}, warnings: {stats['warnings']}")
    for issue in stats["issues"][:20]:
        print(f"  {issue['kind']}: {issue['path']}: {issue['reason']}")
    for line in activity_lines(stats["mcp_activity"]):
        print(line)
    return 0
