"""What client registration needs from the outside: config targets (adapters.client_configs) and tokens."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any, Protocol


class FileChangeLike(Protocol):
    path: Path
    changed: bool
    backup: Path | None


class ServersFileLike(Protocol):
    path: Path
    format_name: str

    def entry(self, name: str) -> dict[str, Any] | None: ...

    def put(self, name: str, entry: dict[str, Any]) -> FileChangeLike: ...

    def remove(self, name: str) -> FileChangeLike: ...


class DialectLike(Protocol):
    def stdio_entry(self, command: str, args: Any, env: Mapping[str, str]) -> dict[str, Any]: ...

    def http_entry(self, url: str, headers: Mapping[str, str]) -> dict[str, Any]: ...

    def endpoint_of(self, entry: Mapping[str, Any]) -> dict[str, Any] | None: ...


class ClientTargetLike(Protocol):
    """One AI app's config location and format (implemented by adapters.client_configs.ClientTarget)."""

    client_id: str
    display_name: str
    file: ServersFileLike
    dialect: DialectLike
    evidence: tuple[Path, ...]
    restart_hint: str
    http_unsupported: str | None
    notes: tuple[str, ...]

    def is_installed(self) -> bool: ...

    def snippet(self, name: str, entry: Mapping[str, Any]) -> str: ...

    def deeplink(self, name: str, entry: Mapping[str, Any]) -> str | None: ...


class ClientTokens(Protocol):
    """Per-client bearer tokens for the HTTP transport."""

    def issue(self, name: str) -> str:
        """A fresh secret for name (replacing any earlier token of that name)."""
        ...

    def is_current(self, name: str, secret: str) -> bool:
        """True when secret is the live token of name."""
        ...

    def revoke(self, name: str) -> bool: ...


class TokenServiceTokens:
    """ClientTokens on top of the token service (create/verify/revoke), fetched only when first needed."""

    def __init__(self, get_service: Callable[[], Any]) -> None:
        self._get = get_service

    def issue(self, name: str) -> str:
        _, secret = self._get().create(name, replace=True)
        return secret

    def is_current(self, name: str, secret: str) -> bool:
        record = self._get().verify(secret)
        return record is not None and record.name == name

    def revoke(self, name: str) -> bool:
        from ltm_desktop.core.errors import NotFound

        try:
            self._get().revoke(name)
        except NotFound:
            return False
        return True
