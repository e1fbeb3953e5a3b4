"""Content hashing: the identity of a document's bytes, independent of its name or place."""

import hashlib
from pathlib import Path

_BLOCK = 1 << 20


def sha256_file(path: Path) -> str:
    """The hex sha256 of a file's bytes, read in blocks so huge files do not fill memory."""
    digest = hashlib.sha256()
    with open(path, "rb") as fh:
        while block := fh.read(_BLOCK):
            digest.update(block)
    return digest.hexdigest()


def sha256_text(text: str) -> str:
    """The hex sha256 of a text's UTF-8 bytes."""
    return hashlib.sha256(text.encode("utf-8")).hexdigest()
