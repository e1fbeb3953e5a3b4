"""What an AI app is told to launch or call, and what the live check of it found."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Protocol

SERVER_NAME = "ltm-desktop"


@dataclass(frozen=True)
class StdioLaunch:
    """A command the client starts itself and talks to over stdin/stdout."""

    command: str
    args: tuple[str, ...]
    env: Mapping[str, str] = field(default_factory=dict)


@dataclass(frozen=True)
class HttpEndpoint:
    """A Streamable HTTP URL the client calls, with the headers that carry its token."""

    url: str
    headers: Mapping[str, str] = field(default_factory=dict)


Endpoint = StdioLaunch | HttpEndpoint


@dataclass(frozen=True)
class Verified:
    """A real MCP round trip worked: tools listed and ltm_stats answered."""

    tools: tuple[str, ...]
    stats: str
    seconds: float


@dataclass(frozen=True)
class VerifyFailed:
    """The round trip failed; problem says what happened, fix says what to do."""

    problem: str
    fix: str


VerifyOutcome = Verified | VerifyFailed


class Verifier(Protocol):
    def __call__(self, endpoint: Endpoint, timeout: float) -> VerifyOutcome: ...


def server_launch(executable: str, frozen: bool, home: Path, env: Mapping[str, str]) -> StdioLaunch:
    """The absolute command that starts `ltm serve --stdio` for this installation.

    Never a bare name looked up on PATH (apps launched from a dock have a different PATH, and Windows has no
    uvx/npx shims): a dev install runs this interpreter with -m, a frozen build runs its own executable.
    LTM_* variables of this process are passed on so the client's server sees the same home and database.
    """
    if not Path(executable).is_absolute():
        raise ValueError(f"executable must be an absolute path, got {executable!r}")
    args = ("serve", "--stdio") if frozen else ("-m", "ltm_desktop", "serve", "--stdio")
    forwarded = {k: v for k, v in sorted(env.items()) if k.startswith("LTM_")}
    forwarded["LTM_HOME"] = str(home)
    return StdioLaunch(executable, args, forwarded)


def local_http_url(host: str, port: int) -> str:
    """The MCP endpoint of the local HTTP server."""
    shown = "127.0.0.1" if host in ("", "0.0.0.0") else host
    return f"http://{shown}:{port}/mcp"


def bearer(secret: str) -> dict[str, str]:
    return {"Authorization": f"Bearer {secret}"}


def token_of(endpoint: Endpoint | None) -> str | None:
    """The bearer token an HTTP endpoint carries, if any."""
    if not isinstance(endpoint, HttpEndpoint):
        return None
    for key, value in endpoint.headers.items():
        if key.lower() == "authorization" and value.startswith("Bearer "):
            return value[len("Bearer ") :]
    marker = "/t/"
    if marker in endpoint.url:
        return endpoint.url.split(marker, 1)[1].split("/", 1)[0] or None
    return None
