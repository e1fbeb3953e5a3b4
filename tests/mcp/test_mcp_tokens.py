"""Bearer tokens: shown once, stored hashed, one live token per client name, revocable, checked in constant time."""

from __future__ import annotations

import pytest

from ltm_desktop.core.errors import InvalidInput, NotFound, StoreUnavailable
from ltm_desktop.core.models import ApiToken
from ltm_desktop.services.tokens import TokenService, token_digest


def test_tokens_are_stored_only_as_digests(indexed):
    record, token = indexed.tokens.create("digest-check")
    assert token.startswith("ltm_") and len(token) >= 40 and record.name == "digest-check"
    with indexed.write_db.connection() as conn:
        rows = conn.execute("SELECT * FROM api_tokens WHERE name = 'digest-check'").fetchall()
    flat = " ".join(str(v) for v in rows[0])
    assert token not in flat and token[4:] not in flat and token_digest(token) in flat


def test_verify_create_replace_revoke(indexed):
    tokens = indexed.server_tokens  # the server's own view, through its narrow role
    _, token = indexed.tokens.create("cycle")
    assert tokens.verify(token).name == "cycle"
    for wrong in ("", token[:-1], token + "x", token.upper(), "x" * 10_000):
        assert tokens.verify(wrong) is None
    with pytest.raises(InvalidInput, match="live token named 'cycle' exists"):
        indexed.tokens.create("cycle")
    _, replacement = indexed.tokens.create("cycle", replace=True)
    assert tokens.verify(token) is None and tokens.verify(replacement).name == "cycle"
    indexed.tokens.revoke("cycle")
    assert tokens.verify(replacement) is None
    with pytest.raises(NotFound, match="no live token named 'cycle'"):
        indexed.tokens.revoke("cycle")
    _, again = indexed.tokens.create("cycle")  # a revoked name is free again
    assert tokens.verify(again).name == "cycle"


@pytest.mark.parametrize("name", ["", " ", "-starts-with-dash", "has space", "a" * 65, "semi;colon", "ünïcode", "../x"])
def test_bad_token_names_are_refused(indexed, name):
    with pytest.raises(InvalidInput, match="is not allowed"):
        indexed.tokens.create(name)


def test_last_used_is_recorded_at_most_once_a_minute(indexed):
    _, token = indexed.tokens.create("toucher")
    assert next(t for t in indexed.tokens.list() if t.name == "toucher").last_used_at is None
    indexed.server_tokens.verify(token)
    first = next(t for t in indexed.tokens.list() if t.name == "toucher").last_used_at
    assert first is not None
    with indexed.write_db.connection() as conn:
        conn.execute("UPDATE api_tokens SET last_used_at = '2000-01-01' WHERE name = 'toucher'")
    indexed.server_tokens.verify(token)  # within the minute: no second write
    assert next(t for t in indexed.tokens.list() if t.name == "toucher").last_used_at.startswith("2000-01-01")


class FlakyTokenStore:
    """A stand-in for the token table whose database can be switched off (a port fake, not our code)."""

    def __init__(self) -> None:
        self.rows: dict[str, ApiToken] = {}
        self.down = False

    def _check(self) -> None:
        if self.down:
            raise StoreUnavailable("cannot reach Postgres (test)")

    def add(self, name, token_sha256):
        self._check()
        self.rows[token_sha256] = ApiToken(len(self.rows) + 1, name, "now", None, None)
        return self.rows[token_sha256]

    def find_active(self, token_sha256):
        self._check()
        row = self.rows.get(token_sha256)
        return (row, token_sha256) if row else None

    def active(self):
        self._check()
        return list(self.rows.values())

    def revoke(self, name):
        self._check()
        found = [d for d, r in self.rows.items() if r.name == name]
        for d in found:
            del self.rows[d]
        return bool(found)

    def touch(self, token_id):
        self._check()


def test_a_known_client_keeps_its_identity_while_postgres_is_briefly_down():
    store = FlakyTokenStore()
    service = TokenService(store)
    _, known = service.create("known")
    _, never_seen = service.create("never-seen")
    assert service.verify(known).name == "known"
    store.down = True
    assert service.verify(known).name == "known"  # its tool calls will then report the outage themselves
    with pytest.raises(StoreUnavailable):
        service.verify(never_seen)  # not verified before: can't be vouched for
    with pytest.raises(StoreUnavailable):
        service.verify("ltm_garbage-garbage-garbage-garbage")
