"""Logging for the server processes: stderr (never stdout: over stdio it is the protocol) plus a rotating file
in HOME/logs, with every line passed through a redactor so a token can't reach a log even by accident."""

from __future__ import annotations

import logging
import re
from logging.handlers import RotatingFileHandler
from pathlib import Path

FORMAT = "%(asctime)s %(levelname)s %(name)s: %(message)s"
_SECRETS = (
    (re.compile(r"ltm_[A-Za-z0-9_-]{16,}"), "ltm_[redacted]"),
    (re.compile(r"(/t/)[^/\s\"']+"), r"\1[redacted]"),
    (re.compile(r"(?i)(bearer\s+)[^\s\"',]+"), r"\1[redacted]"),
)


def redact(text: str) -> str:
    for pattern, replacement in _SECRETS:
        text = pattern.sub(replacement, text)
    return text


class RedactingFormatter(logging.Formatter):
    """Formats as usual, then removes anything token-shaped (the message, its arguments and tracebacks)."""

    def format(self, record: logging.LogRecord) -> str:
        return redact(super().format(record))


def configure_server_logging(log_dir: Path, name: str, verbose: bool = False) -> Path:
    """Add HOME/logs/<name>.log (rotating) next to stderr; returns the file's path."""
    log_dir.mkdir(parents=True, exist_ok=True)
    path = log_dir / f"{name}.log"
    root = logging.getLogger()
    formatter = RedactingFormatter(FORMAT)
    file_handler = RotatingFileHandler(path, maxBytes=5 * 1024 * 1024, backupCount=3, encoding="utf-8")
    root.addHandler(file_handler)
    for handler in root.handlers:
        handler.setFormatter(formatter)
    root.setLevel(logging.DEBUG if verbose else logging.INFO)
    if not verbose:
        for noisy in ("mcp", "httpx2", "httpcore2", "uvicorn.error", "psycopg", "psycopg.pool"):
            logging.getLogger(noisy).setLevel(logging.WARNING)
    # Even with the redactor, URLs with path tokens have no business in a log: no access log at all.
    logging.getLogger("uvicorn.access").disabled = True
    return path
