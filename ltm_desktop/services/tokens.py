"""Bearer tokens for the HTTP MCP server: one per client, shown once, stored as a sha256 digest.

A token's name is the client identity the journal records and memory ownership uses, so it always comes
from the verified token, never from a request parameter.
"""

from __future__ import annotations

import hashlib
import hmac
import re
import secrets
import threading
import time
from collections.abc import Callable

from ltm_desktop.core.errors import InvalidInput, NotFound, StoreUnavailable
from ltm_desktop.core.models import ApiToken
from ltm_desktop.core.ports import TokenStore

TOKEN_PREFIX = "ltm_"
NAME_RULE = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$")
# A 43-character urlsafe body: 256 random bits. Anything far longer is not one of ours; don't hash megabytes.
MAX_TOKEN_CHARS = 200
TOUCH_EVERY_S = 60.0


def token_digest(token: str) -> str:
    """The stored form of a token."""
    return hashlib.sha256(token.encode("utf-8", "replace")).hexdigest()


def check_name(name: str) -> str:
    """A client name: letters, digits, '.', '_' or '-', starting with a letter or digit, at most 64."""
    name = (name or "").strip()
    if not NAME_RULE.match(name):
        raise InvalidInput(
            f"token name {name!r} is not allowed: use 1-64 letters, digits, '.', '_' or '-' (e.g. claude-desktop)"
        )
    return name


class TokenService:
    def __init__(self, store: TokenStore, clock: Callable[[], float] = time.monotonic) -> None:
        self._store = store
        self._clock = clock
        self._last_touch: dict[int, float] = {}
        # Verified digests, so a request already authorised keeps its identity while Postgres is briefly down
        # (a token cannot be revoked then either); the tool call itself then reports the outage.
        self._known: dict[str, ApiToken] = {}
        self._lock = threading.Lock()

    def create(self, name: str, *, replace: bool = False) -> tuple[ApiToken, str]:
        """A new token for a client; the clear token is returned here and never stored."""
        name = check_name(name)
        if replace:
            self._store.revoke(name)
        token = TOKEN_PREFIX + secrets.token_urlsafe(32)
        return self._store.add(name, token_digest(token)), token

    def list(self) -> list[ApiToken]:
        return self._store.active()

    def revoke(self, name: str) -> None:
        name = check_name(name)
        if not self._store.revoke(name):
            known = ", ".join(t.name for t in self._store.active()) or "none"
            raise NotFound(f"no live token named {name!r} (live tokens: {known})")
        with self._lock:
            self._known = {d: t for d, t in self._known.items() if t.name != name}

    def verify(self, token: str) -> ApiToken | None:
        """The live token this bearer string is, or None. Raises StoreUnavailable only for unknown tokens."""
        if not token or len(token) > MAX_TOKEN_CHARS:
            return None
        digest = token_digest(token)
        try:
            found = self._store.find_active(digest)
        except StoreUnavailable:
            with self._lock:
                cached = self._known.get(digest)
            if cached is None:
                raise
            return cached
        if found is None:
            with self._lock:
                self._known.pop(digest, None)
            return None
        record, stored = found
        if not hmac.compare_digest(stored, digest):
            return None
        with self._lock:
            self._known[digest] = record
        self._touch(record)
        return record

    def _touch(self, record: ApiToken) -> None:
        """Last-used time, written at most once a minute per token so a busy client costs no extra writes."""
        now = self._clock()
        with self._lock:
            if now - self._last_touch.get(record.token_id, float("-inf")) < TOUCH_EVERY_S:
                return
            self._last_touch[record.token_id] = now
        self._store.touch(record.token_id)
