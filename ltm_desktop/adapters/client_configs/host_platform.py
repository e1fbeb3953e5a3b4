"""Which OS we are on and where its per-user folders are, as one injectable value.

Tests lay out a fake home like Linux, macOS or Windows and pass a HostPlatform for it, so every client's
config location is exercised on one machine without touching the real home.
"""

from __future__ import annotations

import os
import platform
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Literal

System = Literal["linux", "darwin", "windows"]


@dataclass(frozen=True)
class HostPlatform:
    """The OS family, the user's home and the environment variables that relocate per-user folders."""

    system: System
    home: Path
    env: Mapping[str, str] = field(default_factory=dict)

    @classmethod
    def current(cls) -> HostPlatform:
        """The machine this process runs on."""
        name = platform.system().lower()
        system: System = "darwin" if name == "darwin" else "windows" if name == "windows" else "linux"
        return cls(system, Path.home(), dict(os.environ))

    def _env_path(self, name: str) -> Path | None:
        value = self.env.get(name, "").strip()
        return Path(value) if value else None

    @property
    def appdata(self) -> Path:
        """%APPDATA% (Windows roaming profile folder)."""
        return self._env_path("APPDATA") or self.home / "AppData" / "Roaming"

    @property
    def localappdata(self) -> Path:
        """%LOCALAPPDATA% (where MSIX packages keep their redirected files)."""
        return self._env_path("LOCALAPPDATA") or self.home / "AppData" / "Local"

    @property
    def xdg_config(self) -> Path:
        """$XDG_CONFIG_HOME, else ~/.config."""
        return self._env_path("XDG_CONFIG_HOME") or self.home / ".config"

    @property
    def app_support(self) -> Path:
        """~/Library/Application Support (macOS)."""
        return self.home / "Library" / "Application Support"

    def user_config_root(self) -> Path:
        """Where desktop apps keep per-user settings on this OS (Electron's userData parent)."""
        if self.system == "darwin":
            return self.app_support
        if self.system == "windows":
            return self.appdata
        return self.xdg_config

    def tilde(self, path: Path) -> str:
        """The path with the home folder shown as ~ (for messages; never for config values)."""
        try:
            return "~/" + path.relative_to(self.home).as_posix()
        except ValueError:
            return str(path)
