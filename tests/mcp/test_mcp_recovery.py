"""Soft failure: missing model files and a stopped Postgres give a ToolError the model can act on; the same
server process recovers by itself when the dependency returns."""

from __future__ import annotations

import time

import pytest
from mcp import Client

from ltm_desktop.bootstrap import Container
from ltm_desktop.mcp.server import build_server
from ltm_desktop.settings import Settings
from tests.conftest import MODELS_DIR, create_database, make_container

pytestmark = pytest.mark.anyio


async def test_missing_model_files_then_restored(tmp_path, mcp_db, indexed):
    models = tmp_path / "models"
    models.mkdir()
    c = Container(Settings(home=tmp_path / "home", database_url=mcp_db, models_dir=str(models)))  # its own models
    try:
        async with Client(build_server(c)) as client:
            r = await client.call_tool("ltm_search", {"query": "monthly rent"})
            assert r.is_error and "ltm models fetch" in r.content[0].text
            r = await client.call_tool("ltm_get_document", {"path_or_id": "garden-plan.md"})
            assert not r.is_error  # reading needs no model: the rest of the server works
            for folder in MODELS_DIR.iterdir():  # the files come back (e.g. `ltm models fetch`)
                (models / folder.name).symlink_to(folder, target_is_directory=True)
            r = await client.call_tool("ltm_search", {"query": "monthly rent"})
            assert not r.is_error and r.structured_content["hits"][0]["path"].endswith("harbor-lease-2024.pdf")
    finally:
        c.close()


async def test_postgres_goes_away_and_comes_back(pg_uri, tmp_path, corpus, shared_models):
    """Postgres refuses this database (every connection cut, new ones refused), then accepts it again."""
    import psycopg

    uri = create_database(pg_uri, "flaky")
    name = uri.split("?")[0].rsplit("/", 1)[1]
    c = make_container(tmp_path, uri, shared_models, ingest_workers=1)

    def admin(sql: str) -> None:
        with psycopg.connect(pg_uri, autocommit=True) as conn:
            conn.execute(sql)

    try:
        c.ingest.ingest_file(corpus / "plumber.eml")
        async with Client(build_server(c)) as client:
            r = await client.call_tool("ltm_search", {"query": "water heater quote"})
            assert not r.is_error
            admin(f'ALTER DATABASE "{name}" ALLOW_CONNECTIONS false')
            admin(f"SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = '{name}'")
            started = time.monotonic()
            r = await client.call_tool("ltm_search", {"query": "water heater quote"})
            assert r.is_error and "Postgres" in r.content[0].text and "ltm doctor" in r.content[0].text
            assert time.monotonic() - started < 40  # bounded wait, then a message, not a hang
            admin(f'ALTER DATABASE "{name}" ALLOW_CONNECTIONS true')
            r = await client.call_tool("ltm_search", {"query": "water heater quote"})
            assert not r.is_error, r.content[0].text
            assert r.structured_content["hits"][0]["path"].endswith("plumber.eml")
    finally:
        admin(f'ALTER DATABASE "{name}" ALLOW_CONNECTIONS true')
        c.close()
