"""`ltm run --headless`: the service without a tray: the store, plus each background service that exists."""

from __future__ import annotations

import sys
import threading


def run_headless(container, stop: threading.Event) -> int:
    from ltm_desktop.adapters.postgres.migrations import applied_version

    db = container.write_db  # starts or attaches to Postgres and migrates
    container.document_store  # pins the embedding model on first start
    where = "LTM_DATABASE_URL" if container.settings.database_url else container.settings.data_dir
    print(
        f"ltm: store ready at {where} (schema {applied_version(db.conninfo)}, model {container.embedder.pin.model_id}); "
        "press Ctrl-C to stop",
        file=sys.stderr,
        flush=True,
    )
    from ltm_desktop.cli.worker_child import start_worker_thread

    worker = start_worker_thread(stop)  # the ingestion worker, as a supervised child process
    from ltm_desktop.cli.serve_child import start_http_server_thread

    http = start_http_server_thread(stop)  # the MCP HTTP server (settings http_host/http_port), supervised
    stop.wait()
    worker.join(timeout=90)
    http.join(timeout=40)
    container.close()
    return 0
