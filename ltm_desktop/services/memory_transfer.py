"""Memory out and in as plain text: JSON Lines and Markdown, each holding every memory and every version.

Both formats carry the full history (versions with provenance, forget/restore events, tombstones), so an
export imported into an empty store reproduces it exactly; vectors are not exported, import re-embeds.
Markdown keeps each version's content in a fence longer than any backtick run inside it, so any text
(even text holding Markdown fences) round-trips byte for byte.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from ltm_desktop.core.errors import InvalidInput
from ltm_desktop.core.memory import (
    MEMORY_TYPES,
    MemoryEvent,
    MemoryRecord,
    MemoryVersion,
)
from ltm_desktop.core.models import Caller
from ltm_desktop.services import memory_rules as rules
from ltm_desktop.services.memory import MemoryService

FORMAT = "ltm-memory/1"
_MD_MARKER = f"<!-- {FORMAT}: every memory and every version; read back with `ltm memory import` -->"
_VERSION_FIELDS = (
    "version", "supersedes", "title", "type", "tags", "project", "visibility", "confidence", "expires_at",
    "source", "author", "transport", "created_at",
)


@dataclass(frozen=True)
class ImportReport:
    imported: int
    versions: int
    skipped: tuple[str, ...]  # "id: reason"


def iso_time(value: datetime | None) -> str | None:
    return value.isoformat() if value is not None else None


def version_dict(v: MemoryVersion) -> dict[str, Any]:
    d = {f: getattr(v, f) for f in _VERSION_FIELDS}
    d.update(tags=list(v.tags), expires_at=iso_time(v.expires_at), created_at=iso_time(v.created_at), content=v.content)
    return d


def record_dict(r: MemoryRecord) -> dict[str, Any]:
    return {
        "format": FORMAT, "id": r.id, "author": r.author, "created_at": iso_time(r.created_at),
        "session_key": r.session_key, "forgotten_at": iso_time(r.forgotten_at),
        "versions": [version_dict(v) for v in r.versions],
        "events": [{"kind": e.kind, "by_client": e.by_client, "transport": e.transport, "at": iso_time(e.at)} for e in r.events],
    }


def _time(d: dict[str, Any], key: str, required: bool = True) -> datetime | None:
    value = d.get(key)
    if value is None and not required:
        return None
    if not isinstance(value, str):
        raise InvalidInput(f"{key} must be an ISO 8601 time")
    return rules.parse_time(value, key)


def record_from_dict(d: Any) -> MemoryRecord:
    """Validate and rebuild one exported memory; InvalidInput names what is wrong."""
    if not isinstance(d, dict) or d.get("format") != FORMAT:
        raise InvalidInput(f"not an LTM memory record (expected format {FORMAT!r})")
    try:
        versions = []
        for v in d["versions"]:
            if v["type"] not in MEMORY_TYPES:
                raise InvalidInput(f"unknown memory type {v['type']!r}")
            cap = rules.MAX_SESSION_CHARS if v["type"] == "session" else rules.MAX_CONTENT_CHARS
            versions.append(MemoryVersion(
                version=int(v["version"]), supersedes=v["supersedes"],
                content=rules.check_text(v["content"], "content", cap), title=v["title"], type=v["type"],
                tags=tuple(v["tags"]), project=v["project"], visibility=rules.check_visibility(v["visibility"]),
                confidence=rules.check_confidence(v["confidence"]), expires_at=_time(v, "expires_at", False),
                source=v["source"], author=str(v["author"]), transport=str(v["transport"]),
                created_at=_time(v, "created_at"),
            ))
        events = tuple(
            MemoryEvent(e["kind"], str(e["by_client"]), str(e["transport"]), _time(e, "at")) for e in d["events"]
        )
        if [v.version for v in versions] != list(range(1, len(versions) + 1)) or any(
            e.kind not in ("forget", "restore") for e in events
        ):
            raise InvalidInput("versions must be numbered 1, 2, ... and events be forget or restore")
        return MemoryRecord(
            id=str(d["id"]), author=str(d["author"]), created_at=_time(d, "created_at"),
            session_key=d["session_key"], forgotten_at=_time(d, "forgotten_at", False),
            versions=tuple(versions), events=events,
        )
    except (KeyError, TypeError, ValueError) as e:
        raise InvalidInput(f"memory record {str(d.get('id'))[:40]!r} is incomplete or malformed ({e!r})") from None


# ---- JSON Lines ------------------------------------------------------------------------------------------


def to_jsonl(records: Iterable[MemoryRecord]) -> Iterator[str]:
    for r in records:
        yield json.dumps(record_dict(r), ensure_ascii=False) + "\n"


def from_jsonl(text: str) -> Iterator[MemoryRecord]:
    for n, line in enumerate(text.split("\n"), 1):
        if not line.strip():
            continue
        try:
            data = json.loads(line)
        except json.JSONDecodeError as e:
            raise InvalidInput(f"line {n} is not JSON ({e.msg})") from None
        try:
            yield record_from_dict(data)
        except InvalidInput as e:
            raise InvalidInput(f"line {n}: {e}") from None


# ---- Markdown --------------------------------------------------------------------------------------------


def _fence(content: str) -> str:
    longest = max((len(m) for m in re.findall(r"`+", content)), default=0)
    return "`" * max(3, longest + 1)


def _field(key: str, value: Any) -> str:
    return f"- {key}: {json.dumps(value, ensure_ascii=False)}\n"


def to_markdown(records: Iterable[MemoryRecord]) -> Iterator[str]:
    yield f"# LTM memory export\n\n{_MD_MARKER}\n"
    for r in records:
        d = record_dict(r)
        heading = (r.current.title or r.current.content.split("\n", 1)[0])[:80].replace("\n", " ")
        out = [f"\n## {r.id}: {heading}\n\n"]
        out += [_field(k, d[k]) for k in ("id", "author", "created_at", "session_key", "forgotten_at")]
        for v in d["versions"]:
            out.append(f"\n### Version {v['version']}\n\n")
            out += [_field(k, v[k]) for k in _VERSION_FIELDS]
            fence = _fence(v["content"])
            out.append(f"\n{fence}text\n{v['content']}\n{fence}\n")
        if d["events"]:
            out.append("\n### Events\n\n")
            out += [f"- {json.dumps(e, ensure_ascii=False)}\n" for e in d["events"]]
        yield "".join(out)


_FIELD = re.compile(r"^- ([a-z_]+): (.*)$")


def from_markdown(text: str) -> Iterator[MemoryRecord]:
    """Read back what to_markdown wrote (headings are labels; the `- key: json` fields are the data)."""
    if _MD_MARKER not in text:
        raise InvalidInput(f"this Markdown is not an LTM memory export (the line {_MD_MARKER!r} is missing)")
    lines = text.split("\n")
    current: dict[str, Any] | None = None
    target: dict[str, Any] | None = None
    in_events = False
    i = 0
    while i < len(lines):
        line = lines[i]
        try:
            if line.startswith("## "):
                if current is not None:
                    yield record_from_dict(current)
                current = {"format": FORMAT, "versions": [], "events": []}
                target, in_events = current, False
            elif line.startswith("### Version ") and current is not None:
                target, in_events = {}, False
                current["versions"].append(target)
            elif line == "### Events" and current is not None:
                in_events = True
            elif line.startswith("```") and target is not None and line.endswith("text"):
                fence = line[: -len("text")]
                end = lines.index(fence, i + 1)
                target["content"] = "\n".join(lines[i + 1 : end])
                i = end
            elif in_events and line.startswith("- {"):
                current["events"].append(json.loads(line[2:]))
            elif (m := _FIELD.match(line)) and target is not None:
                target[m.group(1)] = json.loads(m.group(2))
        except (ValueError, json.JSONDecodeError) as e:
            raise InvalidInput(f"Markdown line {i + 1} cannot be read ({e}); was the file edited by hand?") from None
        i += 1
    if current is not None:
        yield record_from_dict(current)


# ---- the service side ------------------------------------------------------------------------------------


def export_records(service: MemoryService, caller: Caller) -> Iterator[MemoryRecord]:
    """Every memory with every version, forgotten ones included (the local owner only)."""
    if not caller.is_owner:
        raise InvalidInput("only the local owner may export all memories")
    return service.store.all_records()


def import_records(service: MemoryService, caller: Caller, records: Iterable[MemoryRecord]) -> ImportReport:
    """Add each record with its whole history; an id already present is skipped, never overwritten."""
    if not caller.is_owner:
        raise InvalidInput("only the local owner may import memories")
    imported = versions = 0
    skipped: list[str] = []
    for record in records:
        if service.store.get(record.id) is not None:
            skipped.append(f"{record.id}: already present")
            continue
        if record.session_key is not None and service.store.by_session_key(record.session_key) is not None:
            skipped.append(f"{record.id}: session {record.session_key!r} already present")
            continue
        embedded = [service.embed_content(v.content, v.title) for v in record.versions]
        service.store.insert_memory(record, [c for c, _ in embedded], [v for _, v in embedded])
        imported += 1
        versions += len(record.versions)
    return ImportReport(imported, versions, tuple(skipped))
