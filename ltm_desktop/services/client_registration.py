"""Connect an AI app: write its config entry (merged, backed up), read it back, prove it works end to end."""

from __future__ import annotations

import logging
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal

from ltm_desktop.core.errors import InvalidInput, KnownError
from ltm_desktop.services.client_endpoints import (
    SERVER_NAME,
    Endpoint,
    HttpEndpoint,
    StdioLaunch,
    Verifier,
    VerifyFailed,
    VerifyOutcome,
    bearer,
    token_of,
)
from ltm_desktop.services.client_ports import ClientTargetLike, ClientTokens

log = logging.getLogger(__name__)
Transport = Literal["stdio", "http"]


@dataclass(frozen=True)
class Connected:
    client_id: str
    display_name: str
    path: Path
    transport: Transport
    changed: bool
    backup: Path | None
    verify: VerifyOutcome | None
    restart_hint: str


@dataclass(frozen=True)
class NotConnected:
    client_id: str
    reason: str


@dataclass(frozen=True)
class Removed:
    client_id: str
    path: Path
    changed: bool
    backup: Path | None
    token_revoked: bool


@dataclass(frozen=True)
class Snippet:
    client_id: str
    path: Path
    format_name: str
    text: str
    deeplink: str | None
    entry: dict[str, Any]


@dataclass(frozen=True)
class ClientStatus:
    client_id: str
    display_name: str
    installed: bool
    path: Path
    transport: str | None  # stdio | http | None (not connected) | "unreadable"
    detail: str


ConnectOutcome = Connected | NotConnected


def endpoint_from(fields: Mapping[str, Any] | None) -> Endpoint | None:
    """A dialect's endpoint_of() dict as an Endpoint value."""
    if not fields:
        return None
    if fields["transport"] == "stdio":
        return StdioLaunch(fields["command"], tuple(fields["args"]), dict(fields["env"]))
    return HttpEndpoint(fields["url"], dict(fields["headers"]))


class ClientRegistrationService:
    """Writes, checks and removes the ltm-desktop entry in each AI app's config."""

    def __init__(
        self,
        targets: Mapping[str, ClientTargetLike],
        launch: StdioLaunch,
        http_url: str,
        tokens: ClientTokens | None,
        verifier: Verifier | None,
        *,
        bundle_writer: Callable[[Path, StdioLaunch], Path] | None = None,
        settle_seconds: float = 0.3,
        verify_timeout: float = 60.0,
        sleep: Callable[[float], None] = time.sleep,
    ) -> None:
        self.targets = dict(targets)
        self.launch = launch
        self.http_url = http_url
        self.tokens = tokens
        self.verifier = verifier
        self.bundle_writer = bundle_writer
        self.settle_seconds = settle_seconds
        self.verify_timeout = verify_timeout
        self._sleep = sleep

    def target(self, client_id: str) -> ClientTargetLike:
        """The client called client_id, or InvalidInput listing the known ones."""
        try:
            return self.targets[client_id]
        except KeyError:
            raise InvalidInput(f"unknown client {client_id!r}; choose one of: {', '.join(self.targets)}") from None

    # ---- reading -------------------------------------------------------------------------------------

    def statuses(self) -> list[ClientStatus]:
        """Every client: installed or not, and whether (and how) ltm-desktop is in its config."""
        out = []
        for t in self.targets.values():
            try:
                ep = endpoint_from(t.dialect.endpoint_of(t.file.entry(SERVER_NAME) or {}))
            except KnownError as e:
                out.append(ClientStatus(t.client_id, t.display_name, t.is_installed(), t.file.path, "unreadable", str(e)))
                continue
            transport = None if ep is None else "stdio" if isinstance(ep, StdioLaunch) else "http"
            notes = list(t.notes)
            if isinstance(ep, StdioLaunch) and ep != self.launch:
                notes.insert(0, f"the entry starts {ep.command} {' '.join(ep.args)}, not this installation: "
                                f"run `ltm connect {t.client_id}` again")
            detail = "; ".join(notes)
            out.append(ClientStatus(t.client_id, t.display_name, t.is_installed(), t.file.path, transport, detail))
        return out

    def configured_endpoint(self, client_id: str) -> Endpoint | None:
        """What the client's config currently tells it to launch or call (None when not connected)."""
        t = self.target(client_id)
        return endpoint_from(t.dialect.endpoint_of(t.file.entry(SERVER_NAME) or {}))

    # ---- writing -------------------------------------------------------------------------------------

    def snippet(self, client_id: str, transport: Transport = "stdio") -> Snippet:
        """The entry to paste by hand (and the install link where the app has one); writes nothing."""
        t = self.target(client_id)
        self._check_transport(t, transport)
        try:
            current = t.file.entry(SERVER_NAME)
        except KnownError:
            current = None  # a broken file does not stop us from showing what to paste
        entry = self._entry(t, transport, current)
        return Snippet(t.client_id, t.file.path, t.file.format_name, t.snippet(SERVER_NAME, entry),
                       t.deeplink(SERVER_NAME, entry), entry)

    def connect(self, client_id: str, transport: Transport = "stdio", *, verify: bool = True) -> ConnectOutcome:
        """Merge the entry into the client's config, confirm it stuck, then run a live MCP round trip."""
        t = self.target(client_id)
        if not t.is_installed():
            looked = ", ".join(str(p) for p in t.evidence)
            return NotConnected(t.client_id, f"{t.display_name} does not seem to be installed for this user (looked for "
                                f"{looked}); install it and open it once, or use --print to get the entry to paste")
        if transport == "http" and t.http_unsupported:
            return NotConnected(t.client_id, t.http_unsupported)
        try:
            current = t.file.entry(SERVER_NAME)
            entry = self._entry(t, transport, current)
            change = t.file.put(SERVER_NAME, entry)
        except KnownError as e:
            return NotConnected(t.client_id, str(e))
        if change.changed and self.settle_seconds:
            self._sleep(self.settle_seconds)
        try:
            stuck = t.file.entry(SERVER_NAME)
        except KnownError as e:
            stuck, problem = None, f" and now reads as broken ({e})"
        else:
            problem = ""
        if stuck != entry:
            saved = f" Your file as it was before is saved at {change.backup}." if change.backup else ""
            return NotConnected(t.client_id, f"{t.display_name} (or another program) rewrote {t.file.path} right after "
                                f"we saved it{problem}, and the ltm-desktop entry is gone: it is probably running. "
                                f"Quit {t.display_name} and run `ltm connect {t.client_id}` again.{saved}")
        if transport == "stdio" and token_of(endpoint_from(t.dialect.endpoint_of(current or {}))):
            self._revoke(t.client_id)  # the config no longer uses its HTTP token
        outcome = self.verify_entry(t, stuck) if verify else None
        return Connected(t.client_id, t.display_name, t.file.path, transport, change.changed, change.backup, outcome,
                         t.restart_hint)

    def remove(self, client_id: str) -> Removed | NotConnected:
        """Delete the ltm-desktop entry (other entries untouched) and revoke the client's token, if any."""
        t = self.target(client_id)
        try:
            current = t.file.entry(SERVER_NAME)
            change = t.file.remove(SERVER_NAME)
        except KnownError as e:
            return NotConnected(t.client_id, str(e))
        revoked = bool(token_of(endpoint_from(t.dialect.endpoint_of(current or {})))) and self._revoke(t.client_id)
        return Removed(t.client_id, t.file.path, change.changed, change.backup, revoked)

    def verify(self, client_id: str) -> VerifyOutcome:
        """Re-read the client's config and run a live MCP round trip through exactly what it says."""
        t = self.target(client_id)
        try:
            entry = t.file.entry(SERVER_NAME)
        except KnownError as e:
            return VerifyFailed(str(e), "fix the file, then run `ltm connect` again")
        if entry is None:
            return VerifyFailed(f"{t.file.path} has no {SERVER_NAME} entry", f"run `ltm connect {t.client_id}`")
        return self.verify_entry(t, entry)

    def verify_entry(self, t: ClientTargetLike, entry: Mapping[str, Any]) -> VerifyOutcome:
        """A live round trip through exactly what entry tells the client to launch or call."""
        endpoint = endpoint_from(t.dialect.endpoint_of(entry))
        if endpoint is None:
            return VerifyFailed(f"the {SERVER_NAME} entry in {t.file.path} has neither a command nor a URL",
                                f"run `ltm connect {t.client_id}` to rewrite it")
        if self.verifier is None:
            return VerifyFailed("no verifier is available in this process", "run `ltm connect` from the command line")
        return self.verifier(endpoint, self.verify_timeout)

    def bundle(self, path: Path, *, verify: bool = True) -> tuple[Path, VerifyOutcome | None]:
        """Write a Claude Desktop Extension (.mcpb) that launches this installation, and check that command."""
        if self.bundle_writer is None:
            raise KnownError("building .mcpb bundles is not available in this process")
        written = self.bundle_writer(path, self.launch)
        return written, (self.verifier(self.launch, self.verify_timeout) if verify and self.verifier else None)

    # ---- helpers -------------------------------------------------------------------------------------

    def _revoke(self, name: str) -> bool:
        """Revoke name's token; the config edit already happened, so a database outage only costs the revoke."""
        if self.tokens is None:
            return False
        try:
            return self.tokens.revoke(name)
        except KnownError:
            log.warning("could not revoke the token %r; run `ltm token revoke %s` later", name, name, exc_info=True)
            return False

    def _check_transport(self, t: ClientTargetLike, transport: str) -> None:
        if transport not in ("stdio", "http"):
            raise InvalidInput(f"transport must be stdio or http, not {transport!r}")
        if transport == "http" and t.http_unsupported:
            raise InvalidInput(t.http_unsupported)

    def _entry(self, t: ClientTargetLike, transport: Transport, current: Mapping[str, Any] | None) -> dict[str, Any]:
        self._check_transport(t, transport)
        if transport == "stdio":
            return t.dialect.stdio_entry(self.launch.command, self.launch.args, self.launch.env)
        if self.tokens is None:
            raise KnownError("tokens are not available, so an HTTP entry cannot be made; use --transport stdio")
        secret = token_of(endpoint_from(t.dialect.endpoint_of(current or {})))
        # Reusing the live token keeps a second `connect` a no-op instead of rotating the client's secret.
        if not (secret and self.tokens.is_current(t.client_id, secret)):
            secret = self.tokens.issue(t.client_id)
        return t.dialect.http_entry(self.http_url, bearer(secret))

