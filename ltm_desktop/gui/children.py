"""The app's child processes and the environment that hands them the app's current settings."""

from __future__ import annotations

from dataclasses import fields
from pathlib import Path

from ltm_desktop.gui.child_guard import ltm_command
from ltm_desktop.gui.supervisor import ChildSpec
from ltm_desktop.settings import Settings

SERVER, WORKER, TUNNEL = "server", "worker", "tunnel"

# Which child must restart when a setting changes; anything not listed restarts both.
SERVER_SETTINGS = frozenset({
    "http_host", "http_port", "public_host", "log_queries", "journal_days", "retrieval_depth", "rerank_candidates",
    "rerank_lead_chars", "rerank_high", "rerank_medium", "cosine_high", "cosine_medium",
})
WORKER_SETTINGS = frozenset({
    "ocr_languages", "ocr_dpi", "max_file_mb", "chunk_target", "chunk_max", "chunk_overlap", "ingest_workers",
    "watch_settle_seconds", "watch_poll_seconds", "reconcile_minutes", "job_max_attempts", "job_retry_seconds",
    "worker_lease_seconds", "worker_nice", "tombstone_days",
})


def settings_env(settings: Settings) -> dict[str, str]:
    """LTM_* variables that give a child exactly this process's settings (they win over config.toml)."""
    env = {"LTM_HOME": str(settings.home)}
    for f in fields(Settings):
        if f.name == "home":
            continue
        value = getattr(settings, f.name)
        if isinstance(value, bool):
            text = "true" if value else "false"
        elif isinstance(value, (str, int, float, Path)):
            text = str(value)
        else:
            continue
        env[f"LTM_{f.name.upper()}"] = text
    return env


def children_for(changed: set[str]) -> set[str]:
    """The children a settings change has to restart."""
    affected: set[str] = set()
    for name in changed:
        if name in SERVER_SETTINGS:
            affected.add(SERVER)
        elif name in WORKER_SETTINGS:
            affected.add(WORKER)
        else:
            affected |= {SERVER, WORKER}
    return affected


def server_spec(settings: Settings) -> ChildSpec:
    return ChildSpec(SERVER, "MCP server", tuple(ltm_command("serve", "--http")), settings_env(settings))


def worker_spec(settings: Settings) -> ChildSpec:
    return ChildSpec(WORKER, "Indexing worker", tuple(ltm_command("worker")), settings_env(settings))


def tunnel_spec(settings: Settings, provider: str) -> ChildSpec:
    return ChildSpec(TUNNEL, f"{provider} tunnel", tuple(ltm_command("tunnel", "run", provider, "--no-announce")), settings_env(settings))
