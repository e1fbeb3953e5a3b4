"""JSON and TOML codecs for client config files, with the error messages a person needs."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import tomlkit
import tomlkit.exceptions

from ltm_desktop.adapters.client_configs.config_file import ConfigCodec, ConfigUnreadable


class JsonCodec(ConfigCodec):
    """Plain JSON; files with comments (JSONC) are recognised and refused, since rewriting would drop them."""

    format_name = "JSON"

    def parse(self, text: str, path: Path) -> Any:
        try:
            doc = json.loads(text)
        except json.JSONDecodeError as e:
            if _parses_without_comments(text):
                raise ConfigUnreadable(
                    f"{path} contains comments or trailing commas; rewriting it would lose them, so it was left "
                    "untouched. Add the entry by hand (`--print` shows it) or use the install link"
                ) from None
            raise ConfigUnreadable(
                f"{path} is not valid JSON (line {e.lineno}, column {e.colno}: {e.msg}); it was left untouched. "
                "Fix it or move it aside, then run again"
            ) from None
        if not isinstance(doc, dict):
            raise ConfigUnreadable(
                f"{path} holds a JSON {type(doc).__name__}, not an object; it was left untouched. "
                "Fix it or move it aside, then run again"
            )
        return doc

    def dump(self, doc: Any) -> str:
        return json.dumps(doc, indent=2, ensure_ascii=False) + "\n"

    def empty(self) -> Any:
        return {}


def strip_json_comments(text: str) -> str:
    """Remove // and /* */ comments and trailing commas outside strings (VS Code's JSONC)."""
    out: list[str] = []
    i, n = 0, len(text)
    in_string = False
    while i < n:
        ch = text[i]
        if in_string:
            out.append(ch)
            if ch == "\\" and i + 1 < n:
                out.append(text[i + 1])
                i += 1
            elif ch == '"':
                in_string = False
        elif ch == '"':
            in_string = True
            out.append(ch)
        elif text.startswith("//", i):
            while i < n and text[i] != "\n":
                i += 1
            continue
        elif text.startswith("/*", i):
            end = text.find("*/", i + 2)
            i = n if end < 0 else end + 2
            continue
        else:
            out.append(ch)
        i += 1
    cleaned = "".join(out)
    # Trailing commas: a comma followed only by whitespace before } or ].
    result: list[str] = []
    in_string = False
    for j, ch in enumerate(cleaned):
        if in_string:
            if ch == '"' and not _escaped(cleaned, j):
                in_string = False
        elif ch == '"':
            in_string = True
        elif ch == "," and cleaned[j + 1 :].lstrip()[:1] in ("}", "]"):
            continue
        result.append(ch)
    return "".join(result)


def _escaped(text: str, j: int) -> bool:
    backslashes = 0
    while j > 0 and text[j - 1] == "\\":
        backslashes += 1
        j -= 1
    return backslashes % 2 == 1


def _parses_without_comments(text: str) -> bool:
    try:
        json.loads(strip_json_comments(text))
    except json.JSONDecodeError:
        return False
    return True


class TomlCodec(ConfigCodec):
    """TOML through tomlkit, which keeps the user's comments, order and formatting on a round trip."""

    format_name = "TOML"

    def parse(self, text: str, path: Path) -> Any:
        try:
            return tomlkit.parse(text)
        except tomlkit.exceptions.ParseError as e:
            raise ConfigUnreadable(
                f"{path} is not valid TOML ({e}); it was left untouched. Fix it or move it aside, then run again"
            ) from None

    def dump(self, doc: Any) -> str:
        return tomlkit.dumps(doc)

    def empty(self) -> Any:
        return tomlkit.document()
