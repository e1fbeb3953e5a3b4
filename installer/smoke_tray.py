"""The tray app from the bundle under a virtual screen (Xvfb + trayer from /work/shared/tools/desktop-session)."""

from __future__ import annotations

import os
import re
import shutil
import signal
import subprocess
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from smoke_sandbox import Sandbox


@dataclass(frozen=True)
class TrayReport:
    summary: str
    facts: dict[str, object] = field(default_factory=dict)


class TrayFailure(Exception):
    pass


class TrayUnavailable(Exception):
    pass


class TraySession:
    """Our own virtual screen with a tray host (its state in our scratch folder: other sessions stay untouched).

    Uses /work/shared/tools/desktop-session where it exists; elsewhere (CI) starts Xvfb and trayer itself.
    """

    def __init__(self, sandbox: Sandbox, tool: Path | None, state: Path) -> None:
        self.sb = sandbox
        self.tool = tool if tool and tool.exists() else None
        self.state = state
        self.display = ""
        self._own: list[subprocess.Popen] = []

    def _tool(self, *args: str) -> str:
        env = {**os.environ, "DESKTOP_SESSION_STATE": str(self.state)}
        return subprocess.run([str(self.tool), *args], env=env, capture_output=True, text=True, check=True).stdout

    def _x(self, *argv: str) -> subprocess.CompletedProcess:
        return subprocess.run(list(argv), env={**os.environ, "DISPLAY": self.display}, capture_output=True, text=True)

    def __enter__(self) -> TraySession:
        if self.tool:
            self.display = re.search(r"DISPLAY=(\S+)", self._tool("start")).group(1)
            return self
        missing = [t for t in ("Xvfb", "trayer", "xwininfo", "xdotool", "import") if not shutil.which(t)]
        if missing:
            raise TrayUnavailable(f"no virtual screen: missing {', '.join(missing)} (Debian: xvfb trayer x11-utils "
                                  f"xdotool imagemagick)")
        n = next(n for n in range(90, 200)
                 if not Path(f"/tmp/.X11-unix/X{n}").exists() and not Path(f"/tmp/.X{n}-lock").exists())
        self.display = f":{n}"
        self._own.append(subprocess.Popen(["Xvfb", self.display, "-screen", "0", "1280x800x24", "-nolisten", "tcp"],
                                          stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL))
        for _ in range(100):
            if Path(f"/tmp/.X11-unix/X{n}").exists():
                break
            time.sleep(0.1)
        self._own.append(subprocess.Popen(
            ["trayer", "--edge", "top", "--align", "right", "--widthtype", "pixel", "--width", "160", "--height", "28",
             "--transparent", "false", "--tint", "0xdddddd"], env={**os.environ, "DISPLAY": self.display},
            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL))
        time.sleep(1)
        return self

    def __exit__(self, *exc) -> None:
        if self.tool:
            self._tool("stop")
        for proc in reversed(self._own):
            proc.terminate()
            proc.wait(10)

    def click(self, x: int, y: int, button: int) -> None:
        self._x("xdotool", "mousemove", str(x), str(y), "click", str(button))

    def shot(self, path: Path) -> None:
        self._x("import", "-window", "root", str(path))

    def windows(self) -> str:
        return self._x("xwininfo", "-root", "-tree").stdout

    def tray_icon(self) -> tuple[int, int, int, int] | None:
        """Geometry (w, h, x, y) of our icon embedded in the tray host's panel, if it is there."""
        panel = False
        for line in self.windows().splitlines():
            if '"panel"' in line and '"trayer"' in line:
                panel = True
            elif panel and '("ltm-desktop"' in line:
                m = re.search(r"(\d+)x(\d+)\+-?\d+\+-?\d+\s+\+(-?\d+)\+(-?\d+)", line)
                if m:
                    return tuple(int(v) for v in m.groups())  # type: ignore[return-value]
        return None

    def run_tray(self, exe: Path, make_env: Callable[..., dict[str, str]], screenshot: Path) -> TrayReport:
        env = make_env(DISPLAY=self.display)
        log = self.sb.scratch / "tray.log"
        started = time.monotonic()
        tray = self.sb.popen([str(exe)], env, log)
        try:
            icon = _wait(lambda: self.tray_icon(), 90, tray, log)
            icon_seconds = time.monotonic() - started
            children = _wait(lambda: _running(exe) >= CHILDREN and _running(exe), 120, tray, log)
            time.sleep(3)  # let the first status reach the icon and the tooltip
            w, h, x, y = icon
            self.click(x + w // 2, y + h // 2, 3)  # right click opens the menu, for the picture
            time.sleep(1.5)
            screenshot.parent.mkdir(parents=True, exist_ok=True)
            self.shot(screenshot)
            self._x("xdotool", "key", "Escape")
            second = self.sb.run([str(exe)], env, timeout=60)
            if second.rc != 0 or tray.poll() is not None:
                raise TrayFailure(f"second copy: rc={second.rc}, first still running: {tray.poll() is None}; "
                                  f"{second.tail(400)}")
            tray.send_signal(signal.SIGTERM)
            code = tray.wait(60)
            gone = _wait(lambda: not _running(exe), 30, None, log, must=False)
        finally:
            if tray.poll() is None:
                tray.kill()
                tray.wait(10)
        facts = {"tray_icon_s": round(icon_seconds, 2)}
        second_line = second.err.strip().splitlines()[-1] if second.err.strip() else "(no message)"
        return TrayReport(
            f"icon in the tray after {icon_seconds:.1f} s; children {', '.join(sorted(children))} started; "
            f"screenshot {screenshot.name}; second copy exited {second.rc} in {second.seconds:.1f} s ({second_line!r}) "
            f"while the first kept running; SIGTERM -> exit {code}, children "
            f"{'gone' if gone else 'STILL RUNNING: ' + ', '.join(sorted(_running(exe)))}",
            facts,
        )


CHILDREN = {"serve", "worker"}


def _running(exe: Path) -> set[str]:
    """Which of the tray's child subcommands run from this bundle right now (by their command lines)."""
    seen = set()
    for proc in Path("/proc").iterdir():
        if not proc.name.isdigit():
            continue
        try:
            argv = (proc / "cmdline").read_bytes().split(b"\0")
        except OSError:
            continue
        args = [a.decode(errors="replace") for a in argv if a]
        if args and args[0] == str(exe) and "child-guard" not in args:
            seen.update(n for n in CHILDREN if n in args[1:])
    return seen


def _wait(probe: Callable[[], object], seconds: float, proc: subprocess.Popen | None, log: Path, must: bool = True):
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        value = probe()
        if value:
            return value
        if proc is not None and proc.poll() is not None:
            raise TrayFailure(f"the tray exited with {proc.returncode}: {log.read_text(errors='replace')[-1500:]}")
        time.sleep(0.5)
    if must:
        raise TrayFailure(f"gave up after {seconds:.0f} s; tray output: {log.read_text(errors='replace')[-1500:]}")
    return None
