"""`ltm doctor`: each dependency checked for real, each failure with the command that fixes it."""

from __future__ import annotations

import platform
import sys

from ltm_desktop.core.errors import KnownError

Check = tuple[str, bool, str]


def _check(name: str, fn) -> Check:
    try:
        return (name, True, fn())
    except KnownError as e:
        return (name, False, str(e))
    except Exception as e:  # doctor must report, not crash, whatever a dependency does
        return (name, False, f"{type(e).__name__}: {e}")


def run_checks(container) -> list[Check]:
    s = container.settings
    checks: list[Check] = [("python", True, f"{platform.python_version()} at {sys.executable}")]

    def postgres() -> str:
        from ltm_desktop.adapters.postgres.database import connect_direct

        uri = container.database_uri(create=True)
        with connect_direct(uri) as conn:
            version = conn.execute("SHOW server_version").fetchone()[0]
            available = conn.execute(
                "SELECT default_version FROM pg_available_extensions WHERE name = 'vector'"
            ).fetchone()
        if not available:
            raise KnownError(f"Postgres {version} has no pgvector: install pgvector on that server, or unset LTM_DATABASE_URL")
        where = "LTM_DATABASE_URL" if s.database_url else f"embedded, {s.data_dir}"
        return f"Postgres {version} ({where}); pgvector {available[0]} available"

    def schema() -> str:
        from ltm_desktop.adapters.postgres.migrations import applied_version, latest_version

        have, want = applied_version(container.database_uri(create=True)), latest_version()
        if have < want:
            raise KnownError(f"schema {have} of {want}: run `ltm db migrate`")
        return f"schema version {have}"

    def models() -> str:
        from ltm_desktop.adapters.model_pack import PACK, verify_model

        return ", ".join(str(verify_model(container.models_dir, m).name) for m in PACK) + f" verified in {container.models_dir}"

    def embedder() -> str:
        pin = container.embedder.pin
        return f"{pin.model_id} loads ({pin.dim}-d)"

    def tesseract() -> str:
        from ltm_desktop.adapters.tesseract_ocr import TesseractOcr

        ocr = TesseractOcr(s.ocr_languages)
        problem = ocr.is_available()
        if problem:
            raise KnownError(problem + " (born-digital documents still work without it)")
        return f"tesseract {ocr.version()} with {s.ocr_languages}"

    def qt() -> str:
        from ltm_desktop.gui.platform_check import qt_platform_report

        return qt_platform_report()

    def clients() -> str:
        # An AI app's config holds this installation's absolute path; after the app folder moves, the entry
        # points at nothing and the AI app fails without saying why.
        from pathlib import Path

        svc = container.client_registration
        connected, stale, other = [], [], []
        for st in svc.statuses():
            if st.transport is None:
                continue
            connected.append(st.display_name)
            if st.transport == "unreadable":
                stale.append(f"{st.display_name}: {st.detail}")
                continue
            ep = svc.configured_endpoint(st.client_id) if st.transport == "stdio" else None
            if ep is None:
                continue
            if not Path(ep.command).exists():
                stale.append(f"{st.display_name} starts {ep.command}, which no longer exists (LTM Desktop moved?): "
                             f"run `ltm connect {st.client_id}`")
            elif ep.command != svc.launch.command:
                other.append(f"{st.display_name} starts another installation ({ep.command})")
        if stale:
            raise KnownError("; ".join(stale))
        if not connected:
            return "no AI app connected yet (`ltm connect --list`)"
        return f"{', '.join(connected)} connected" + (f"; {'; '.join(other)}" if other else "")

    for name, fn in (("postgres", postgres), ("schema", schema), ("models", models), ("embedder", embedder),
                     ("tesseract", tesseract), ("qt", qt), ("clients", clients)):
        checks.append(_check(name, fn))
    return checks
