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
            lead_chars=s.rerank_lead_chars,
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

    # ---- memory ----------------------------------------------------------------------------------------

    @cached_property
    def memory_db(self):
        """The memory write path: its own pool, as the narrow ltm_memory_writer role where it exists."""
        from ltm_desktop.adapters.postgres.memory_store import memory_database

        self.write_db  # noqa: B018 (migrations first: the role and tables come from them)
        return memory_database(self.database_uri(create=True))

    @cached_property
    def memory(self):
        """Remember, update, forget, restore, get, sessions; vectors from the same pinned model as documents."""
        from ltm_desktop.adapters.postgres.memory_store import PgMemoryStore, ensure_memory_vectors
        from ltm_desktop.adapters.postgres.model_pin import ensure_pin
        from ltm_desktop.services.memory import MemoryService

        ensure_pin(self.write_db, self.embedder.pin)
        stale = ensure_memory_vectors(self.write_db, self.embedder.pin)
        service = MemoryService(PgMemoryStore(self.memory_db), self.embedder, self.reranker)
        if stale:  # the model changed (`ltm reindex`): memory vectors follow before the first recall
            service.reembed()
        return service

    @cached_property
    def memory_reader(self):
        """Recall, list and namespaces over the same memory service."""
        from ltm_desktop.services.memory_recall import MemoryReader

        return MemoryReader(self.memory)

    # ---- worker: watched folders, job queue, status ----------------------------------------------------

    @cached_property
    def job_queue(self):
        from ltm_desktop.adapters.postgres.job_queue import PgJobQueue

        return PgJobQueue(self.write_db)

    @cached_property
    def watch_store(self):
        from ltm_desktop.adapters.postgres.watch_store import PgWatchStore

        return PgWatchStore(self.write_db)

    @cached_property
    def watch_folders(self):
        from ltm_desktop.services.watch_folders import WatchFolderService

        return WatchFolderService(self.watch_store, self.job_queue, self.watch_store)

    def worker_daemon(self, watch: bool = True):
        """The `ltm worker` process: folder watcher, heartbeat and job loop on this container's store and models."""
        import os
        import secrets
        import socket

        from ltm_desktop.adapters.git_cli import GitCliRepoProbe
        from ltm_desktop.adapters.postgres.job_queue import PgWakeup
        from ltm_desktop.adapters.process_probe import is_process_alive
        from ltm_desktop.adapters.watchdog_change_source import WatchdogChangeSource
        from ltm_desktop.services.folder_watcher import FolderWatcher, WatchTuning
        from ltm_desktop.services.ingest import default_workers
        from ltm_desktop.services.queue_worker import QueueWorker, WorkerTuning
        from ltm_desktop.services.worker_daemon import WorkerDaemon, worker_identity

        s = self.settings
        tuning = WorkerTuning(
            processes=s.ingest_workers or default_workers(), lease_seconds=s.worker_lease_seconds,
            max_attempts=s.job_max_attempts, retry_seconds=s.job_retry_seconds, poll_seconds=s.watch_poll_seconds,
            nice=s.worker_nice,
        )
        host, pid = socket.gethostname(), os.getpid()
        worker = QueueWorker(
            worker_identity(host, pid, secrets.token_hex(4)), self.job_queue, self.ingest, self.extractor,
            self.watch_store, PgWakeup(self.write_db.conninfo), GitCliRepoProbe(), tuning,
        )
        watcher = None
        if watch:
            watch_tuning = WatchTuning(
                settle_seconds=s.watch_settle_seconds, poll_seconds=s.watch_poll_seconds,
                reconcile_seconds=s.reconcile_minutes * 60, tombstone_seconds=s.tombstone_days * 86400,
            )
            watcher = FolderWatcher(
                self.watch_store, self.job_queue, self.watch_store,
                lambda sink: WatchdogChangeSource(sink, polling_seconds=max(5 * s.watch_poll_seconds, 1.0)),
                self.extractor.supports, watch_tuning,
            )
        return WorkerDaemon(worker, watcher, self.job_queue, host, pid, is_process_alive, s.worker_lease_seconds, s.job_max_attempts)

    def worker_status(self):
        """The queue and workers as one WorkerStatus value (tray, `ltm status`, the MCP stats tool); read-only."""
        from ltm_desktop.adapters.postgres.job_status import PgStatusReader
        from ltm_desktop.services.status import read_status

        return read_status(PgStatusReader(self.read_db), alive_within_seconds=3 * self.settings.worker_lease_seconds)

    def status_changes(self):
        """A Wakeup whose wait(timeout) returns True as soon as the queue, folders or pause switch change."""
        from ltm_desktop.adapters.postgres.job_queue import PgWakeup

        return PgWakeup(self.read_db.conninfo)

    # ---- connecting AI apps and tunnels ------------------------------------------------------------------

    @cached_property
    def client_registration(self):
        """Writes, checks and removes the ltm-desktop entry in each AI app's config (`ltm connect`)."""
        from ltm_desktop.adapters.client_configs import HostPlatform, client_targets
        from ltm_desktop.services.client_endpoints import local_http_url, server_launch
        from ltm_desktop.services.client_ports import TokenServiceTokens
        from ltm_desktop.services.client_registration import ClientRegistrationService

        s = self.settings
        frozen = bool(getattr(sys, "frozen", False))
        launch = server_launch(os.path.abspath(sys.executable), frozen, Path(os.path.abspath(s.home)), os.environ)

        def verify(endpoint, timeout):
            from ltm_desktop.mcp.verify import verify_endpoint  # the MCP SDK loads only when a check runs

            return verify_endpoint(endpoint, timeout)

        def write_bundle(path, launch):
            from ltm_desktop import __version__
            from ltm_desktop.adapters.client_configs.mcpb_bundle import build_manifest, write_bundle
            from ltm_desktop.services.client_endpoints import SERVER_NAME

            manifest = build_manifest(SERVER_NAME, __version__, launch.command, launch.args, launch.env, frozen=frozen)
            return write_bundle(path, manifest)

        return ClientRegistrationService(
            client_targets(HostPlatform.current()), launch, local_http_url(s.http_host, s.http_port),
            TokenServiceTokens(lambda: self.tokens), verify, bundle_writer=write_bundle,
        )

    @cached_property
    def tunnel_files(self):
        from ltm_desktop.adapters.tunnel_state import TunnelStateFiles

        return TunnelStateFiles(self.settings.home / "run")

    @cached_property
    def tunnel_control(self):
        """Status and stop of the tunnel supervisor process, from any process."""
        from ltm_desktop.adapters.tunnel_state import pid_alive, terminate
        from ltm_desktop.services.tunnels import TunnelControl

        return TunnelControl(self.tunnel_files, pid_alive, terminate)

    def tunnel_supervisor(self, provider: str, on_event=lambda kind, text: None):
        """A supervisor for one provider's tunnel to the local HTTP server (raises if the binary is missing)."""
        from ltm_desktop.adapters.tunnel_processes import JSON_RESPONSE, find_binary, known_failure, runner_factory
        from ltm_desktop.services.tunnels import TunnelSupervisor

        bundled = getattr(sys, "_MEIPASS", None)
        dirs = [self.settings.home / "bin"] + ([Path(bundled) / "bin"] if bundled else [])
        binary = find_binary(provider, dirs)
        files = self.tunnel_files
        make = runner_factory(provider, binary, self.settings.http_port, files.log_file)
        return TunnelSupervisor(provider, JSON_RESPONSE[provider], make, files, pid=os.getpid(),
                                diagnose=lambda lines: known_failure(provider, lines), on_event=on_event)

    # ---- desktop app settings checks ------------------------------------------------------------------

    def ocr_check(self, languages: str) -> str | None:
        """None when tesseract can read these languages (e.g. 'eng+spa'); otherwise the problem and the fix."""
        from ltm_desktop.adapters.tesseract_ocr import TesseractOcr

        return TesseractOcr(languages).is_available()

    def reembed_all(self, progress=None) -> int:
        """Re-embed every passage with the configured model (what `ltm reindex` does); returns how many."""
        from ltm_desktop.adapters.postgres.reembedding import PgReembedding
        from ltm_desktop.services.reindex import reindex

        return reindex(PgReembedding(self.write_db), self.embedder, progress)

    def close(self) -> None:
        for name in ("write_db", "read_db", "journal_db", "memory_db"):
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
    # Tesseract's OpenMP threads made OCR 4x slower, not faster (bench/bench_ocr.py: 0.21 vs 0.81 pages/s in one
    # process); parallelism comes from one extraction process per core instead. Inherited by tesseract children.
    os.environ.setdefault("OMP_THREAD_LIMIT", "1")
