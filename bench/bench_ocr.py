"""OCR pages/s with one process and with one process per core, through the app's own PDF extractor.

Scanned pages (grey paper, specks, slight skew, no text layer) are extracted by PyMuPdfExtractor + Tesseract,
first sequentially in one process, then by a pool of one process per core, measured side by side in one
run. Tesseract's OpenMP threads are measured both ways: left at its default (it spreads one page over all
cores) and pinned to one thread per process (OMP_THREAD_LIMIT=1), which is what parallel extraction needs.
Target: all-core rate >= 0.9 x cores x single-process rate. Results: bench/results/bench_ocr.json and .png.

Run:  .venv/bin/python bench/bench_ocr.py [--pages 12]
"""

from __future__ import annotations

import argparse
import concurrent.futures as cf
import json
import multiprocessing
import os
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from ltm_desktop.adapters.document_writers import write_scan  # noqa: E402
from ltm_desktop.sample_corpus.build import assemble  # noqa: E402

RESULTS = ROOT / "bench" / "results"


def _extract(path: str, omp_threads: str | None) -> tuple[int, float]:
    """Runs in a worker: extract one scanned PDF; (pages, mean OCR confidence)."""
    if omp_threads is None:
        os.environ.pop("OMP_THREAD_LIMIT", None)
    else:
        os.environ["OMP_THREAD_LIMIT"] = omp_threads
    from ltm_desktop.adapters.pymupdf_extractor import PyMuPdfExtractor
    from ltm_desktop.adapters.tesseract_ocr import TesseractOcr

    extracted = PyMuPdfExtractor(TesseractOcr("eng"), 300).extract(Path(path))
    confs = [p.ocr_confidence or 0 for p in extracted.pages]
    return len(extracted.pages), sum(confs) / len(confs)


def make_scans(folder: Path, pages: int) -> list[str]:
    """One single-page scan per sample-corpus document with enough text, up to `pages`."""
    folder.mkdir(parents=True, exist_ok=True)
    docs = [d for d in assemble(20240601)[0] if d.fmt in ("pdf", "scan") and len(d.text) > 900]
    paths = []
    for n, d in enumerate(docs[:pages]):
        path = folder / f"scan_{n:02d}.pdf"
        blocks, size = [], 0
        for b in d.blocks:  # one page worth of text
            if size + len(b) > 2200:
                break
            blocks.append(b)
            size += len(b)
        write_scan(path, blocks, seed=n, mono=d.mono)
        paths.append(str(path))
    return paths


def run(paths: list[str], processes: int, omp: str | None) -> dict:
    ctx = multiprocessing.get_context("spawn")
    with cf.ProcessPoolExecutor(processes, mp_context=ctx) as pool:
        list(pool.map(_extract, paths[:processes], [omp] * processes))  # warm the workers (imports)
        start = time.perf_counter()
        results = list(pool.map(_extract, paths, [omp] * len(paths)))
        seconds = time.perf_counter() - start
    pages = sum(p for p, _ in results)
    return {"processes": processes, "omp_thread_limit": omp or "default", "pages": pages,
            "seconds": round(seconds, 2), "pages_per_s": round(pages / seconds, 3),
            "mean_confidence": round(sum(c for _, c in results) / len(results), 1)}


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--pages", type=int, default=12)
    args = parser.parse_args()
    cores = os.cpu_count() or 1
    paths = make_scans(Path(tempfile.mkdtemp(prefix="ltm-ocr-")), args.pages)
    runs = [run(paths, 1, None), run(paths, 1, "1"), run(paths, cores, "1"), run(paths, cores, None)]
    single = runs[1]["pages_per_s"]
    best_all = max(r["pages_per_s"] for r in runs if r["processes"] == cores)
    result = {
        "cores": cores, "runs": runs,
        "scaling": round(best_all / (cores * single), 3),
        "target": ">= 0.9 x cores x single-process rate",
        "load_average_1m": round(os.getloadavg()[0], 2),
    }
    print(json.dumps(result, indent=2))
    RESULTS.mkdir(parents=True, exist_ok=True)
    (RESULTS / "bench_ocr.json").write_text(json.dumps(result, indent=2))
    plot(result)
    return 0


def plot(r: dict) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(7, 4))
    labels = [f"{x['processes']} proc\nOMP {x['omp_thread_limit']}" for x in r["runs"]]
    ax.bar(labels, [x["pages_per_s"] for x in r["runs"]], color="tab:orange")
    ax.axhline(r["cores"] * r["runs"][1]["pages_per_s"], color="grey", linestyle="--", label="cores x single")
    ax.set_ylabel("OCR pages / s")
    ax.set_title(f"OCR scaling {r['scaling']:.2f} of linear on {r['cores']} cores")
    ax.legend()
    fig.tight_layout()
    fig.savefig(RESULTS / "bench_ocr.png", dpi=110)


if __name__ == "__main__":
    raise SystemExit(main())
