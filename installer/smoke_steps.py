"""The smoke test's steps; each returns what it saw, raises SmokeFailure with the evidence, or Skip with the reason."""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import time
from pathlib import Path

import smoke_docs as docs
from smoke_mcp import search_over_stdio
from smoke_sandbox import Ran, Sandbox
from smoke_tray import TrayFailure, TraySession, TrayUnavailable

ROOT = Path(__file__).resolve().parents[1]


class SmokeFailure(Exception):
    """A step saw something wrong."""


class Skip(Exception):  # noqa: N818 - reads as `raise Skip(reason)`
    """A step cannot run on this machine (and says why)."""


def expect(condition: object, message: str, ran: Ran | None = None) -> None:
    if not condition:
        raise SmokeFailure(message + (f" | rc={ran.rc} output: {ran.tail()}" if ran else ""))


def source_version() -> str:
    text = (ROOT / "ltm_desktop" / "__init__.py").read_text()
    return re.search(r'__version__ = "([^"]+)"', text).group(1)


def tree_state(root: Path) -> dict[str, tuple[int, int]]:
    return {str(p.relative_to(root)): (p.lstat().st_size, p.lstat().st_mtime_ns) for p in root.rglob("*")}


class Steps:
    def __init__(self, sandbox: Sandbox, source: Path, scratch: Path, screenshot: Path, tray: bool) -> None:
        self.sb = sandbox
        self.source = source
        self.scratch = scratch
        self.screenshot = screenshot
        self.tray_wanted = tray
        self.app = scratch / "app"
        self.home = sandbox.user_dir("home")
        self.ltm_home = sandbox.user_dir("data") / "ltm"  # does not exist yet: the app must create it
        self.facts: dict[str, object] = {}
        self.before: dict[str, tuple[int, int]] = {}
        self.sample: dict[str, Path] = {}
        self.has_tesseract = shutil.which("tesseract") is not None
        self.stale_seen: str | None = None

    @property
    def exe(self) -> Path:
        return self.app / "ltm-desktop"

    def env(self, **extra: str) -> dict[str, str]:
        return self.sb.env(self.home, self.ltm_home, **extra)

    def ltm(self, *args: str, env: dict[str, str] | None = None, timeout: float = 300) -> Ran:
        return self.sb.run([str(self.exe), *args], env or self.env(), timeout)

    def sequence(self):
        return [
            ("bundle in a read-only place", self.read_only_place),
            ("--version", self.version),
            ("desktop entries (install.sh)", self.desktop_entries),
            ("doctor on a fresh home", self.doctor_fresh),
            ("ingest a sample (PDF + scan)", self.ingest),
            ("doctor after ingest", self.doctor_after),
            ("search over stdio through the MCP client", self.mcp_search),
            ("scans without tesseract", self.without_tesseract),
            ("tray under a virtual screen + second copy", self.tray),
            ("full disk at first start", self.full_disk_first_start),
            ("disk fills up while indexing", self.disk_fills_up),
            ("bundle moved: doctor notices stale config", self.moved_doctor),
            ("bundle moved: ltm connect refreshes the path", self.moved_connect),
            ("nothing was written into the bundle", self.bundle_untouched),
        ]

    # ---- steps -----------------------------------------------------------------------------------------------

    def read_only_place(self) -> str:
        self.before = tree_state(self.source)
        if self.sb.isolated:
            self.sb.mount_read_only(self.source, self.app)
            try:
                (self.app / "probe").write_text("x")
            except OSError as e:
                return f"bind-mounted read-only at {self.app} (even root gets: {e.strerror})"
            raise SmokeFailure(f"{self.app} is writable although mounted read-only")
        if self.source != self.app:
            shutil.copytree(self.source, self.app, symlinks=True)
            self.before = tree_state(self.app)
        for p in [self.app, *self.app.rglob("*")]:
            if not p.is_symlink():
                p.chmod(p.stat().st_mode & ~0o222)
        return f"copied to {self.app} and made read-only with chmod (not root: no read-only mount)"

    def version(self) -> str:
        cold = self.ltm("--version")
        warm = self.ltm("--version")
        want = f"ltm {source_version()}"
        expect(cold.rc == 0 and cold.out.strip() == want, f"expected {want!r}", cold)
        self.facts.update(version_first_s=round(cold.seconds, 2), version_second_s=round(warm.seconds, 2))
        return f"{cold.out.strip()} in {cold.seconds:.2f} s (first run), {warm.seconds:.2f} s (second)"

    def desktop_entries(self) -> str:
        ran = self.sb.run(["/bin/bash", str(self.app / "install.sh")], self.env())
        expect(ran.rc == 0, "install.sh failed", ran)
        entry = self.home / ".local/share/applications/ltm-desktop.desktop"
        autostart = self.home / ".config/autostart/ltm-desktop.desktop"
        for f in (entry, autostart):
            expect(f.is_file(), f"{f} was not written", ran)
            expect(f'Exec="{self.exe}"' in f.read_text(), f"{f} does not launch {self.exe}: {f.read_text()}")
        validator = shutil.which("desktop-file-validate")
        if validator:
            check = subprocess.run([validator, str(entry), str(autostart)], capture_output=True, text=True)
            expect(check.returncode == 0, f"desktop-file-validate: {check.stdout}{check.stderr}")
        link = self.sb.run([str(self.home / ".local/bin/ltm"), "--version"], self.env())
        expect(link.rc == 0, "~/.local/bin/ltm does not run", link)
        return (f"menu + autostart entries launch {self.exe}"
                f"{' (desktop-file-validate: ok)' if validator else ''}; ~/.local/bin/ltm runs")

    def _doctor(self, env: dict[str, str] | None = None) -> tuple[Ran, dict[str, tuple[bool, str]]]:
        ran = self.ltm("doctor", "--json", env=env)
        try:
            checks = {c["name"]: (c["ok"], c["detail"]) for c in json.loads(ran.out)}
        except (json.JSONDecodeError, KeyError, TypeError) as e:
            raise SmokeFailure(f"doctor --json printed no JSON ({e})" + f" | {ran.tail()}") from None
        return ran, checks

    def doctor_fresh(self) -> str:
        ran, checks = self._doctor()
        self.facts["doctor_fresh_s"] = round(ran.seconds, 2)
        pg_ok, pg = checks.get("postgres", (False, "missing"))
        expect(pg_ok and "pgvector" in pg and "embedded" in pg, f"postgres: {pg}", ran)
        models_ok, models = checks.get("models", (False, "missing"))
        expect(models_ok and str(self.app) in models, f"models not taken from the bundle: {models}", ran)
        expect(checks.get("embedder", (False,))[0], f"embedder: {checks.get('embedder')}", ran)
        if self.has_tesseract:
            expect(checks.get("tesseract", (False,))[0], f"tesseract: {checks.get('tesseract')}", ran)
        others = {n: d for n, (ok, d) in checks.items() if not ok}
        return f"{pg}; {models}" + (f"; not ok before the first ingest: {others}" if others else "")

    def ingest(self) -> str:
        self.sample = docs.sample_folder(self.scratch / "docs")
        self.sb.give(self.scratch / "docs")
        # Two workers: extraction then runs in a spawn-context process pool, which a frozen app supports
        # only through multiprocessing.freeze_support() in its entry point.
        ran = self.ltm("ingest", "--json", "--workers", "2", str(self.scratch / "docs"))
        expect(ran.rc == 0, "ingest failed", ran)
        summary = json.loads(ran.out)
        expect(summary["ingested"] == 3, f"expected 3 documents ingested: {summary}")
        if self.has_tesseract:
            expect(summary["ocr_pages"] >= 1, f"the scan was not OCR'd: {summary}")
        self.facts["first_ingest_s"] = round(ran.seconds, 2)
        return f"{summary['ingested']} documents, {summary['chunks']} chunks, {summary['ocr_pages']} OCR'd page(s)"

    def doctor_after(self) -> str:
        ran, checks = self._doctor()
        bad = {n: d for n, (ok, d) in checks.items() if not ok}
        if not self.has_tesseract:
            bad.pop("tesseract", None)
        expect(not bad, f"failing checks: {bad}", ran)
        return f"{len(checks)} checks ok ({', '.join(checks)})"

    def mcp_search(self) -> str:
        queries = [docs.LEASE_QUERY] + ([docs.SCAN_QUERY] if self.has_tesseract else [])
        found = search_over_stdio(self.sb.prefix() + [str(self.exe), "serve", "--stdio"], self.env(), queries)
        expect("ltm_search" in found.tools, f"ltm_search not offered: {found.tools}")
        lease = found.hits[docs.LEASE_QUERY]
        expect(lease and lease[0]["path"].endswith("house-notes.pdf") and "flowerpot" in lease[0]["snippet"],
               f"the lease fact was not the top hit: {lease[:2]}")
        if self.has_tesseract:
            scan = found.hits[docs.SCAN_QUERY]
            expect(scan and scan[0]["path"].endswith("invoice-scan.pdf"),
                   f"the scanned invoice was not found: {scan[:2]}")
        self.facts["mcp_first_answer_s"] = round(found.first_answer_seconds, 2)
        top = f"{Path(lease[0]['path']).name} ({found.confidence[docs.LEASE_QUERY]})"
        return (f"{len(found.tools)} tools; top hit {top}"
                f"{', scan found by its OCR text' if self.has_tesseract else ''}; first answer "
                f"{found.first_answer_seconds:.1f} s after launch")

    def without_tesseract(self) -> str:
        nobin = self.sb.user_dir("empty-path")
        folder = self.scratch / "docs-no-ocr"
        folder.mkdir()
        docs.born_digital_pdf(folder / "packing-list.pdf", ["Pack the tent, two lamps and the red kettle."])
        docs.scanned_pdf(folder / "receipt-scan.pdf", "Receipt 5512: bicycle repair, 45 euros.")
        self.sb.give(folder)
        env = self.env(PATH=str(nobin))
        ran = self.ltm("ingest", "--json", str(folder), env=env)
        summary = json.loads(ran.out or "{}")
        expect(ran.rc == 1 and summary.get("ingested") == 1, "expected the born-digital file in, the scan failed", ran)
        reason = summary["failed"][0]["error"] if summary.get("failed") else ""
        expect("tesseract" in reason and "install" in reason,
               f"the scan's reason does not say how to fix it: {reason!r}")
        _, checks = self._doctor(env)
        ok, detail = checks.get("tesseract", (True, "missing"))
        expect(not ok and "install" in detail, f"doctor did not explain the missing tesseract: {detail}")
        if not self.has_tesseract:
            return f"scan: {reason}; doctor: {detail}"
        again = self.ltm("ingest", "--json", str(folder))
        redone = json.loads(again.out or "{}")
        expect(again.rc == 0 and redone.get("ocr_pages") == 1, "once tesseract is back, the scan should index", again)
        return f"scan waits with: {reason!r}; doctor: {detail!r}; indexed once tesseract is on PATH again"

    def tray(self) -> str:
        if not self.tray_wanted:
            raise Skip("--no-tray")
        probe = self.ltm("desktop", "--help")
        if probe.rc != 0:
            raise Skip(f"this build has no tray app (`ltm-desktop desktop` is unknown): {probe.tail(200)}")
        tool = Path("/work/shared/tools/desktop-session")
        try:
            with TraySession(self.sb, tool, self.scratch / "desktop-session") as session:
                report = session.run_tray(self.exe, self.env, self.screenshot)
        except TrayUnavailable as e:
            raise Skip(str(e)) from None
        except TrayFailure as e:
            raise SmokeFailure(str(e)) from None
        self.facts.update(report.facts)
        return report.summary + ("; database still running after Quit" if postgres_running(self.ltm_home / "pgdata")
                                 else "; database stopped with it")

    def full_disk_first_start(self) -> str:
        if not self.sb.isolated:
            raise Skip("needs root to mount a tiny tmpfs; checked by hand: see docs/install.md")
        tiny = self.scratch / "tiny-disk"
        self.sb.mount_tmpfs(tiny, 16)
        try:
            env = self.sb.env(self.home, tiny / "ltm")
            ran = self.ltm("ingest", str(self.sample["lease"]), env=env)
        finally:
            leaked = self.sb.unmount(tiny)
        expect(not leaked, f"processes kept running on the tiny disk: {leaked}")
        line = ran.err.strip()
        expect(ran.rc == 1 and "free" in line and "Traceback" not in line and "\n" not in line,
               "expected one clear line about free space", ran)
        return line

    def disk_fills_up(self) -> str:
        if not self.sb.isolated:
            raise Skip("needs root to mount a small tmpfs; checked by hand: see docs/install.md")
        small = self.scratch / "small-disk"
        self.sb.mount_tmpfs(small, 300)
        try:
            env = self.sb.env(self.home, small / "ltm")
            first = self.ltm("ingest", str(self.sample["lease"]), env=env)
            expect(first.rc == 0, "the first ingest on the small disk failed", first)
            # A dozen pages: enough new rows to need new database pages, few enough to embed quickly.
            big = self.sb.give(docs.long_pdf(self.scratch / "ledger.pdf", 12, "ledger"))
            filler = fill_disk(small / "filler.bin")
            full = self.ltm("ingest", str(big), env=env)
            line = full.err.strip()
            expect(full.rc == 1 and ("full" in line or "No space left" in line) and "Traceback" not in line
                   and line.count("\n") == 0, "expected one clear line about the full disk", full)
            search = self.ltm("search", docs.LEASE_QUERY, env=env)
            searched = ("search still answered" if search.rc == 0 and "flowerpot" in search.out
                        else f"search said: {search.err.strip()!r}")
            expect(search.rc == 0 or search.err.strip().count("\n") == 0, "search on a full disk crashed", search)
            filler.unlink()
            again = self.ltm("ingest", str(big), env=env)
            expect(again.rc == 0, "after freeing space the same file should index", again)
        finally:
            leaked = self.sb.unmount(small)
        expect(not leaked, f"processes kept running on the small disk: {leaked}")
        return f"{line!r}; {searched}; indexed after space was freed"

    def moved_doctor(self) -> str:
        if not self.sb.isolated and self.source == self.app:
            raise Skip("cannot move a bundle we do not own")
        self.ltm("db", "stop")  # a person quits the app before moving it; a running server holds the folder
        (self.home / ".cursor").mkdir()
        self.sb.give(self.home / ".cursor")
        connect = self.ltm("connect", "cursor")
        expect(connect.rc == 0, "ltm connect cursor failed", connect)
        written = self._cursor_command()
        expect(written == str(self.exe), f"cursor's config launches {written}, not {self.exe}")
        stop = self.ltm("db", "stop")
        handles = (self.ltm_home / "pgdata" / ".handle_pids.json")
        stop_said = f"`ltm db stop` said {stop.tail(200)!r}; pgserver's handle list: " + (
            handles.read_text() if handles.exists() else "(none)")
        old_exe = self.exe
        moved = self.scratch / "moved"
        if self.sb.isolated:
            self.sb.mount_read_only(self.source, moved)
            leaked = self.sb.unmount(self.app)
            expect(not leaked, f"processes from the bundle still ran after `ltm db stop` ({stop_said}): {leaked}")
        else:
            self.app.rename(moved)
        self.app = moved
        expect(not old_exe.exists(), f"{old_exe} still exists after the move")
        ran, checks = self._doctor()
        related = {n: (ok, d) for n, (ok, d) in checks.items() if "client" in n or "connect" in n or "app" in n}
        self.stale_seen = next((d for ok, d in related.values() if not ok and "cursor" in d.lower()), None)
        if not related:
            raise Skip(f"this build's doctor has no AI-app config check (checks: {', '.join(checks)}); "
                       f"`ltm connect cursor --check` is used below instead")
        expect(self.stale_seen, f"doctor did not flag cursor's stale path {old_exe}: {related}", ran)
        return f"doctor: {self.stale_seen}"

    def moved_connect(self) -> str:
        if self.app.name != "moved":
            raise Skip("the bundle was not moved")
        check = self.ltm("connect", "cursor", "--check")
        expect(check.rc != 0 and ("does not exist" in check.out + check.err or "moved" in check.out + check.err),
               "the live check should fail on the old path", check)
        refresh = self.ltm("connect", "cursor")
        expect(refresh.rc == 0, "ltm connect cursor (refresh) failed", refresh)
        expect(self._cursor_command() == str(self.exe), f"cursor's config still launches {self._cursor_command()}")
        _, checks = self._doctor()
        still = {n: d for n, (ok, d) in checks.items() if not ok and ("client" in n or "connect" in n)}
        expect(not still, f"doctor still unhappy after the refresh: {still}")
        self.ltm("db", "stop")
        return f"config now launches {self.exe}; live round trip ok"

    def bundle_untouched(self) -> str:
        after = tree_state(self.source)
        changed = sorted(k for k in set(after) | set(self.before) if after.get(k) != self.before.get(k))
        expect(not changed, f"{len(changed)} paths changed inside the bundle: {changed[:10]}")
        return f"{len(after)} files and folders unchanged"

    def environment_facts(self) -> dict[str, object]:
        return {"isolated": self.sb.isolated, "tesseract_on_host": self.has_tesseract}

    def _cursor_command(self) -> str | None:
        config = self.home / ".cursor" / "mcp.json"
        try:
            return json.loads(config.read_text())["mcpServers"]["ltm-desktop"]["command"]
        except (OSError, KeyError, json.JSONDecodeError):
            return None


def postgres_running(pgdata: Path) -> bool:
    try:
        pid = int((pgdata / "postmaster.pid").read_text().split()[0])
    except (OSError, ValueError, IndexError):
        return False
    return Path(f"/proc/{pid}").exists()


def fill_disk(path: Path) -> Path:
    """Write zeros until the filesystem refuses another byte (halving the block size down to one page)."""
    block = 1 << 20
    with open(path, "wb", buffering=0) as f:
        while block >= 4096:
            try:
                f.write(b"\0" * block)
            except OSError:
                block //= 2
    os.sync()
    time.sleep(0.2)
    return path
