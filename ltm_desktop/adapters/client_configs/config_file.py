"""Safe edits of another app's config file: compare-and-swap merge, timestamped backup, atomic replace.

A client's config holds the user's other servers and settings, so the rules are: never write a file we could
not parse (say where and why instead), never write a file the user made read-only, back up before replacing,
and if the file changes under us (the client itself saving it) merge again from the new content.
"""

from __future__ import annotations

import os
import stat
import tempfile
import time
from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path
from typing import Any

from ltm_desktop.core.errors import KnownError

BACKUP_MARK = ".ltm-backup-"
KEEP_BACKUPS = 5
CAS_ATTEMPTS = 4


class ConfigUnreadable(KnownError):
    """The existing file is not something we can safely rewrite (malformed, wrong shape, comments)."""


class ConfigReadOnly(KnownError):
    """The user (or an admin) made the file or its folder read-only."""


class ConfigBusy(KnownError):
    """The file kept changing while we tried to write it: its app is rewriting it."""


@dataclass(frozen=True)
class FileChange:
    """What an edit did to a config file."""

    path: Path
    changed: bool
    backup: Path | None = None
    created: bool = False


class ConfigCodec:
    """Turns file bytes into a document and back; implemented per format (JSON, TOML)."""

    format_name = ""

    def parse(self, text: str, path: Path) -> Any: ...

    def dump(self, doc: Any) -> str: ...

    def empty(self) -> Any: ...


def read_bytes(path: Path) -> bytes | None:
    """The file's bytes, or None when it does not exist; unreadable files raise ConfigUnreadable."""
    try:
        return path.read_bytes()
    except FileNotFoundError:
        return None
    except IsADirectoryError:
        raise ConfigUnreadable(f"{path} is a folder, not a config file; move it aside and run again") from None
    except PermissionError:
        raise ConfigReadOnly(f"{path} cannot be read (permission denied); fix its permissions and run again") from None


def decode(raw: bytes | None, path: Path, codec: ConfigCodec) -> Any:
    """Parse raw bytes with codec; a missing or blank file is an empty document."""
    if raw is None:
        return codec.empty()
    try:
        text = raw.decode("utf-8-sig")
    except UnicodeDecodeError:
        raise ConfigUnreadable(
            f"{path} is not UTF-8 text; it was left untouched. Fix or move it aside, then run again"
        ) from None
    if not text.strip():
        return codec.empty()
    return codec.parse(text, path)


def update_file(path: Path, codec: ConfigCodec, mutate: Callable[[Any], bool]) -> FileChange:
    """Re-read, let mutate edit the parsed document (returns False for no change), back up, replace atomically.

    If the bytes on disk change between our read and our replace, the merge is redone from the new bytes so
    that whatever the other writer saved is kept.
    """
    for _ in range(CAS_ATTEMPTS):
        before = read_bytes(path)
        doc = decode(before, path, codec)
        if not mutate(doc):
            return FileChange(path, changed=False)
        _require_writable(path)
        data = codec.dump(doc).encode("utf-8")
        if read_bytes(path) != before:
            time.sleep(0.05)
            continue
        backup = make_backup(path, before) if before is not None else None
        atomic_write(path, data, like=path if before is not None else None)
        return FileChange(path, changed=True, backup=backup, created=before is None)
    raise ConfigBusy(
        f"{path} kept changing while we tried to update it, so it was left as it is; "
        "its app is probably running and saving it: quit that app and run again"
    )


def _require_writable(path: Path) -> None:
    if path.exists():
        mode = path.stat().st_mode
        if not mode & stat.S_IWUSR or not os.access(path, os.W_OK):
            raise ConfigReadOnly(
                f"{path} is read-only, so it was left untouched; make it writable (e.g. chmod u+w) "
                "or add the entry by hand with `--print`"
            )
    folder = _existing_parent(path)
    if not os.access(folder, os.W_OK):
        raise ConfigReadOnly(f"cannot write in {folder} (read-only folder); fix its permissions or use `--print`")


def _existing_parent(path: Path) -> Path:
    folder = path.parent
    while not folder.exists() and folder.parent != folder:
        folder = folder.parent
    return folder


def atomic_write(path: Path, data: bytes, like: Path | None = None) -> None:
    """Write via a temp file in the same folder and os.replace, keeping the old file's permission bits.

    New files get 0600: they may hold a bearer token.
    """
    mode = stat.S_IMODE(like.stat().st_mode) if like is not None and like.exists() else 0o600
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    except PermissionError:
        raise ConfigReadOnly(f"cannot write in {path.parent} (permission denied); fix it or use `--print`") from None
    try:
        with os.fdopen(fd, "wb") as f:
            f.write(data)
            f.flush()
            os.fsync(f.fileno())
        os.chmod(tmp, mode)
        os.replace(tmp, path)
    except PermissionError:
        raise ConfigReadOnly(f"cannot replace {path} (permission denied); fix it or use `--print`") from None
    finally:
        if os.path.exists(tmp):
            os.unlink(tmp)


def make_backup(path: Path, data: bytes) -> Path:
    """Save data as <name>.ltm-backup-<timestamp> beside path, keeping only the newest few of ours."""
    stamp = datetime.now().strftime("%Y%m%d-%H%M%S")
    backup = path.with_name(f"{path.name}{BACKUP_MARK}{stamp}")
    n = 1
    while backup.exists():
        n += 1
        backup = path.with_name(f"{path.name}{BACKUP_MARK}{stamp}-{n}")
    atomic_write(backup, data, like=path)
    _prune_backups(path)
    return backup


def _prune_backups(path: Path) -> None:
    ours = sorted(path.parent.glob(f"{path.name}{BACKUP_MARK}*"), key=lambda p: p.stat().st_mtime_ns)
    for old in ours[:-KEEP_BACKUPS]:
        old.unlink(missing_ok=True)
