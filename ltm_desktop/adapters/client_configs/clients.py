"""Where each AI app keeps its MCP config on each OS, which format it uses, and how to tell it is installed.

Sources and caveats are in docs/connect.md; locations are derived from a HostPlatform so tests can lay out
fake Linux, macOS and Windows homes.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ltm_desktop.adapters.client_configs import dialects
from ltm_desktop.adapters.client_configs.dialects import EntryDialect
from ltm_desktop.adapters.client_configs.host_platform import HostPlatform
from ltm_desktop.adapters.client_configs.servers_file import ServersFile, TomlServersFile, json_servers

CLIENT_IDS = ("claude-desktop", "claude-code", "lm-studio", "cursor", "vscode", "codex", "windsurf")


@dataclass(frozen=True)
class ClientTarget:
    """One AI app on one machine: its config file, entry format, install evidence and restart advice."""

    client_id: str
    display_name: str
    file: ServersFile
    dialect: EntryDialect
    evidence: tuple[Path, ...]
    restart_hint: str
    http_unsupported: str | None = None
    link: Callable[[str, Mapping[str, Any]], str] | None = None
    notes: tuple[str, ...] = field(default=())

    @property
    def config_path(self) -> Path:
        return self.file.path

    def is_installed(self) -> bool:
        """True when any of the app's folders or files exist for this user."""
        return any(p.exists() for p in self.evidence)

    def snippet(self, name: str, entry: Mapping[str, Any]) -> str:
        """The text to paste into the config file by hand."""
        if isinstance(self.file, TomlServersFile):
            return dialects.toml_snippet(self.file.key, name, entry)
        return dialects.json_snippet(self.file.key, name, entry)

    def deeplink(self, name: str, entry: Mapping[str, Any]) -> str | None:
        """A one-click install link, for apps that have one."""
        return self.link(name, entry) if self.link else None


def claude_desktop(p: HostPlatform) -> ClientTarget:
    notes: list[str] = []
    if p.system == "darwin":
        folder = p.app_support / "Claude"
        evidence = (folder,)
    elif p.system == "windows":
        classic = p.appdata / "Claude"
        # The Store (MSIX) build reads a redirected copy; a file in %APPDATA% is silently ignored by it.
        packages = sorted((p.localappdata / "Packages").glob("Claude_*"))
        folder = packages[0] / "LocalCache" / "Roaming" / "Claude" if packages else classic
        if packages:
            notes.append("Microsoft Store (MSIX) install: writing its redirected config folder")
        evidence = (*packages, classic)
    else:
        folder = p.xdg_config / "Claude"
        evidence = (folder,)
        notes.append("no official Linux build; this is where claude-desktop-debian looks")
    return ClientTarget(
        "claude-desktop",
        "Claude Desktop",
        json_servers(folder / "claude_desktop_config.json", "mcpServers"),
        dialects.PLAIN,
        evidence,
        "Quit Claude Desktop completely (from its tray or menu-bar icon, not just the window) and open it again: "
        "it reads its config only at startup.",
        http_unsupported=(
            "Claude Desktop's config file only launches local commands (it skips URL entries); use "
            "--transport stdio, or for claude.ai run `ltm tunnel start` and add a custom connector"
        ),
        notes=tuple(notes),
    )


def claude_code(p: HostPlatform) -> ClientTarget:
    return ClientTarget(
        "claude-code",
        "Claude Code",
        json_servers(p.home / ".claude.json", "mcpServers"),
        dialects.TYPED,
        (p.home / ".claude.json", p.home / ".claude"),
        "Start a new Claude Code session (running sessions do not reload ~/.claude.json); `/mcp` shows the status.",
        notes=("user scope: available in every project",),
    )


def lmstudio_home(p: HostPlatform) -> Path:
    """LM Studio's home folder, resolved as lmstudio-js does: pointer file, ~/.cache/lm-studio, ~/.lmstudio."""
    pointer = p.home / ".lmstudio-home-pointer"
    try:
        target = pointer.read_text(encoding="utf-8").strip()
    except (OSError, UnicodeDecodeError):
        target = ""
    if target:
        return Path(target)
    legacy = p.home / ".cache" / "lm-studio"
    return legacy if legacy.exists() else p.home / ".lmstudio"


def lm_studio(p: HostPlatform) -> ClientTarget:
    home = lmstudio_home(p)
    return ClientTarget(
        "lm-studio",
        "LM Studio",
        json_servers(home / "mcp.json", "mcpServers"),
        dialects.PLAIN,
        (home, p.home / ".lmstudio-home-pointer"),
        "LM Studio reloads mcp.json when it changes; if the server does not show under Program → Integrations, "
        "restart LM Studio (it can overwrite edits made while it runs, so closing it first is safest).",
        link=dialects.lmstudio_link,
    )


def cursor(p: HostPlatform) -> ClientTarget:
    folder = p.home / ".cursor"
    return ClientTarget(
        "cursor",
        "Cursor",
        json_servers(folder / "mcp.json", "mcpServers"),
        dialects.PLAIN,
        (folder,),
        "Open Cursor Settings → MCP and enable the server (restart Cursor if it does not appear).",
        link=dialects.cursor_link,
    )


def vscode(p: HostPlatform) -> ClientTarget:
    folder = p.user_config_root() / "Code" / "User"
    return ClientTarget(
        "vscode",
        "VS Code",
        json_servers(folder / "mcp.json", "servers"),
        dialects.TYPED,
        (folder,),
        "VS Code picks up mcp.json by itself; start the server from the `MCP: List Servers` command if needed.",
        link=dialects.vscode_link,
    )


def codex(p: HostPlatform) -> ClientTarget:
    env_home = p.env.get("CODEX_HOME", "").strip()
    folder = Path(env_home) if env_home else p.home / ".codex"
    return ClientTarget(
        "codex",
        "Codex",
        TomlServersFile(folder / "config.toml", "mcp_servers"),
        dialects.CODEX,
        (folder,),
        "Restart Codex (the CLI, IDE extension and desktop app share this file); `codex mcp list` shows it.",
    )


def windsurf(p: HostPlatform) -> ClientTarget:
    folder = p.home / ".codeium" / "windsurf"
    return ClientTarget(
        "windsurf",
        "Windsurf",
        json_servers(folder / "mcp_config.json", "mcpServers"),
        dialects.WINDSURF,
        (folder,),
        "In Windsurf, open Cascade → MCP servers and press Refresh.",
    )


_BUILDERS = {
    "claude-desktop": claude_desktop,
    "claude-code": claude_code,
    "lm-studio": lm_studio,
    "cursor": cursor,
    "vscode": vscode,
    "codex": codex,
    "windsurf": windsurf,
}


def client_targets(platform: HostPlatform) -> dict[str, ClientTarget]:
    """Every supported client, located for platform, in display order."""
    return {cid: _BUILDERS[cid](platform) for cid in CLIENT_IDS}
