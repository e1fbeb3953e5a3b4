"""The servers section of one client's config file: read an entry, put it (merging), remove it."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import tomlkit
from tomlkit.items import Table

from ltm_desktop.adapters.client_configs.codecs import JsonCodec, TomlCodec
from ltm_desktop.adapters.client_configs.config_file import (
    ConfigCodec,
    ConfigUnreadable,
    FileChange,
    decode,
    read_bytes,
    update_file,
)


def plain(value: Any) -> Any:
    """tomlkit items (or anything JSON-ish) as plain dicts, lists and scalars, for comparison."""
    unwrap = getattr(value, "unwrap", None)
    if unwrap is not None:
        value = unwrap()
    if isinstance(value, dict):
        return {str(k): plain(v) for k, v in value.items()}
    if isinstance(value, list):
        return [plain(v) for v in value]
    return value


class ServersFile:
    """A config file whose `key` object maps server names to entries (mcpServers, servers, mcp_servers)."""

    def __init__(self, path: Path, key: str, codec: ConfigCodec) -> None:
        self.path = path
        self.key = key
        self.codec = codec

    @property
    def format_name(self) -> str:
        return self.codec.format_name

    def _section(self, doc: Any, create: bool) -> Any:
        section = doc.get(self.key)
        if section is None:
            if not create:
                return None
            section = self._new_section()
            doc[self.key] = section
            return doc[self.key]
        if not isinstance(section, dict):
            raise ConfigUnreadable(
                f"{self.path}: {self.key!r} is a {type(plain(section)).__name__}, not an object of servers; "
                "the file was left untouched. Fix it, then run again"
            )
        return section

    def _new_section(self) -> Any:
        return {}

    def _new_entry(self, entry: dict[str, Any]) -> Any:
        return dict(entry)

    def servers(self) -> dict[str, Any]:
        """All server entries in the file as plain values (empty when the file does not exist)."""
        doc = decode(read_bytes(self.path), self.path, self.codec)
        section = self._section(doc, create=False)
        return {} if section is None else plain(section)

    def entry(self, name: str) -> dict[str, Any] | None:
        """Our entry as plain values, or None."""
        value = self.servers().get(name)
        return value if isinstance(value, dict) else None

    def put(self, name: str, entry: dict[str, Any]) -> FileChange:
        """Add or replace one server entry, leaving everything else in the file as it was."""

        def mutate(doc: Any) -> bool:
            section = self._section(doc, create=True)
            if name in section and plain(section[name]) == entry:
                return False
            section[name] = self._new_entry(entry)
            return True

        return update_file(self.path, self.codec, mutate)

    def remove(self, name: str) -> FileChange:
        """Delete one server entry; a missing file or entry is no change."""
        if not self.path.exists():
            return FileChange(self.path, changed=False)

        def mutate(doc: Any) -> bool:
            section = self._section(doc, create=False)
            if section is None or name not in section:
                return False
            del section[name]
            return True

        return update_file(self.path, self.codec, mutate)


def json_servers(path: Path, key: str) -> ServersFile:
    """A JSON file with servers under key."""
    return ServersFile(path, key, JsonCodec())


class TomlServersFile(ServersFile):
    """Codex's config.toml: one `[mcp_servers.<name>]` table per server, env and headers as inline tables."""

    def __init__(self, path: Path, key: str) -> None:
        super().__init__(path, key, TomlCodec())

    def _new_section(self) -> Any:
        return tomlkit.table(is_super_table=True)

    def _new_entry(self, entry: dict[str, Any]) -> Any:
        table: Table = tomlkit.table()
        for k, v in entry.items():
            if isinstance(v, dict):
                inline = tomlkit.inline_table()
                inline.update(v)
                table[k] = inline
            else:
                table[k] = v
        return table
