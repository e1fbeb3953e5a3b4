"""The rules every memory write and read is checked against, and the opaque cursors of paged results.

Each check raises InvalidInput naming the field, the limit and the fix, before anything is written.
"""

from __future__ import annotations

import base64
import hashlib
import json
from datetime import UTC, datetime

from ltm_desktop.core.errors import InvalidInput
from ltm_desktop.core.memory import MEMORY_TYPES

MAX_CONTENT_CHARS = 20_000  # a memory is a fact or a procedure, not a document; sessions have their own cap
MAX_SESSION_CHARS = 2_000_000
MAX_TITLE_CHARS = 200
MAX_TAGS = 20
MAX_TAG_CHARS = 64
MAX_NAME_CHARS = 200  # project names and session ids
MAX_SOURCE_CHARS = 2_000
MAX_QUERY_CHARS = 2_000
MAX_LIMIT = 50
SHARED_NAMESPACE = "shared"


def check_text(value: str, field: str, cap: int) -> str:
    """Non-empty, under the cap, and storable exactly (Postgres text holds no NUL; UTF-8 holds no lone surrogate)."""
    if not isinstance(value, str) or not value.strip():
        raise InvalidInput(f"{field} is empty: give the text to store")
    if len(value) > cap:
        raise InvalidInput(f"{field} is {len(value):,} characters; the limit is {cap:,}: shorten or split it")
    if "\x00" in value:
        raise InvalidInput(f"{field} contains NUL characters, which cannot be stored: remove them")
    try:
        value.encode("utf-8")
    except UnicodeEncodeError:
        raise InvalidInput(f"{field} contains unpaired surrogate characters: send valid Unicode text") from None
    return value


def check_optional(value: str | None, field: str, cap: int) -> str | None:
    if value is None:
        return None
    stripped = value.strip()
    if not stripped:
        return None
    return check_text(stripped, field, cap)


def check_type(value: str) -> str:
    t = (value or "").strip().lower()
    if t not in MEMORY_TYPES or t == "session":
        known = ", ".join(k for k in MEMORY_TYPES if k != "session")
        raise InvalidInput(f"unknown memory type {value!r}; use one of: {known}")
    return t


def check_filter_type(value: str | None) -> str | None:
    if value is None:
        return None
    t = value.strip().lower()
    if t not in MEMORY_TYPES:
        raise InvalidInput(f"unknown memory type {value!r}; use one of: {', '.join(MEMORY_TYPES)}")
    return t


def check_tags(tags: list[str] | tuple[str, ...] | None) -> tuple[str, ...]:
    """Trimmed, de-duplicated (first spelling wins), at most MAX_TAGS of at most MAX_TAG_CHARS each."""
    out: list[str] = []
    for tag in tags or ():
        if not isinstance(tag, str) or not tag.strip():
            raise InvalidInput("tags must be non-empty strings")
        t = tag.strip()
        if len(t) > MAX_TAG_CHARS:
            raise InvalidInput(f"tag {t[:20]!r}... is longer than {MAX_TAG_CHARS} characters")
        if t not in out:
            out.append(t)
    if len(out) > MAX_TAGS:
        raise InvalidInput(f"{len(out)} tags; the limit is {MAX_TAGS}")
    return tuple(out)


def check_project(value: str | None) -> str | None:
    p = check_optional(value, "project", MAX_NAME_CHARS)
    if p == SHARED_NAMESPACE:
        raise InvalidInput(f"{SHARED_NAMESPACE!r} is reserved for memories filed under no project: choose another name")
    return p


def check_visibility(value: str) -> str:
    if value not in ("shared", "private"):
        raise InvalidInput(f"visibility must be 'shared' or 'private' (got {value!r})")
    return value


def check_confidence(value: float) -> float:
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not 0.0 <= float(value) <= 1.0:
        raise InvalidInput(f"confidence must be a number from 0 to 1 (got {value!r})")
    return float(value)


def check_limit(value: int, cap: int = MAX_LIMIT) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or not 1 <= value <= cap:
        raise InvalidInput(f"limit must be between 1 and {cap} (got {value!r})")
    return value


def parse_time(value: str | datetime | None, field: str) -> datetime | None:
    """ISO 8601 (a date, or a date and time; no zone means UTC) to an aware UTC datetime."""
    if value is None or value == "":
        return None
    if isinstance(value, datetime):
        dt = value
    else:
        text = str(value).strip()
        try:
            dt = datetime.fromisoformat(text[:-1] + "+00:00" if text.endswith(("Z", "z")) else text)
        except ValueError:
            raise InvalidInput(f"{field} {value!r} is not an ISO 8601 time, e.g. 2026-05-01 or 2026-05-01T14:30:00Z") from None
    if dt.tzinfo is None:
        dt = dt.replace(tzinfo=UTC)
    return dt.astimezone(UTC)


def check_future(value: datetime | None, now: datetime, field: str) -> datetime | None:
    if value is not None and value <= now:
        raise InvalidInput(f"{field} {value.isoformat()} is in the past: give a future time, or none")
    return value


def check_past(value: datetime | None, now: datetime, field: str) -> datetime | None:
    if value is not None and value > now:
        raise InvalidInput(f"{field} {value.isoformat()} is in the future: memory cannot answer for a time to come")
    return value


# ---- cursors -------------------------------------------------------------------------------------------
# Opaque to clients, but checked: a cursor names the query it belongs to, so a cursor from another query,
# a truncated one or a hand-edited one is refused instead of silently paging through something else.


def fingerprint(*parts: object) -> str:
    return hashlib.sha256(json.dumps(parts, default=str, sort_keys=True).encode()).hexdigest()[:16]


def encode_cursor(kind: str, query_fp: str, position: dict[str, object]) -> str:
    body = json.dumps({"k": kind, "f": query_fp, "p": position}, separators=(",", ":"), sort_keys=True)
    check = hashlib.sha256(body.encode()).hexdigest()[:8]
    return base64.urlsafe_b64encode(f"{check}.{body}".encode()).decode().rstrip("=")


def decode_cursor(cursor: str, kind: str, query_fp: str) -> dict[str, object]:
    bad = InvalidInput(
        "the cursor is malformed or does not belong to this query: pass next_cursor exactly as returned, "
        "with the same query and filters, or omit it to start over"
    )
    try:
        raw = base64.urlsafe_b64decode(cursor + "=" * (-len(cursor) % 4)).decode()
        check, body = raw.split(".", 1)
        if hashlib.sha256(body.encode()).hexdigest()[:8] != check:
            raise bad
        data = json.loads(body)
    except (ValueError, UnicodeDecodeError):
        raise bad from None
    if not isinstance(data, dict) or data.get("k") != kind or data.get("f") != query_fp or not isinstance(data.get("p"), dict):
        raise bad
    return data["p"]
