"""`ltm run --headless`: the service without a tray: the store, plus each background service that exists."""

from __future__ import annotations

import sys
import threading

from ltm_desktop.cli.headless_children import ltm_command, start_supervised


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
    # The worker gets longer to finish: it ends its current file rather than leave it to be redone.
    worker = start_supervised(ltm_command("worker"), "the ingestion worker", stop, grace=60)
    http = start_supervised(ltm_command("serve", "--http"), "the MCP HTTP server", stop, grace=30)
    stop.wait()
    worker.join(timeout=90)
    http.join(timeout=40)
    container.close()
    return 0
