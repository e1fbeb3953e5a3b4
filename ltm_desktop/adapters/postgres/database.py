"""Connections to Postgres: a small pool per process, pgvector types registered, errors translated once.

A read-only `Database` sets `default_transaction_read_only` on every connection and, where the role
exists, connects as `ltm_reader` (SELECT only), so the search path cannot write even by mistake.
"""

from __future__ import annotations

import contextlib
import logging
from collections.abc import Iterator
from pathlib import Path

import psycopg
from pgvector.psycopg import register_vector
from psycopg_pool import ConnectionPool, PoolTimeout

from ltm_desktop.core.errors import NoIndexYet, StoreUnavailable

log = logging.getLogger(__name__)
READER_ROLE = "ltm_reader"


@contextlib.contextmanager
def translate_errors(where: str) -> Iterator[None]:
    """Turn psycopg's connection-level failures into a StoreUnavailable a person can act on."""
    try:
        yield
    except psycopg.errors.DiskFull as e:
        raise StoreUnavailable("the disk holding the database is full: free space, then retry") from e
    except psycopg.OperationalError as e:
        first = (str(e).strip().splitlines() or ["no detail"])[0]
        raise StoreUnavailable(f"cannot reach Postgres ({where}): {first}; is it running? try `ltm doctor`") from e
    except PoolTimeout as e:
        raise StoreUnavailable(f"Postgres did not answer in time ({where}); is it running? try `ltm doctor`") from e


class Database:
    """A pool of connections to one database, read-only or read-write."""

    def __init__(self, conninfo: str, *, read_only: bool = False, max_size: int = 4, label: str = "") -> None:
        self.conninfo = conninfo
        self.read_only = read_only
        self.label = label or ("read-only" if read_only else "read-write")
        self._user: str | None = None
        self._has_vector = True
        self._pool: ConnectionPool | None = None
        self._max_size = max_size

    def _configure(self, conn: psycopg.Connection) -> None:
        # No server-side prepared statements: after five runs Postgres switches a prepared ranking query to a generic
        # plan that keeps the unused `%s IS NULL OR ...` filters and abandons the HNSW index (4 ms -> 120 ms measured).
        conn.prepare_threshold = None
        if self._has_vector:
            try:
                register_vector(conn)
            except psycopg.ProgrammingError:
                # No vector extension yet (a database before its first migration).
                self._has_vector = False
        if self.read_only:
            conn.execute("SET default_transaction_read_only = on")
        conn.commit()

    def _open(self) -> ConnectionPool:
        if self._pool is None:
            kwargs: dict[str, object] = {}
            if self.read_only and self._reader_role_exists():
                kwargs["user"] = READER_ROLE
            self._user = str(kwargs.get("user", "")) or None
            with translate_errors(self.label):
                pool = ConnectionPool(
                    self.conninfo,
                    kwargs=kwargs,
                    min_size=1,
                    max_size=self._max_size,
                    configure=self._configure,
                    open=False,
                    timeout=15,
                    reconnect_timeout=30,
                    check=ConnectionPool.check_connection,
                )
                pool.open(wait=True, timeout=15)
            self._pool = pool
        return self._pool

    def _reader_role_exists(self) -> bool:
        with translate_errors(self.label):
            with psycopg.connect(self.conninfo, connect_timeout=10) as conn:
                row = conn.execute("SELECT 1 FROM pg_roles WHERE rolname = %s", (READER_ROLE,)).fetchone()
        return row is not None

    @property
    def user(self) -> str | None:
        """The role this pool connects as (None: the URI's own user)."""
        return self._user

    @contextlib.contextmanager
    def connection(self) -> Iterator[psycopg.Connection]:
        """A pooled connection; the block runs in a transaction committed on success."""
        pool = self._open()
        with translate_errors(self.label):
            with pool.connection() as conn:
                yield conn

    def reset(self) -> None:
        """Forget pooled connections (after the vector extension appears, or to recover from a restart)."""
        if self._pool is not None:
            self._pool.close()
            self._pool = None
        self._has_vector = True

    def close(self) -> None:
        if self._pool is not None:
            self._pool.close()
            self._pool = None


def connect_direct(conninfo: str) -> psycopg.Connection:
    """One unpooled connection in autocommit mode, for migrations and maintenance."""
    with translate_errors("maintenance"):
        return psycopg.connect(conninfo, autocommit=True, connect_timeout=15)


def require_schema(db: Database) -> None:
    """Fail with NoIndexYet when the database has never been migrated (search never migrates it)."""
    with db.connection() as conn:
        row = conn.execute("SELECT to_regclass('public.schema_migrations') IS NOT NULL").fetchone()
    if not row or not row[0]:
        raise NoIndexYet("the database has no LTM tables")


def data_dir_size(data_dir: Path) -> int:
    return sum(p.stat().st_size for p in data_dir.rglob("*") if p.is_file())
