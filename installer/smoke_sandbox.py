"""Where the smoke test runs the bundle: a scratch folder, a user without privileges, and no network.

As root (here and on CI with sudo) the bundle is bind-mounted read-only, every command runs as `nobody` inside
a fresh network namespace with only loopback, and tiny tmpfs mounts stand in for a full disk. Without root the
same commands run as the current user, the bundle is made read-only with chmod, and the full-disk checks are
skipped (they say so).
"""

from __future__ import annotations

import os
import shutil
import signal
import subprocess
import time
from dataclasses import dataclass
from pathlib import Path

NOBODY = 65534


@dataclass(frozen=True)
class Ran:
    rc: int
    out: str
    err: str
    seconds: float

    def tail(self, n: int = 1500) -> str:
        return (self.out + "\n" + self.err).strip()[-n:]


def _can_mount(scratch: Path) -> bool:
    probe = scratch / ".mount-probe"
    probe.mkdir(exist_ok=True)
    mount = ["mount", "-t", "tmpfs", "-o", "size=1m", "tmpfs", str(probe)]
    ok = subprocess.run(mount, capture_output=True).returncode == 0
    if ok:
        subprocess.run(["umount", str(probe)], check=True)
    probe.rmdir()
    return ok


class Sandbox:
    """Runs the bundle's executable as a plain user, offline, with a clean environment."""

    def __init__(self, scratch: Path) -> None:
        self.scratch = scratch
        tools = all(shutil.which(t, path="/usr/sbin:/usr/bin:/sbin:/bin") for t in ("unshare", "ip", "setpriv"))
        self.isolated = os.geteuid() == 0 and tools and _can_mount(scratch)
        self.uid, self.gid = (NOBODY, NOBODY) if self.isolated else (os.getuid(), os.getgid())
        self.mounts: list[Path] = []
        self.homes: set[Path] = set()
        self.tmp = self.user_dir("tmp")
        self.runtime = self.user_dir("runtime", mode=0o700)

    # ---- folders and mounts ----------------------------------------------------------------------------

    def user_dir(self, name: str, mode: int = 0o755) -> Path:
        """A folder under scratch owned by the sandbox user."""
        path = self.scratch / name
        path.mkdir(parents=True, exist_ok=True)
        os.chown(path, self.uid, self.gid)
        path.chmod(mode)
        return path

    def give(self, path: Path) -> Path:
        """Hand a file or tree the test wrote to the sandbox user."""
        for p in [path, *path.rglob("*")] if path.is_dir() else [path]:
            os.chown(p, self.uid, self.gid)
        return path

    def mount_read_only(self, source: Path, target: Path) -> None:
        target.mkdir(parents=True, exist_ok=True)
        subprocess.run(["mount", "--bind", "-o", "ro", str(source), str(target)], check=True)
        # Older util-linux ignores ro on the first bind; a remount makes sure.
        subprocess.run(["mount", "-o", "remount,bind,ro", str(target)], check=True)
        self.mounts.append(target)

    def mount_tmpfs(self, target: Path, size_mb: int) -> None:
        target.mkdir(parents=True, exist_ok=True)
        subprocess.run(["mount", "-t", "tmpfs", "-o", f"size={size_mb}m,mode=0755,uid={self.uid},gid={self.gid}",
                        "tmpfs", str(target)], check=True)
        self.mounts.append(target)

    def unmount(self, target: Path) -> list[str]:
        """Unmount target; returns the processes that still ran from it (they are ended first: a leak to report)."""
        self.stop_postgres_under(target)
        leftovers = processes_using(target)
        for pid, _ in leftovers:
            _end(pid)
        subprocess.run(["umount", str(target)], check=True)
        self.mounts.remove(target)
        return [f"{pid} {argv}" for pid, argv in leftovers]

    # ---- running -----------------------------------------------------------------------------------------

    def prefix(self) -> list[str]:
        """What goes in front of a command: a new network namespace (loopback only), then the plain user."""
        if not self.isolated:
            return []
        tool = {name: shutil.which(name, path="/usr/sbin:/usr/bin:/sbin:/bin") for name in ("unshare", "ip", "setpriv")}
        return [tool["unshare"], "--net", "--", "/bin/sh", "-c", f'{tool["ip"]} link set lo up && exec "$@"', "sh",
                tool["setpriv"], f"--reuid={self.uid}", f"--regid={self.gid}", "--clear-groups", "--"]

    def env(self, home: Path, ltm_home: Path, path: str = "/usr/local/bin:/usr/bin:/bin", **extra: str
            ) -> dict[str, str]:
        """A clean environment: nothing of ours leaks in (no LTM_MODELS_DIR, no venv, no proxies that work)."""
        self.homes.add(ltm_home)
        env = {
            "HOME": str(home), "LTM_HOME": str(ltm_home), "PATH": path, "LANG": "C.UTF-8",
            "TMPDIR": str(self.tmp), "XDG_RUNTIME_DIR": str(self.runtime),
        }
        if not self.isolated:  # no namespace to cut the network: point every proxy variable at a closed port
            env.update({k: "http://127.0.0.1:9" for k in ("http_proxy", "https_proxy", "HTTP_PROXY", "HTTPS_PROXY")})
        env.update(extra)
        return env

    def run(self, argv: list[str], env: dict[str, str], timeout: float = 300) -> Ran:
        started = time.monotonic()
        try:
            p = subprocess.run(self.prefix() + argv, env=env, capture_output=True, text=True, timeout=timeout,
                               cwd=self.scratch)
        except subprocess.TimeoutExpired as e:
            return Ran(-1, _text(e.stdout), _text(e.stderr) + f"\n(timed out after {timeout:.0f} s)", timeout)
        return Ran(p.returncode, p.stdout, p.stderr, time.monotonic() - started)

    def popen(self, argv: list[str], env: dict[str, str], log: Path) -> subprocess.Popen:
        out = open(log, "wb")  # noqa: SIM115 - the caller's process owns it until it exits
        return subprocess.Popen(self.prefix() + argv, env=env, stdout=out, stderr=subprocess.STDOUT, cwd=self.scratch)

    # ---- cleaning up ---------------------------------------------------------------------------------------

    def stop_postgres_under(self, root: Path) -> None:
        """Stop embedded servers whose data lives under root (they keep running after the CLI exits, by design)."""
        for home in list(self.homes):
            if home == root or root in home.parents:
                stop_postgres(home / "pgdata")

    def close(self) -> None:
        for home in list(self.homes):
            stop_postgres(home / "pgdata")
        for target in reversed(self.mounts):
            if subprocess.run(["umount", str(target)], capture_output=True).returncode != 0:
                subprocess.run(["umount", "-l", str(target)], capture_output=True)
        self.mounts.clear()


def stop_postgres(pgdata: Path, timeout: float = 20) -> None:
    """Fast shutdown of the postmaster recorded in pgdata (SIGINT = fast mode), waiting until it is gone."""
    try:
        pid = int((pgdata / "postmaster.pid").read_text().split()[0])
    except (OSError, ValueError, IndexError):
        return
    try:
        os.kill(pid, signal.SIGINT)
    except ProcessLookupError:
        return
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline and _alive(pid):
        time.sleep(0.2)
    if _alive(pid):
        os.kill(pid, signal.SIGKILL)


def processes_using(root: Path) -> list[tuple[int, str]]:
    """Processes whose executable or working folder lies under root."""
    found = []
    for proc in Path("/proc").iterdir():
        if not proc.name.isdigit() or int(proc.name) == os.getpid():
            continue
        try:
            places = [Path(os.readlink(proc / "exe")), Path(os.readlink(proc / "cwd"))]
            argv = (proc / "cmdline").read_bytes().replace(b"\0", b" ").decode(errors="replace").strip()
        except OSError:
            continue
        if any(p == root or root in p.parents for p in places) and _alive(int(proc.name)):
            found.append((int(proc.name), argv[:200]))
    return found


def _end(pid: int) -> None:
    try:
        os.kill(pid, signal.SIGTERM)
        for _ in range(50):
            if not _alive(pid):
                return
            time.sleep(0.1)
        os.kill(pid, signal.SIGKILL)
    except ProcessLookupError:
        pass


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    # A postmaster whose parent is gone can linger as a zombie until init reaps it: that is stopped too.
    try:
        return Path(f"/proc/{pid}/stat").read_text().split(")")[-1].split()[0] != "Z"
    except OSError:
        return False


def _text(value: bytes | str | None) -> str:
    if value is None:
        return ""
    return value.decode(errors="replace") if isinstance(value, bytes) else value
