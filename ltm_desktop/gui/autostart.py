"""Start at login: an XDG autostart entry (Linux), a LaunchAgent (macOS) or a Run key (Windows)."""

from __future__ import annotations

import os
import shlex
import sys
from pathlib import Path

from ltm_desktop.core.errors import KnownError

ENTRY_NAME = "ltm-desktop"
LAUNCH_AGENT = "io.ltm-desktop.tray"
RUN_KEY = r"Software\Microsoft\Windows\CurrentVersion\Run"


def launch_command(home: Path | None = None) -> list[str]:
    """How the login session should start the app (the same installation that is running now)."""
    if getattr(sys, "frozen", False):
        command = [sys.executable]
    else:
        script = Path(sys.executable).with_name("ltm-desktop" + (".exe" if os.name == "nt" else ""))
        command = [str(script)] if script.exists() else [sys.executable, "-m", "ltm_desktop", "desktop"]
    if home is not None and os.environ.get("LTM_HOME"):
        # A relocated home must survive into the login session, which does not inherit this shell's variables.
        command = ["env", f"LTM_HOME={home}", *command] if os.name != "nt" else command
    return command


def _xdg_file() -> Path:
    base = os.environ.get("XDG_CONFIG_HOME") or str(Path.home() / ".config")
    return Path(base) / "autostart" / f"{ENTRY_NAME}.desktop"


def _agent_file() -> Path:
    return Path.home() / "Library" / "LaunchAgents" / f"{LAUNCH_AGENT}.plist"


def is_enabled() -> bool:
    if sys.platform == "darwin":
        return _agent_file().exists()
    if os.name == "nt":
        import winreg

        try:
            with winreg.OpenKey(winreg.HKEY_CURRENT_USER, RUN_KEY) as key:
                winreg.QueryValueEx(key, "LTM Desktop")
            return True
        except OSError:
            return False
    return _xdg_file().exists()


def set_enabled(enabled: bool, command: list[str]) -> None:
    """Add or remove the login entry; a KnownError says why when the file or key cannot be written."""
    try:
        if sys.platform == "darwin":
            _set_agent(enabled, command)
        elif os.name == "nt":
            _set_run_key(enabled, command)
        else:
            _set_xdg(enabled, command)
    except OSError as e:
        raise KnownError(f"could not change start at login ({e.strerror or e}); check that your home folder is writable") from e


def _set_xdg(enabled: bool, command: list[str]) -> None:
    path = _xdg_file()
    if not enabled:
        path.unlink(missing_ok=True)
        return
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(
        "[Desktop Entry]\nType=Application\nName=LTM Desktop\n"
        "Comment=Search your documents and share one memory with every AI app\n"
        f"Exec={shlex.join(command)}\nTerminal=false\nX-GNOME-Autostart-enabled=true\n",
        encoding="utf-8",
    )


def _set_agent(enabled: bool, command: list[str]) -> None:
    import plistlib

    path = _agent_file()
    if not enabled:
        path.unlink(missing_ok=True)
        return
    path.parent.mkdir(parents=True, exist_ok=True)
    args = command[2:] if command[:1] == ["env"] else command  # launchd sets variables itself
    plist = {"Label": LAUNCH_AGENT, "ProgramArguments": args, "RunAtLoad": True, "ProcessType": "Interactive"}
    if command[:1] == ["env"]:
        plist["EnvironmentVariables"] = dict([command[1].split("=", 1)])
    path.write_bytes(plistlib.dumps(plist))


def _set_run_key(enabled: bool, command: list[str]) -> None:
    import subprocess
    import winreg

    with winreg.OpenKey(winreg.HKEY_CURRENT_USER, RUN_KEY, 0, winreg.KEY_SET_VALUE) as key:
        if enabled:
            winreg.SetValueEx(key, "LTM Desktop", 0, winreg.REG_SZ, subprocess.list2cmdline(command))
        else:
            try:
                winreg.DeleteValue(key, "LTM Desktop")
            except FileNotFoundError:
                pass
