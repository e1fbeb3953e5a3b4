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
import contextlib
import dataclasses
import json
import os
import random
import resource
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
from ltm_desktop.services.ingest import EMBED_BATCH, default_workers  # noqa: E402
from ltm_desktop.settings import Settings  # noqa: E402

RESULTS = ROOT / "bench" / "results"


class PostgresPeakMemory:
    """Samples Postgres and the extraction workers once a second (cheap, so it does not slow what is timed)."""

    def __init__(self, data_dir_marker: str) -> None:
        self.peak_mb = 0.0
        self.workers_peak_mb = 0.0
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, daemon=True)
        self._postmaster = next(
            (p for p in psutil.process_iter(["name", "cmdline"])
             if p.info["name"] == "postgres" and data_dir_marker in " ".join(p.info["cmdline"] or [])), None)

    def _sample(self) -> float:
        if self._postmaster is None:
            return 0.0
        procs = [self._postmaster, *self._postmaster.children()]
        private = shared = 0.0
        for p in procs:
            try:
                m = p.memory_info()
            except psutil.NoSuchProcess:
                continue
            # Private memory per process plus the shared buffers once: RSS counts shared pages in every process.
            private += (m.rss - m.shared) / 2**20
            shared = max(shared, m.shared / 2**20)
        return private + shared

    def _run(self) -> None:
        while not self._stop.wait(1.0):
            try:
                self.peak_mb = max(self.peak_mb, round(self._sample(), 1))
                workers = [c for c in psutil.Process().children() if c.name() != "postgres"]
                self.workers_peak_mb = max(self.workers_peak_mb, round(sum(c.memory_info().rss for c in workers) / 2**20, 1))
            except psutil.Error:
                continue

    def __enter__(self) -> PostgresPeakMemory:
        self._thread.start()
        return self

    def __exit__(self, *exc) -> None:
        self._stop.set()
        self._thread.join()


def peak_rss_mb(who: int) -> float:
    """Lifetime peak RSS (MiB) of this process (ru_maxrss is in KiB on Linux)."""
    return round(resource.getrusage(who).ru_maxrss / 1024, 1)


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


def new_chunk_texts(scratch, after_id: int) -> tuple[list[str], int]:
    """The texts the pipeline embedded (context line + chunk text) for chunks written after `after_id`."""
    with scratch.write_db.connection() as conn:
        rows = conn.execute("SELECT id, context, text FROM chunks WHERE id > %s ORDER BY id", (after_id,)).fetchall()
    return [f"{r[1]}\n{r[2]}" for r in rows], max((r[0] for r in rows), default=after_id)


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--docs", type=int, default=60)
    parser.add_argument("--pages", type=int, default=5)
    parser.add_argument("--rounds", type=int, default=4, help="interleaved rounds (load drifts hit all sides alike)")
    args = parser.parse_args()
    configure_environment()
    from ltm_desktop.adapters.postgres.scratch_store import temporary_server

    home = Path(tempfile.mkdtemp(prefix="ltm-bi-"))
    base = Container(Settings(home=home, models_dir=str(ROOT / ".models")))
    make_pdfs(home / "pdfs", args.docs, args.pages)
    files = sorted((home / "pdfs").glob("*.pdf"))
    embedder = base.embedder
    embedder.embed_documents(["warm up"] * 8)
    app_default = base.settings.ingest_workers or default_workers()
    setups = {"extraction in-process (workers=1)": 1, "2 extraction processes (workers=2)": 2}
    if app_default > 2:
        setups[f"app default (workers={app_default})"] = app_default
    raw = {"raw embedder, batches of 1": 1}
    times = {name: 0.0 for name in [*setups, *raw]}
    counts = {name: [0, 0] for name in setups}
    pg_peak = workers_peak = 0.0
    with temporary_server() as server:
        scratches = {}
        with contextlib.ExitStack() as stack:
            for name, workers in setups.items():
                base.settings = dataclasses.replace(base.settings, ingest_workers=workers)
                scratches[name] = stack.enter_context(base.scratch(server))
                scratches[name].document_store  # pin the model before timing
            last_id = 0
            for r in range(args.rounds):
                part = files[r :: args.rounds]
                for name, scratch in scratches.items():
                    with PostgresPeakMemory(data_dir_marker=server.split("host=")[-1]) as pg:
                        start = time.perf_counter()
                        outcomes = scratch.ingest.ingest_paths(part)
                        times[name] += time.perf_counter() - start
                    pg_peak = max(pg_peak, pg.peak_mb)
                    workers_peak = max(workers_peak, pg.workers_peak_mb)
                    ok = [o for o in outcomes if isinstance(o, Ingested)]
                    counts[name][0] += sum(o.chunks for o in ok)
                    counts[name][1] += sum(o.pages for o in ok)
                first = next(iter(scratches.values()))
                texts, last_id = new_chunk_texts(first, last_id)
                for name, batch in raw.items():  # the bare model, no pipeline around it
                    start = time.perf_counter()
                    for i in range(0, len(texts), EMBED_BATCH):
                        list(embedder._model.embed(texts[i : i + EMBED_BATCH], batch_size=batch))
                    times[name] += time.perf_counter() - start
                print(f"round {r + 1}/{args.rounds}: " + ", ".join(f"{k} {v:.1f}s" for k, v in times.items()), flush=True)
            peaks = {"ingest_process_mb": peak_rss_mb(resource.RUSAGE_SELF),
                     "extraction_workers_mb": workers_peak, "postgres_mb": pg_peak}
            # Padded batches of 32, once, after everything else: it raises this process's memory for good.
            texts, _ = new_chunk_texts(next(iter(scratches.values())), 0)
            start = time.perf_counter()
            for i in range(0, len(texts), EMBED_BATCH):
                list(embedder._model.embed(texts[i : i + EMBED_BATCH], batch_size=32))
            times["raw embedder, batches of 32"] = time.perf_counter() - start
            raw["raw embedder, batches of 32"] = 32
    chunks, pages = next(iter(counts.values()))
    floor = min(times[name] for name in raw)  # the fastest way to run the bare model is the limit
    result_note = f"app default on this machine: workers={app_default}"
    result = {
        "documents": len(files), "pages": pages, "chunks": chunks, "cpu_count": os.cpu_count(),
        "rounds": args.rounds, "embedder_batch_size": embedder._batch,
        "raw": {name: {"seconds": round(times[name], 2), "chunks_per_s": round(chunks / times[name], 1)} for name in raw},
        "raw_embed_chunks_per_s": round(chunks / floor, 1),
        "pipelines": {
            name: {
                "workers": workers, "seconds": round(times[name], 2),
                "chunks_per_s": round(counts[name][0] / times[name], 1),
                "pages_per_s": round(counts[name][1] / times[name], 1),
                "efficiency": round(floor / times[name], 3),
            }
            for name, workers in setups.items()
        },
        "peak_memory_mb": peaks,
        "load_average_1m": round(os.getloadavg()[0], 2),
        "note": result_note,
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

    fig, (a, b) = plt.subplots(1, 2, figsize=(12, 4.2))
    names = list(r["pipelines"])
    raws = list(r["raw"])
    a.bar([*names, *raws], [*(r["pipelines"][n]["chunks_per_s"] for n in names), *(r["raw"][n]["chunks_per_s"] for n in raws)],
          color=["tab:purple"] * len(names) + ["tab:grey"] * len(raws))
    for i, n in enumerate(names):
        a.text(i, r["pipelines"][n]["chunks_per_s"], f"eff. {r['pipelines'][n]['efficiency']:.2f}", ha="center", va="bottom")
    a.set_ylabel("chunks / s")
    a.set_title(f"ingestion vs bare embedder ({r['chunks']} chunks, {r['pages']} pages)")
    a.tick_params(axis="x", labelsize=7, rotation=12)
    peaks = r["peak_memory_mb"]
    b.bar(list(peaks), list(peaks.values()), color="tab:blue")
    b.set_ylabel("peak RSS (MiB)")
    b.set_title("peak memory during ingestion (both pipelines)")
    fig.tight_layout()
    fig.savefig(RESULTS / "bench_ingest.png", dpi=110)


if __name__ == "__main__":
    raise SystemExit(main())
