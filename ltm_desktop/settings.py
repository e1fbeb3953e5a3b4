"""Every setting, its default and its help text, in one table; read once, by bootstrap.

Order of precedence: `LTM_<NAME>` environment variables, then `config.toml`, then the default.
`LTM_HOME` relocates all state (data, models, logs, config), which is how tests isolate themselves.
"""

from __future__ import annotations

import dataclasses
import os
import tomllib
from collections.abc import Mapping
from dataclasses import dataclass, field, fields
from pathlib import Path

from ltm_desktop.core.errors import KnownError

APP_NAME = "ltm-desktop"


def _default_home() -> Path:
    import platformdirs

    return Path(platformdirs.user_data_dir(APP_NAME, appauthor=False))


@dataclass(frozen=True)
class Settings:
    home: Path = field(default_factory=_default_home, metadata={"help": "Folder that holds all state: database, models, logs, config (LTM_HOME)."})
    database_url: str = field(default="", metadata={"help": "Use this Postgres (with pgvector) instead of the embedded one, e.g. postgresql://user@host/db."})
    models_dir: str = field(default="", metadata={"help": "Folder of the offline model pack; default HOME/models (or the one bundled with the installer)."})
    embed_model: str = field(default="local/bge-small-en-v1.5-int8", metadata={"help": "Embedding model: the bundled local/bge-small-en-v1.5-int8, or a fastembed model name (downloads once; changing it needs `ltm reindex`)."})
    rerank_model: str = field(default="local/ms-marco-MiniLM-L-12-v2-int8", metadata={"help": "Cross-encoder reranker: the bundled local/ms-marco-MiniLM-L-12-v2-int8 or a fastembed reranker name."})
    query_prefix: str = field(default="", metadata={"help": "Instruction prepended to queries (not documents) before embedding. Empty by default: bge's 'Represent this sentence for searching relevant passages: ' measured slightly worse on the sample set (docs/retrieval.md)."})
    ocr_languages: str = field(default="eng", metadata={"help": "Tesseract languages for scanned pages, joined by '+', e.g. eng+spa."})
    ocr_dpi: int = field(default=300, metadata={"help": "Resolution at which scanned pages are rendered for OCR."})
    max_file_mb: int = field(default=512, metadata={"help": "Files larger than this (MiB) are skipped with a recorded reason."})
    chunk_target: int = field(default=1000, metadata={"help": "Target chunk size in characters (paragraphs are grouped up to this)."})
    chunk_max: int = field(default=1600, metadata={"help": "Hard maximum chunk size in characters; longer paragraphs are split at sentences."})
    chunk_overlap: int = field(default=150, metadata={"help": "Characters of the previous chunk repeated at the start of the next."})
    retrieval_depth: int = field(default=50, metadata={"help": "How many candidates each retriever (vector and full-text) returns before fusion."})
    rerank_candidates: int = field(default=20, metadata={"help": "How many fused candidates the cross-encoder rescores (20: as good as 40 on the sample corpus at half the latency; in a very large library 40 finds a few more answers, see docs/retrieval.md)."})
    rerank_lead_chars: int = field(default=300, metadata={"help": "Characters of a document's opening the reranker reads before each later passage, so page 2 still knows whose lease it is (0: off; see docs/retrieval.md)."})
    rerank_high: float = field(default=6.0, metadata={"help": "Reranker score at or above which the verdict is 'high'."})
    rerank_medium: float = field(default=1.0, metadata={"help": "Reranker score at or above which the verdict is 'medium' (below: 'low')."})
    cosine_high: float = field(default=0.80, metadata={"help": "Cosine at or above which the no-rerank verdict is 'high'."})
    cosine_medium: float = field(default=0.72, metadata={"help": "Cosine at or above which the no-rerank verdict is 'medium'."})
    ingest_workers: int = field(default=0, metadata={"help": "Processes for extraction and OCR; 0 means one per core, leaving one core free."})
    watch_settle_seconds: float = field(default=2.0, metadata={"help": "A changed file is indexed only after its size and modification time have stayed the same this long (scanners and browsers write in pieces)."})
    watch_poll_seconds: float = field(default=1.0, metadata={"help": "How often the worker checks settled files and watched folders, and polls the queue when no notification arrives."})
    reconcile_minutes: float = field(default=30.0, metadata={"help": "Every this many minutes the worker rescans watched folders, catching what file events miss (network shares, sleep)."})
    job_max_attempts: int = field(default=3, metadata={"help": "Tries per file before it is marked failed (it stays failed, with its reason, until the file changes)."})
    job_retry_seconds: float = field(default=10.0, metadata={"help": "Wait before the first retry of a failed file; it doubles with each further attempt."})
    worker_lease_seconds: float = field(default=60.0, metadata={"help": "A running job's lease: if its worker stops renewing it (crash, kill, power loss), another worker takes the job after this long."})
    worker_nice: int = field(default=10, metadata={"help": "How much to lower the CPU priority of the worker and its extraction processes, so search and your apps stay responsive (0: normal priority)."})
    tombstone_days: float = field(default=7.0, metadata={"help": "Days a deleted file's document is kept hidden, so a move seen as delete + create re-points it instead of re-embedding."})
    http_host: str = field(default="127.0.0.1", metadata={"help": "Address the HTTP MCP server binds to. Keep 127.0.0.1; use a tunnel for remote access."})
    http_port: int = field(default=8322, metadata={"help": "Port of the HTTP MCP server."})
    public_host: str = field(default="", metadata={"help": "Extra Host header to allow (a tunnel's public host name)."})
    log_queries: bool = field(default=False, metadata={"help": "Record query text in the tool-call journal (off: only tool, client, time and outcome)."})
    journal_days: int = field(default=30, metadata={"help": "Days the tool-call journal is kept."})

    @property
    def data_dir(self) -> Path:
        return self.home / "pgdata"

    @property
    def log_dir(self) -> Path:
        return self.home / "logs"

    @property
    def models_path(self) -> Path:
        return Path(self.models_dir) if self.models_dir else self.home / "models"

    @property
    def config_file(self) -> Path:
        return self.home / "config.toml"


def setting_help() -> dict[str, str]:
    """Name -> help text, for docs and the settings window."""
    return {f.name: f.metadata["help"] for f in fields(Settings)}


def _coerce(name: str, kind: type, raw: object) -> object:
    try:
        if kind is bool and isinstance(raw, str):
            if raw.lower() in ("1", "true", "yes", "on"):
                return True
            if raw.lower() in ("0", "false", "no", "off", ""):
                return False
            raise ValueError(raw)
        if kind is Path:
            return Path(str(raw)).expanduser()
        return kind(raw)
    except (TypeError, ValueError):
        raise KnownError(f"setting {name}: {raw!r} is not a valid {kind.__name__}") from None


def load_settings(env: Mapping[str, str] | None = None) -> Settings:
    """Defaults, overridden by HOME/config.toml, overridden by LTM_* variables."""
    env = os.environ if env is None else env
    kinds = {f.name: f.type for f in fields(Settings)}
    type_of = {"Path": Path, "str": str, "int": int, "float": float, "bool": bool}
    values: dict[str, object] = {}
    if env.get("LTM_HOME"):
        values["home"] = Path(env["LTM_HOME"]).expanduser()
    home = values.get("home") or _default_home()
    config = Path(str(home)) / "config.toml"
    if config.exists():
        try:
            data = tomllib.loads(config.read_text(encoding="utf-8"))
        except (tomllib.TOMLDecodeError, UnicodeDecodeError) as e:
            raise KnownError(f"{config} is not valid TOML ({e}); fix or delete it") from None
        for key, raw in data.items():
            if key not in kinds or key == "home":
                raise KnownError(f"{config}: unknown setting {key!r}; known: {', '.join(sorted(kinds))}")
            values[key] = _coerce(key, type_of[str(kinds[key])], raw)
    for name, kind in kinds.items():
        var = f"LTM_{name.upper()}"
        if name != "home" and var in env:
            values[name] = _coerce(name, type_of[str(kind)], env[var])
    return dataclasses.replace(Settings(home=Path(str(home))), **values)


def save_settings(settings: Settings, changes: Mapping[str, object]) -> Settings:
    """Write changed settings into HOME/config.toml (keeping the others) and return the new settings."""
    kinds = {f.name for f in fields(Settings)} - {"home"}
    unknown = set(changes) - kinds
    if unknown:
        raise KnownError(f"unknown setting(s): {', '.join(sorted(unknown))}")
    current: dict[str, object] = {}
    if settings.config_file.exists():
        current = tomllib.loads(settings.config_file.read_text(encoding="utf-8"))
    current.update(changes)
    lines = [f"{k} = {_toml_value(v)}" for k, v in sorted(current.items())]
    settings.config_file.parent.mkdir(parents=True, exist_ok=True)
    tmp = settings.config_file.with_suffix(".toml.tmp")
    tmp.write_text("\n".join(lines) + "\n", encoding="utf-8")
    os.replace(tmp, settings.config_file)
    return dataclasses.replace(settings, **changes)


def _toml_value(value: object) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, (int, float)):
        return repr(value)
    text = str(value).replace("\\", "\\\\").replace('"', '\\"')
    return f'"{text}"'
