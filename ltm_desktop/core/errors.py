"""Errors a person can act on (KnownError) versus bugs.

Adapters translate library exceptions into these once, at their boundary; the edges (CLI, MCP, GUI) show
`str(error)` as is, so every message names the problem and the fix.
"""


class KnownError(Exception):
    """Something in the environment or the input went wrong; the message says what to do."""


class StoreUnavailable(KnownError):
    """The database cannot be reached or started."""


class NoIndexYet(KnownError):
    """Search was asked for, but nothing has been indexed yet (and search never creates a store)."""

    def __init__(self, detail: str = "") -> None:
        msg = "no index yet: run `ltm ingest PATH` or add a watched folder"
        super().__init__(f"{msg} ({detail})" if detail else msg)


class ModelMismatch(KnownError):
    """The configured embedding model differs from the one the index was built with."""


class ModelFilesMissing(KnownError):
    """Model files are absent or fail their checksum."""


class OcrUnavailable(KnownError):
    """A page needs OCR but the OCR engine (or a language) is not installed."""


class ExtractionError(KnownError):
    """A file could not be read: corrupt, encrypted, unsupported."""


class NotFound(KnownError):
    """A document, memory or other record does not exist."""


class InvalidInput(KnownError):
    """An argument is out of range or malformed."""
