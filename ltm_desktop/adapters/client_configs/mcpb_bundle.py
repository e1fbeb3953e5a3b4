"""A Claude Desktop Extension (.mcpb): a ZIP with manifest.json that launches this machine's LTM Desktop.

The bundle carries no server code: its mcp_config runs the installed executable by absolute path, the same
command the config-file route writes, so double-clicking it in Claude Desktop gives the same connection.
"""

from __future__ import annotations

import json
import zipfile
from collections.abc import Mapping, Sequence
from pathlib import Path

from ltm_desktop.adapters.client_configs.config_file import ConfigReadOnly, atomic_write

MANIFEST_VERSION = "0.3"

_README = """LTM Desktop extension for Claude Desktop.

This bundle does not contain the server. It starts the LTM Desktop already installed on this computer:

    {command}

If you move or reinstall LTM Desktop, build a new bundle with `ltm connect claude-desktop --mcpb`.
"""


def build_manifest(
    name: str, version: str, command: str, args: Sequence[str], env: Mapping[str, str], *, frozen: bool
) -> dict:
    """The manifest.json for a bundle that runs command with args and env."""
    return {
        "manifest_version": MANIFEST_VERSION,
        "name": name,
        "display_name": "LTM Desktop",
        "version": version,
        "description": "Search your own documents and a shared long-term memory, stored on this computer.",
        "author": {"name": "LTM Desktop"},
        "server": {
            "type": "binary" if frozen else "python",
            "entry_point": "server/README.txt",
            "mcp_config": {"command": command, "args": list(args), "env": dict(env)},
        },
        "tools": [
            {"name": "ltm_search", "description": "Search your indexed documents with a confidence verdict"},
            {"name": "ltm_get_document", "description": "Read a document's text from the index"},
            {"name": "ltm_stats", "description": "What is indexed and how healthy the index is"},
        ],
        "compatibility": {"platforms": ["darwin", "win32", "linux"]},
    }


def write_bundle(path: Path, manifest: Mapping) -> Path:
    """Write the .mcpb ZIP at path (atomically) and return it."""
    import io

    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", compression=zipfile.ZIP_DEFLATED) as z:
        z.writestr("manifest.json", json.dumps(manifest, indent=2, ensure_ascii=False) + "\n")
        command = manifest["server"]["mcp_config"]["command"]
        z.writestr("server/README.txt", _README.format(command=command))
    try:
        atomic_write(path, buffer.getvalue())
    except ConfigReadOnly:
        raise ConfigReadOnly(f"cannot write the bundle at {path}; choose a writable place with --mcpb PATH") from None
    path.chmod(0o644)
    return path


def read_manifest(path: Path) -> dict:
    """The manifest.json inside a bundle."""
    with zipfile.ZipFile(path) as z:
        return json.loads(z.read("manifest.json"))
