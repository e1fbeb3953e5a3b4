"""PgTokenStore: hashed bearer tokens. Only sha256 digests are stored; a token is shown once, at creation."""

from __future__ import annotations

import contextlib
from collections.abc import Iterator

import psycopg

from ltm_desktop.adapters.postgres.database import Database
from ltm_desktop.core.errors import InvalidInput, StoreUnavailable
from ltm_desktop.core.models import ApiToken

_TS = "to_char({c} AT TIME ZONE 'UTC', 'YYYY-MM-DD\"T\"HH24:MI:SS\"Z\"')"
_COLUMNS = ", ".join(["id", "name", _TS.format(c="created_at"), _TS.format(c="last_used_at"), _TS.format(c="revoked_at")])


@contextlib.contextmanager
def missing_tables_as_known(where: str) -> Iterator[None]:
    """A database from before migration 0003 lacks these tables: say how to fix it, once, here."""
    try:
        yield
    except psycopg.errors.UndefinedTable as e:
        raise StoreUnavailable(f"the database has no {where} table yet: run `ltm db migrate`") from e


class PgTokenStore:
    def __init__(self, db: Database) -> None:
        self._db = db

    def add(self, name: str, token_sha256: str) -> ApiToken:
        with missing_tables_as_known("api_tokens"), self._db.connection() as conn:
            try:
                row = conn.execute(
                    f"INSERT INTO api_tokens (name, token_sha256) VALUES (%s, %s) RETURNING {_COLUMNS}",
                    (name, token_sha256),
                ).fetchone()
            except psycopg.errors.UniqueViolation:
                raise InvalidInput(
                    f"a live token named {name!r} exists: revoke it first (`ltm token revoke {name}`) or use --replace"
                ) from None
        return ApiToken(*row)

    def find_active(self, token_sha256: str) -> tuple[ApiToken, str] | None:
        with missing_tables_as_known("api_tokens"), self._db.connection() as conn:
            row = conn.execute(
                f"SELECT {_COLUMNS}, token_sha256 FROM api_tokens WHERE token_sha256 = %s AND revoked_at IS NULL",
                (token_sha256,),
            ).fetchone()
        return (ApiToken(*row[:5]), row[5]) if row else None

    def active(self) -> list[ApiToken]:
        with missing_tables_as_known("api_tokens"), self._db.connection() as conn:
            rows = conn.execute(f"SELECT {_COLUMNS} FROM api_tokens WHERE revoked_at IS NULL ORDER BY name").fetchall()
        return [ApiToken(*r) for r in rows]

    def revoke(self, name: str) -> bool:
        with missing_tables_as_known("api_tokens"), self._db.connection() as conn:
            row = conn.execute(
                "UPDATE api_tokens SET revoked_at = now() WHERE name = %s AND revoked_at IS NULL RETURNING id", (name,)
            ).fetchone()
        return row is not None

    def touch(self, token_id: int) -> None:
        with missing_tables_as_known("api_tokens"), self._db.connection() as conn:
            conn.execute("UPDATE api_tokens SET last_used_at = now() WHERE id = %s", (token_id,))
