"""Ingestion throughput on born-digital PDFs next to the raw embedder on the same chunks, in the same run.

The pipeline (preflight, extraction in worker processes, chunking, embedding, COPY into Postgres) is timed
end to end; then the very texts it embedded are embedded again by the bare model with the same batch size.
pipeline chunks/s / raw chunks/s is the pipeline's efficiency (target >= 0.9): what it loses to
everything that is not the model. Peak memory of the ingesting process, its extraction workers and the
Postgres server are sampled throughout. Results: bench/results/bench_ingest.json and .png.

Run:  .venv/bin/python bench/bench_ingest.py [--docs 60 --pages 5]
"""

from __future__ import annotations

import argparse
import json
import os
import random
import sys
import tempfile
import threading
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

import psutil  # noqa: E402

from ltm_desktop.adapters.document_writers import write_pdf  # noqa: E402
from ltm_desktop.bootstrap import Container, configure_environment  # noqa: E402
from ltm_desktop.core.models import Ingested  # noqa: E402
from ltm_desktop.sample_corpus.build import assemble  # noqa: E402
from ltm_desktop.services.ingest import EMBED_BATCH  # noqa: E402
from ltm_desktop.settings import Settings  # noqa: E402

RESULTS = ROOT / "bench" / "results"


class PeakMemory:
    """Samples RSS of this process, its children and the Postgres processes every 100 ms; keeps the peaks."""

    def __init__(self, pg_marker: str) -> None:
        self.peaks = {"ingest_process_mb": 0.0, "extraction_workers_mb": 0.0, "postgres_mb": 0.0}
        self._marker, self._stop = pg_marker, threading.Event()
        self._thread = threading.Thread(target=self._run, daemon=True)

    def _sample(self) -> None:
        me = psutil.Process()
        mb = lambda p: p.memory_info().rss / 2**20  # noqa: E731
        children = sum(mb(c) for c in me.children(recursive=True) if "postgres" not in c.name())
        pg = 0.0
        for p in psutil.process_iter(["name", "cmdline"]):
            try:
                if p.info["name"] == "postgres" and self._marker in " ".join(p.info["cmdline"] or []):
                    pg += mb(p) - p.memory_info().shared / 2**20  # private memory: shared buffers count once
            except (psutil.NoSuchProcess, psutil.AccessDenied):
                continue
        for key, value in (("ingest_process_mb", mb(me)), ("extraction_workers_mb", children), ("postgres_mb", pg)):
            self.peaks[key] = max(self.peaks[key], round(value, 1))

    def _run(self) -> None:
        while not self._stop.wait(0.1):
            self._sample()

    def __enter__(self) -> PeakMemory:
        self._thread.start()
        return self

    def __exit__(self, *exc) -> None:
        self._stop.set()
        self._thread.join()


def make_pdfs(folder: Path, docs: int, pages: int, seed: int = 11) -> int:
    """Born-digital PDFs whose pages are paragraphs drawn from the sample corpus's leases, letters and reports."""
    rng = random.Random(seed)
    paragraphs = [b for d in assemble(20240601)[0] for b in d.blocks if len(b) > 200 and not b.startswith("#")]
    folder.mkdir(parents=True, exist_ok=True)
    total_pages = 0
    for n in range(docs):
        blocks = []
        for p in range(pages):
            blocks.append(f"# Section {p + 1} of report {n}")
            blocks += rng.sample(paragraphs, 4)
        breaks = tuple(i for i, b in enumerate(blocks) if b.startswith("# "))
        write_pdf(folder / f"report_{n:03d}.pdf", blocks, f"Report {n}", breaks=breaks)
        total_pages += pages
    return total_pages


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--docs", type=int, default=60)
    parser.add_argument("--pages", type=int, default=5)
    parser.add_argument("--workers", type=int, default=0, help="extraction processes (0: the app's default)")
    args = parser.parse_args()
    configure_environment()
    home = Path(tempfile.mkdtemp(prefix="ltm-bi-"))
    base = Container(Settings(home=home, models_dir=str(ROOT / ".models"), ingest_workers=args.workers))
    make_pdfs(home / "pdfs", args.docs, args.pages)
    embedder = base.embedder
    embedder.embed_documents(["warm up"] * 8)
    with base.scratch() as scratch:
        with PeakMemory(pg_marker="ltm-ev-") as mem:
            start = time.perf_counter()
            outcomes = scratch.ingest.ingest_paths([home / "pdfs"])
            pipeline_s = time.perf_counter() - start
        ingested = [o for o in outcomes if isinstance(o, Ingested)]
        with scratch.write_db.connection() as conn:
            texts = [f"{r[0]}\n{r[1]}" for r in conn.execute("SELECT context, text FROM chunks ORDER BY id")]
    chunks, pages = sum(o.chunks for o in ingested), sum(o.pages for o in ingested)
    assert chunks == len(texts), (chunks, len(texts))
    start = time.perf_counter()
    for i in range(0, len(texts), EMBED_BATCH):
        embedder.embed_documents(texts[i : i + EMBED_BATCH])
    raw_s = time.perf_counter() - start
    result = {
        "documents": len(ingested), "pages": pages, "chunks": chunks,
        "workers": scratch.ingest._limits.workers, "cpu_count": os.cpu_count(),
        "pipeline_seconds": round(pipeline_s, 2), "raw_embed_seconds": round(raw_s, 2),
        "pipeline_chunks_per_s": round(chunks / pipeline_s, 1), "pipeline_pages_per_s": round(pages / pipeline_s, 1),
        "raw_embed_chunks_per_s": round(chunks / raw_s, 1),
        "efficiency": round(raw_s / pipeline_s, 3),
        "mean_chunk_chars": round(sum(map(len, texts)) / len(texts)),
        "peak_memory": mem.peaks,
        "load_average_1m": round(os.getloadavg()[0], 2),
    }
    print(json.dumps(result, indent=2))
    RESULTS.mkdir(parents=True, exist_ok=True)
    (RESULTS / "bench_ingest.json").write_text(json.dumps(result, indent=2))
    plot(result)
    return 0


def plot(r: dict) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, (a, b) = plt.subplots(1, 2, figsize=(10, 4))
    a.bar(["pipeline", "raw embedder"], [r["pipeline_chunks_per_s"], r["raw_embed_chunks_per_s"]],
          color=["tab:purple", "tab:grey"])
    a.set_ylabel("chunks / s")
    a.set_title(f"ingestion efficiency {r['efficiency']:.2f} ({r['chunks']} chunks, {r['pages']} pages)")
    peaks = r["peak_memory"]
    b.bar(list(peaks), list(peaks.values()), color="tab:blue")
    b.set_ylabel("peak RSS (MiB)")
    b.set_title("peak memory during ingestion")
    b.tick_params(axis="x", rotation=10)
    fig.tight_layout()
    fig.savefig(RESULTS / "bench_ingest.png", dpi=110)


if __name__ == "__main__":
    raise SystemExit(main())
