"""The sample corpus behind `ltm eval --sample`: a small property-management business's paperwork.

Leases with riders, bank and mortgage statements, inspection reports, insurance policies and claims,
property-tax bills, 1099s, vendor invoices and e-mails, as born-digital PDFs, image-only scans, .docx,
Markdown and .eml, with questions phrased the way a person asks them. The generator ships with the app and
is deterministic from its seed; the repository commits its output under resources/sample_corpus/ and a
test checks the two stay identical byte for byte.
"""

from __future__ import annotations

import shutil
import sys
import tempfile
from pathlib import Path

GENERATOR_VERSION = 1
SEED = 20240601
STAMP_FILE = "GENERATOR"


def stamp() -> str:
    return f"ltm sample corpus generator {GENERATOR_VERSION}, seed {SEED}\n"


def generate_sample_corpus(out: Path, seed: int = SEED) -> tuple[int, int]:
    """Write the corpus into `out`; returns (documents, questions)."""
    from ltm_desktop.sample_corpus.build import generate

    counts = generate(out, seed)
    if seed == SEED:
        (out / STAMP_FILE).write_text(stamp(), encoding="utf-8")
    return counts


def _committed_copies() -> list[Path]:
    """Where a committed copy may live: the source checkout, or the installer bundle."""
    found = [Path(__file__).resolve().parents[2] / "resources" / "sample_corpus"]
    bundle = getattr(sys, "_MEIPASS", None)
    if bundle:
        found.append(Path(bundle) / "resources" / "sample_corpus")
    return found


def _is_current(folder: Path) -> bool:
    marker = folder / STAMP_FILE
    return marker.is_file() and marker.read_text(encoding="utf-8") == stamp()


def sample_corpus_dir(cache: Path) -> Path:
    """The sample corpus folder: the committed copy when present, else generated once into `cache`."""
    for folder in _committed_copies():
        if _is_current(folder):
            return folder
    target = cache / f"sample_corpus-{GENERATOR_VERSION}"
    if _is_current(target):
        return target
    cache.mkdir(parents=True, exist_ok=True)
    # Generate beside the target and rename, so an interrupted run never leaves a half corpus that looks done.
    work = Path(tempfile.mkdtemp(prefix="sample-", dir=cache))
    generate_sample_corpus(work)
    shutil.rmtree(target, ignore_errors=True)
    work.rename(target)
    return target


def sample_questions_dir() -> Path:
    """The hand-written question set for the sample corpus (queries.jsonl, qrels/test.tsv): held-out questions,
    written by a person in other words than the generator's, that check what was tuned on the generated ones."""
    bundle = getattr(sys, "_MEIPASS", None)
    for root in ([Path(bundle)] if bundle else []) + [Path(__file__).resolve().parents[2]]:
        folder = root / "resources" / "sample_questions_b"
        if folder.is_dir():
            return folder
    from ltm_desktop.core.errors import NotFound

    raise NotFound("the hand-written sample questions (resources/sample_questions_b) are missing from this install: "
                   "reinstall, or run from a source checkout")
