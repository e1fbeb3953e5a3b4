"""How each client spells a server entry: `type` or not, `url` or `serverUrl`, `headers` or `http_headers`."""

from __future__ import annotations

import base64
import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import quote

import tomlkit


@dataclass(frozen=True)
class EntryDialect:
    """One client family's entry format."""

    typed: bool = False  # writes "type": "stdio" | "http"
    url_field: str = "url"
    headers_field: str = "headers"
    stdio_extras: Mapping[str, Any] = field(default_factory=dict)

    def stdio_entry(self, command: str, args: Sequence[str], env: Mapping[str, str]) -> dict[str, Any]:
        """The entry that makes the client launch command with args and env."""
        entry: dict[str, Any] = {"type": "stdio"} if self.typed else {}
        entry.update(command=command, args=list(args))
        if env:
            entry["env"] = dict(env)
        entry.update(self.stdio_extras)
        return entry

    def http_entry(self, url: str, headers: Mapping[str, str]) -> dict[str, Any]:
        """The entry that makes the client call url with headers (Streamable HTTP)."""
        entry: dict[str, Any] = {"type": "http"} if self.typed else {}
        entry[self.url_field] = url
        if headers:
            entry[self.headers_field] = dict(headers)
        return entry

    def endpoint_of(self, entry: Mapping[str, Any]) -> dict[str, Any] | None:
        """What an entry (as read back from the file) asks the client to launch or call; None if neither."""
        if isinstance(entry.get("command"), str):
            return {
                "transport": "stdio",
                "command": entry["command"],
                "args": [str(a) for a in entry.get("args") or []],
                "env": {str(k): str(v) for k, v in (entry.get("env") or {}).items()},
            }
        url = entry.get(self.url_field) or entry.get("url")
        if isinstance(url, str):
            headers = entry.get(self.headers_field) or entry.get("headers") or {}
            return {"transport": "http", "url": url, "headers": {str(k): str(v) for k, v in headers.items()}}
        return None


PLAIN = EntryDialect()
TYPED = EntryDialect(typed=True)
WINDSURF = EntryDialect(url_field="serverUrl")
# Codex gives a server 10 s to start by default; ours loads models first.
CODEX = EntryDialect(headers_field="http_headers", stdio_extras={"startup_timeout_sec": 30})


def json_snippet(key: str, name: str, entry: Mapping[str, Any]) -> str:
    """The JSON to paste into the file by hand."""
    return json.dumps({key: {name: entry}}, indent=2, ensure_ascii=False)


def toml_snippet(key: str, name: str, entry: Mapping[str, Any]) -> str:
    """The TOML table to paste into config.toml by hand."""
    doc = tomlkit.document()
    outer = tomlkit.table(is_super_table=True)
    inner = tomlkit.table()
    for k, v in entry.items():
        if isinstance(v, Mapping):
            inline = tomlkit.inline_table()
            inline.update(v)
            inner[k] = inline
        else:
            inner[k] = v
    outer[name] = inner
    doc[key] = outer
    return tomlkit.dumps(doc).strip()


def _b64(entry: Mapping[str, Any]) -> str:
    return base64.b64encode(json.dumps(entry, separators=(",", ":")).encode()).decode()


def lmstudio_link(name: str, entry: Mapping[str, Any]) -> str:
    """LM Studio's "Add to LM Studio" deeplink (base64 of the entry without the name)."""
    return f"lmstudio://add_mcp?name={quote(name)}&config={quote(_b64(entry), safe='')}"


def cursor_link(name: str, entry: Mapping[str, Any]) -> str:
    """Cursor's install link (base64 of the entry)."""
    return f"cursor://anysphere.cursor-deeplink/mcp/install?name={quote(name)}&config={quote(_b64(entry), safe='')}"


def vscode_link(name: str, entry: Mapping[str, Any]) -> str:
    """VS Code's mcp/install link (URL-encoded JSON including the name)."""
    return "vscode:mcp/install?" + quote(json.dumps({"name": name, **entry}, separators=(",", ":")), safe="")
