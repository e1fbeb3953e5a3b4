"""`ltm memory add|search|list|show|update|forget|restore|export|import`: the shared memory from a terminal.

The terminal is the local owner: it may see and change every memory, and only it may export or import all.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

from ltm_desktop.core.errors import InvalidInput


def register(sub: argparse._SubParsersAction) -> None:
    memory = sub.add_parser("memory", help="the shared long-term memory every connected AI reads and writes")
    acts = memory.add_subparsers(dest="memory_command", metavar="ACTION")

    def fields(p: argparse.ArgumentParser, update: bool) -> None:
        p.add_argument("--title", default=None)
        p.add_argument("--type", default=None if update else "note", help="fact, preference, decision, task, event, "
                       "person, project, procedure or note")
        p.add_argument("--tag", action="append", default=None, dest="tags", help="a label (repeatable)")
        p.add_argument("--project", default=None)
        p.add_argument("--confidence", type=float, default=None if update else 0.8)
        p.add_argument("--expires", default=None, help="ISO time after which it is hidden, e.g. 2027-01-31")
        p.add_argument("--source", default=None, help="where it came from: a document id or path, or a URL")
        p.add_argument("--json", action="store_true")

    p = acts.add_parser("add", help="remember something (TEXT, or '-' to read it from stdin)")
    p.add_argument("text", nargs="?", default="-")
    p.add_argument("--private", action="store_true", help="visible to the local owner only")
    fields(p, update=False)
    p.set_defaults(handler=cmd_add)

    p = acts.add_parser("search", help="recall memories by meaning and keywords")
    p.add_argument("query", nargs="+")
    p.add_argument("--type", default=None)
    p.add_argument("--tag", action="append", default=None, dest="tags")
    p.add_argument("--project", default=None)
    p.add_argument("--author", default=None, help="only memories created by this client")
    p.add_argument("--since", default=None, help="only memories changed at or after this ISO time")
    p.add_argument("--as-of", default=None, help="as things stood at this past ISO time")
    p.add_argument("--limit", type=int, default=8)
    p.add_argument("--cursor", default=None)
    p.add_argument("--json", action="store_true")
    p.set_defaults(handler=cmd_search)

    p = acts.add_parser("list", help="newest memories first")
    p.add_argument("--project", default=None)
    p.add_argument("--type", default=None)
    p.add_argument("--limit", type=int, default=20)
    p.add_argument("--cursor", default=None)
    p.add_argument("--json", action="store_true")
    p.set_defaults(handler=cmd_list)

    p = acts.add_parser("show", help="one memory with its whole version history")
    p.add_argument("id")
    p.add_argument("--json", action="store_true")
    p.set_defaults(handler=cmd_show)

    p = acts.add_parser("update", help="write a new version of a memory (TEXT, or '-' for stdin)")
    p.add_argument("id")
    p.add_argument("text", nargs="?", default="-")
    p.add_argument("--visibility", choices=("shared", "private"), default=None)
    fields(p, update=True)
    p.set_defaults(handler=cmd_update)

    for name, helptext in (("forget", "hide a memory (restorable for 30 days, then purged)"),
                           ("restore", "bring back a forgotten memory")):
        p = acts.add_parser(name, help=helptext)
        p.add_argument("id")
        p.add_argument("--json", action="store_true")
        p.set_defaults(handler=cmd_forget if name == "forget" else cmd_restore)

    p = acts.add_parser("export", help="write every memory and version as JSON Lines or Markdown")
    p.add_argument("-o", "--output", type=Path, default=None, help="file to write (default: stdout)")
    p.add_argument("--format", choices=("jsonl", "markdown"), default=None, help="default: from the file name, else jsonl")
    p.set_defaults(handler=cmd_export)

    p = acts.add_parser("import", help="add memories from an export (ids already present are skipped)")
    p.add_argument("file", type=Path)
    p.add_argument("--format", choices=("jsonl", "markdown"), default=None, help="default: from the file name")
    p.add_argument("--json", action="store_true")
    p.set_defaults(handler=cmd_import)
    memory.set_defaults(handler=lambda args: (memory.print_help(), 2)[1])


def _container():
    from ltm_desktop.bootstrap import Container

    return Container()


def _text(value: str) -> str:
    return sys.stdin.read() if value == "-" else value


def _print(data: Any) -> None:
    json.dump(data, sys.stdout, indent=2, ensure_ascii=False)
    sys.stdout.write("\n")


def _print_item(d: dict[str, Any]) -> None:
    tags = f"  #{' #'.join(d['tags'])}" if d["tags"] else ""
    where = f"  [{d['project']}]" if d["project"] else ""
    score = f"  (rerank {d['rerank_score']:+.2f})" if d.get("rerank_score") is not None else ""
    print(f"{d['id']}  {d['type']}  v{d['version']}  by {d['author']}  {d['updated_at'][:19]}"
          f"{'  private' if d['visibility'] == 'private' else ''}{where}{tags}{score}")
    print("   " + (f"{d['title']}: " if d["title"] else "") + " ".join(d["content"].split())[:300])


def _print_page(page: dict[str, Any]) -> None:
    for d in page["items"]:
        _print_item(d)
    if not page["items"]:
        print("no memories")
    if page["next_cursor"]:
        print(f"\n{page['total']} in all; more with --cursor {page['next_cursor']}")


def cmd_add(args: argparse.Namespace) -> int:
    from ltm_desktop.core.models import LOCAL_OWNER
    from ltm_desktop.services.memory_views import remembered_dict

    c = _container()
    r = c.memory.remember(LOCAL_OWNER, _text(args.text), args.title, args.type, args.tags, args.project,
                          "private" if args.private else "shared", args.confidence, args.expires, args.source)
    d = remembered_dict(r)
    if args.json:
        _print(d)
    else:
        print(f"{d['id']}" if r.status == "created" else f"{d['id']} (not stored again: {d['hint']})")
    return 0


def cmd_search(args: argparse.Namespace) -> int:
    from ltm_desktop.core.models import LOCAL_OWNER
    from ltm_desktop.services.memory_views import page_dict

    c = _container()
    page = page_dict(c.memory_reader.recall(LOCAL_OWNER, " ".join(args.query), args.type, args.tags, args.project,
                                            args.author, args.since, args.as_of, args.limit, args.cursor))
    _print(page) if args.json else _print_page(page)
    return 0


def cmd_list(args: argparse.Namespace) -> int:
    from ltm_desktop.core.models import LOCAL_OWNER
    from ltm_desktop.services.memory_views import page_dict

    c = _container()
    page = page_dict(c.memory_reader.list(LOCAL_OWNER, args.project, args.type, args.limit, args.cursor))
    _print(page) if args.json else _print_page(page)
    return 0


def _print_detail(d: dict[str, Any]) -> None:
    state = d["status"] + (f" (restorable until {d['restorable_until'][:19]})" if d["restorable_until"] else "")
    print(f"{d['id']}  {d['type']}  by {d['author']}  {state}  {d['visibility']}")
    for v in d["versions"]:
        extra = ", ".join(f"{k} {v[k]}" for k in ("project", "source", "expires_at") if v[k])
        print(f"\n-- version {v['version']}  {v['created_at'][:19]}  by {v['author']} over {v['transport']}"
              + (f"  ({extra})" if extra else ""))
        print(v["content"])
    for e in d["events"]:
        print(f"\n-- {e['kind']}  {e['at'][:19]}  by {e['by_client']}")


def cmd_show(args: argparse.Namespace) -> int:
    from ltm_desktop.core.models import LOCAL_OWNER
    from ltm_desktop.services.memory_views import detail_dict

    d = detail_dict(_container().memory.get(LOCAL_OWNER, args.id))
    _print(d) if args.json else _print_detail(d)
    return 0


def cmd_update(args: argparse.Namespace) -> int:
    from ltm_desktop.core.models import LOCAL_OWNER

    c = _container()
    v = c.memory.update(LOCAL_OWNER, args.id, _text(args.text), args.title, args.type, args.tags, args.project,
                        args.visibility, args.confidence, args.expires, args.source)
    _print({"id": args.id, "version": v.version}) if args.json else print(f"{args.id} is now at version {v.version}")
    return 0


def _tombstone(args: argparse.Namespace, forget: bool) -> int:
    from ltm_desktop.core.models import LOCAL_OWNER
    from ltm_desktop.services.memory_views import detail_dict

    c = _container()
    d = detail_dict((c.memory.forget if forget else c.memory.restore)(LOCAL_OWNER, args.id))
    if args.json:
        _print(d)
    elif d["status"] == "forgotten":
        print(f"{d['id']} forgotten; `ltm memory restore {d['id']}` brings it back until {d['restorable_until'][:10]}")
    else:
        print(f"{d['id']} is {d['status']}")
    return 0


def cmd_forget(args: argparse.Namespace) -> int:
    return _tombstone(args, forget=True)


def cmd_restore(args: argparse.Namespace) -> int:
    return _tombstone(args, forget=False)


def _format(path: Path | None, given: str | None) -> str:
    if given:
        return given
    return "markdown" if path is not None and path.suffix.lower() in (".md", ".markdown") else "jsonl"


def cmd_export(args: argparse.Namespace) -> int:
    from ltm_desktop.core.models import LOCAL_OWNER
    from ltm_desktop.services import memory_transfer as transfer

    c = _container()
    writer = transfer.to_markdown if _format(args.output, args.format) == "markdown" else transfer.to_jsonl
    count = 0

    def counted():
        nonlocal count
        for r in transfer.export_records(c.memory, LOCAL_OWNER):
            count += 1
            yield r

    if args.output is None:
        for piece in writer(counted()):
            sys.stdout.write(piece)
        return 0
    tmp = args.output.with_name(args.output.name + ".tmp")
    with open(tmp, "w", encoding="utf-8", newline="") as f:  # newline="": content keeps its own line ends
        for piece in writer(counted()):
            f.write(piece)
    tmp.replace(args.output)
    print(f"exported {count} memories to {args.output}", file=sys.stderr)
    return 0


def cmd_import(args: argparse.Namespace) -> int:
    from ltm_desktop.core.models import LOCAL_OWNER
    from ltm_desktop.services import memory_transfer as transfer

    try:
        with open(args.file, encoding="utf-8", newline="") as f:
            text = f.read()
    except (OSError, UnicodeDecodeError) as e:
        raise InvalidInput(f"cannot read {args.file}: {e}") from None
    reader = transfer.from_markdown if _format(args.file, args.format) == "markdown" else transfer.from_jsonl
    records = list(reader(text))  # parse everything first: a bad line imports nothing
    report = transfer.import_records(_container().memory, LOCAL_OWNER, records)
    if args.json:
        _print({"imported": report.imported, "versions": report.versions, "skipped": list(report.skipped)})
    else:
        print(f"imported {report.imported} memories ({report.versions} versions); skipped {len(report.skipped)}")
        for s in report.skipped[:20]:
            print(f"  skipped {s}")
    return 0
