"""Config writers for AI apps (Claude Desktop, Claude Code, LM Studio, Cursor, VS Code, Codex, Windsurf)."""

from ltm_desktop.adapters.client_configs.clients import CLIENT_IDS, ClientTarget, client_targets
from ltm_desktop.adapters.client_configs.host_platform import HostPlatform

__all__ = ["CLIENT_IDS", "ClientTarget", "HostPlatform", "client_targets"]
