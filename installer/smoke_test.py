"""Smoke test of the built bundle, the way a person meets it: unpacked, on a machine with no network.

    .venv/bin/python installer/smoke_test.py [dist/ltm-desktop-*.tar.gz | dist/ltm-desktop] [--keep] [--no-tray]

Runs the bundle's own executable (never the venv) with a clean temporary HOME and LTM_HOME, as an unprivileged
user, from a read-only location: --version, the desktop entries, doctor, ingest (a born-digital PDF and a scan
generated here with the venv's PyMuPDF), a search over stdio through the MCP SDK's real stdio client, scans
without tesseract, the tray under a virtual screen (with a second copy started), a full disk, and a bundle moved
after an AI app's config was written. `make installer` runs it after building. Exit status 0 only when every
step passed; a step that cannot run here says SKIP and why.
"""

from __future__ import annotations

import argparse
import json
import shutil
import sys
import tarfile
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from smoke_sandbox import Sandbox  # noqa: E402
from smoke_steps import Skip, SmokeFailure, Steps  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]


def find_default_artifact() -> Path:
    tarballs = sorted((ROOT / "dist").glob("ltm-desktop-*-linux-*.tar.gz"), key=lambda p: p.stat().st_mtime)
    return tarballs[-1] if tarballs else ROOT / "dist" / "ltm-desktop"


def unpack(artifact: Path, scratch: Path) -> Path:
    """The bundle folder: the tarball unpacked into scratch, or a copy-free reference to a built folder."""
    if artifact.is_dir():
        return artifact.resolve()
    target = scratch / "unpacked"
    target.mkdir()
    with tarfile.open(artifact) as tar:
        tar.extractall(target, filter="tar")
    (folder,) = [p for p in target.iterdir() if p.is_dir()]
    return folder


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("artifact", nargs="?", type=Path, default=None, help="the tarball or the bundle folder")
    parser.add_argument("--keep", action="store_true", help="keep the scratch folder (its path is printed)")
    parser.add_argument("--no-tray", action="store_true", help="skip the tray under a virtual screen")
    parser.add_argument("--only", default="", metavar="WORDS",
                        help="run only the steps whose names contain one of these comma-separated words "
                             "(and the first step)")
    parser.add_argument("--screenshot", type=Path, default=ROOT / "docs" / "screenshots" / "bundle-tray.png")
    parser.add_argument("--results", type=Path, default=ROOT / "dist" / "smoke-results.json")
    args = parser.parse_args(argv)
    artifact = (args.artifact or find_default_artifact()).resolve()
    if not artifact.exists():
        print(f"smoke: nothing to test at {artifact}: run `make installer` first", file=sys.stderr)
        return 2

    scratch = Path(tempfile.mkdtemp(prefix="ltm-smoke-"))
    scratch.chmod(0o755)
    sandbox = Sandbox(scratch)
    results: list[dict] = []
    how = ("as nobody, read-only mount, no network" if sandbox.isolated
           else "as this user, chmod read-only, proxies blocked")
    print(f"smoke: {artifact} in {scratch} ({how})")
    try:
        t0 = time.monotonic()
        bundle = unpack(artifact, scratch)
        unpack_seconds = time.monotonic() - t0
        steps = Steps(sandbox, bundle, scratch, args.screenshot, tray=not args.no_tray)
        steps.facts["unpack_seconds"] = round(unpack_seconds, 1)
        wanted = [w.strip() for w in args.only.split(",") if w.strip()]
        for i, (name, fn) in enumerate(steps.sequence()):
            if i == 0 or not wanted or any(w in name for w in wanted):
                results.append(run_step(name, fn))
        steps.facts.update(steps.environment_facts())
    finally:
        sandbox.close()
        if args.keep:
            print(f"smoke: scratch kept at {scratch}")
        else:
            shutil.rmtree(scratch, ignore_errors=True)
    failed = [r for r in results if r["status"] == "FAIL"]
    args.results.parent.mkdir(parents=True, exist_ok=True)
    args.results.write_text(json.dumps({"artifact": str(artifact), "steps": results, "facts": steps.facts}, indent=2))
    print(f"\nsmoke: {len(results) - len(failed)} of {len(results)} steps passed or skipped "
          f"({sum(r['status'] == 'SKIP' for r in results)} skipped); results in {args.results}")
    return 1 if failed else 0


def run_step(name: str, fn: Callable[[], str]) -> dict:
    started = time.monotonic()
    try:
        detail, status = fn(), "PASS"
    except Skip as e:
        detail, status = str(e), "SKIP"
    except SmokeFailure as e:
        detail, status = str(e), "FAIL"
    except Exception as e:  # a bug in a step must not hide the others' results
        import traceback

        detail, status = f"{type(e).__name__}: {e}\n{traceback.format_exc()}", "FAIL"
    seconds = round(time.monotonic() - started, 1)
    print(f"{status:4} {name} ({seconds} s): {detail}", flush=True)
    return {"step": name, "status": status, "seconds": seconds, "detail": detail}


if __name__ == "__main__":
    sys.exit(main())
