"""The one composition root: reads settings once, builds adapters, hands services to the CLI, MCP and GUI.

Everything is built lazily and at most once per process (models load once; pools open once), and the
read-only search side never migrates or creates anything.
"""

from __future__ import annotations

import os
import sys
from functools import cached_property
from pathlib import Path

from ltm_desktop.core.chunking import ChunkSizes
from ltm_desktop.core.confidence import Thresholds
from ltm_desktop.settings import Settings, load_settings


def bundled_models_dir() -> Path | None:
    """The model pack inside a PyInstaller bundle, when running frozen."""
    base = getattr(sys, "_MEIPASS", None)
    return Path(base) / "models" if base else None


class Container:
    """Lazily built adapters and services for one process."""

    def __init__(self, settings: Settings | None = None) -> None:
        self.settings = settings or load_settings()

    # ---- places --------------------------------------------------------------------------------------

    @property
    def models_dir(self) -> Path:
        s = self.settings
        if s.models_dir:
            return Path(s.models_dir)
        bundled = bundled_models_dir()
        if not s.models_path.exists() and bundled and bundled.exists():
            return bundled
        return s.models_path

    def database_uri(self, *, create: bool) -> str:
        """The Postgres to use: LTM_DATABASE_URL, or the embedded server (started or attached)."""
        if self.settings.database_url:
            return self.settings.database_url
        from ltm_desktop.adapters.postgres.embedded_server import start_embedded

        return start_embedded(self.settings.data_dir, create=create)

    # ---- databases -----------------------------------------------------------------------------------

    @cached_property
    def write_db(self):
        """A read-write pool on a migrated database (migrations run here, for writers only)."""
        from ltm_desktop.adapters.postgres.database import Database
        from ltm_desktop.adapters.postgres.migrations import migrate

        uri = self.database_uri(create=True)
        migrate(uri)
        return Database(uri, read_only=False, label="index (read-write)")

    @cached_property
    def read_db(self):
        """A read-only pool; fails with NoIndexYet rather than creating an empty store."""
        from ltm_desktop.adapters.postgres.database import Database, require_schema

        db = Database(self.database_uri(create=False), read_only=True, label="index (read-only)")
        try:
            require_schema(db)
        except BaseException:
            db.close()  # a failed property is retried on the next call; don't leak a pool per attempt
            raise
        return db

    @cached_property
    def journal_db(self):
        """The MCP server's only write path: journal rows and token last-used times (role ltm_journal)."""
        from ltm_desktop.adapters.postgres.journal_store import journal_database

        return journal_database(self.database_uri(create=False))

    # ---- models --------------------------------------------------------------------------------------

    @cached_property
    def embedder(self):
        from ltm_desktop.adapters.fastembed_models import FastEmbedEmbedder

        s = self.settings
        return FastEmbedEmbedder(s.embed_model, self.models_dir, s.query_prefix)

    @cached_property
    def reranker(self):
        from ltm_desktop.adapters.fastembed_models import FastEmbedReranker

        return FastEmbedReranker(self.settings.rerank_model, self.models_dir)

    # ---- stores --------------------------------------------------------------------------------------

    @cached_property
    def document_store(self):
        from ltm_desktop.adapters.postgres.document_store import PgDocumentStore
        from ltm_desktop.adapters.postgres.model_pin import ensure_pin

        ensure_pin(self.write_db, self.embedder.pin)
        return PgDocumentStore(self.write_db)

    @cached_property
    def search_index(self):
        from ltm_desktop.adapters.postgres.search_index import PgSearchIndex

        return PgSearchIndex(self.read_db)

    def check_model_pin(self) -> None:
        """The index exists, holds vectors, and they come from the configured model."""
        from ltm_desktop.adapters.postgres.model_pin import check_pin
        from ltm_desktop.core.errors import NoIndexYet

        if self.search_index.model_pin() is None:
            raise NoIndexYet("nothing has been indexed yet")
        check_pin(self.read_db, self.embedder.pin)

    # ---- services ------------------------------------------------------------------------------------

    @cached_property
    def extractor(self):
        from ltm_desktop.adapters.file_extractor import FileExtractor

        return FileExtractor(self.settings.ocr_languages, self.settings.ocr_dpi)

    @cached_property
    def ingest(self):
        from ltm_desktop.services.ingest import IngestLimits, IngestService, default_workers

        s = self.settings
        return IngestService(
            self.document_store,
            self.embedder,
            self.extractor,
            ChunkSizes(s.chunk_target, s.chunk_max, s.chunk_overlap),
            IngestLimits(s.max_file_mb * 1024 * 1024, s.ingest_workers or default_workers()),
        )

    @cached_property
    def search(self):
        from ltm_desktop.services.search import SearchService, SearchTuning

        s = self.settings
        self.check_model_pin()
        tuning = SearchTuning(
            depth=s.retrieval_depth,
            rerank_candidates=s.rerank_candidates,
            rerank_thresholds=Thresholds(s.rerank_high, s.rerank_medium),
            cosine_thresholds=Thresholds(s.cosine_high, s.cosine_medium),
        )
        return SearchService(self.search_index, self.embedder, self.reranker, tuning)

    @cached_property
    def documents(self):
        from ltm_desktop.services.documents import DocumentService

        return DocumentService(self.search_index)

    @cached_property
    def tokens(self):
        """Token management for the CLI and the desktop app (create, list, revoke)."""
        from ltm_desktop.adapters.postgres.token_store import PgTokenStore
        from ltm_desktop.services.tokens import TokenService

        return TokenService(PgTokenStore(self.write_db))

    @cached_property
    def server_tokens(self):
        """Token checks for the HTTP server, through its narrow role (it never migrates or creates)."""
        from ltm_desktop.adapters.postgres.token_store import PgTokenStore
        from ltm_desktop.services.tokens import TokenService

        return TokenService(PgTokenStore(self.journal_db))

    @cached_property
    def journal(self):
        from ltm_desktop.adapters.postgres.journal_store import PgJournalStore
        from ltm_desktop.services.journal import JournalService

        s = self.settings
        return JournalService(PgJournalStore(self.journal_db), log_queries=s.log_queries, retention_days=s.journal_days)

    def scratch(self, server_uri: str | None = None):
        """A context manager giving a Container on a throwaway store (dropped afterwards) that shares this one's models.

        `ltm eval` loads datasets there, never into the user's index: a scratch database on the given server
        (or on LTM_DATABASE_URL's), else a temporary embedded server in a temp folder.
        """
        import contextlib
        import dataclasses

        from ltm_desktop.adapters.postgres.scratch_store import scratch_database, temporary_server

        @contextlib.contextmanager
        def scoped():
            server = server_uri or self.settings.database_url
            with scratch_database(server) if server else temporary_server() as uri:
                child = Container(dataclasses.replace(self.settings, database_url=uri))
                child.__dict__["embedder"], child.__dict__["reranker"] = self.embedder, self.reranker
                try:
                    yield child
                finally:
                    child.close()

        return scoped()

    def close(self) -> None:
        for name in ("write_db", "read_db", "journal_db"):
            db = self.__dict__.get(name)
            if db is not None:
                db.close()


def configure_environment() -> None:
    """Process-wide switches that must be set before any library reads them."""
    import warnings

    # pgserver asks platformdirs for a runtime dir; headless sessions have none and the fallback is fine.
    warnings.filterwarnings("ignore", message=".*XDG_RUNTIME_DIR.*")
    # fastembed / huggingface_hub must never reach a hub for bundled models; this also silences their probes.
    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    os.environ.setdefault("HF_HUB_DISABLE_TELEMETRY", "1")
