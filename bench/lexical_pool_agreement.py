"""How far does two-step full-text ranking move the lexical top 10 / top 50 from cover density over every row?

Full text ranks ts_rank's best LEXICAL_POOL matching rows by ts_rank_cd instead of ranking every matching row by
ts_rank_cd (search_index.LEXICAL_POOL). The sample corpus cannot show the difference (181 chunks: no question
matches more rows than the pool), so this runs on bench_search.py's synthetic stores (run that first with
--store DIR). For each of the sample corpus's questions, with the app's own tsquery: the share of the two-step
top k whose cover-density score reaches the full ranking's k-th score (ties count as agreeing: the synthetic
chunks repeat sentences, so many rows score alike), for several pool sizes, and the median time of each query.
Results: bench/results/lexical_pool_agreement.json.

Run:  LTM_MODELS_DIR=.models .venv/bin/python bench/lexical_pool_agreement.py --store DIR [--sizes 100000,1000000]
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "bench"))

from bench_search import open_store, stop_store  # noqa: E402

from ltm_desktop.adapters.postgres.fulltext import tsquery_cte_bounded  # noqa: E402
from ltm_desktop.bootstrap import Container, configure_environment  # noqa: E402
from ltm_desktop.sample_corpus.build import assemble  # noqa: E402
from ltm_desktop.services.eval_metrics import percentile  # noqa: E402
from ltm_desktop.settings import Settings  # noqa: E402

RESULTS = ROOT / "bench" / "results"
POOLS = (50, 100, 200, 400)
FULL = """SELECT ts_rank_cd(c.tsv, %(tq)s::tsquery, 1) AS r FROM chunks c WHERE c.tsv @@ %(tq)s::tsquery
          ORDER BY r DESC LIMIT 50"""


def two_step(pool: int) -> str:
    return f"""SELECT ts_rank_cd(p.tsv, %(tq)s::tsquery, 1) AS r FROM (
                   SELECT c.id, c.tsv FROM chunks c WHERE c.tsv @@ %(tq)s::tsquery
                   ORDER BY ts_rank(c.tsv, %(tq)s::tsquery, 1) DESC, c.id LIMIT {pool}) p
               ORDER BY r DESC LIMIT 50"""


def timed(conn, sql: str, tq: str) -> tuple[list[float], float]:
    times, scores = [], []
    for _ in range(3):
        start = time.perf_counter()
        scores = [r[0] for r in conn.execute(sql, {"tq": tq}).fetchall()]
        times.append((time.perf_counter() - start) * 1000)
    return scores, statistics.median(times)


def measure(store, queries: list[str]) -> dict:
    agree = {p: {10: [], 50: []} for p in POOLS}
    ms: dict[str, list[float]] = {"full": [], **{str(p): [] for p in POOLS}}
    with store.read_db.connection() as conn:
        for q in queries:
            params = {"q": q, **store.search_index._term_stats.params(conn)}
            tq = conn.execute(f"{tsquery_cte_bounded()} SELECT tq::text FROM q", params).fetchone()[0]
            if not tq:
                continue
            full, t = timed(conn, FULL, tq)
            ms["full"].append(t)
            for pool in POOLS:
                got, t = timed(conn, two_step(pool), tq)
                ms[str(pool)].append(t)
                for k in (10, 50):
                    if len(full) >= k:
                        agree[pool][k].append(sum(g >= full[k - 1] - 1e-9 for g in got[:k]) / k)
    return {
        "questions": len(ms["full"]),
        "agreement": {str(p): {f"top_{k}": {"mean": round(statistics.mean(v), 3), "min": round(min(v), 2),
                                           "questions": len(v)} for k, v in d.items() if v} for p, d in agree.items()},
        "sql_ms": {name: {"p50_ms": round(percentile(v, 50), 2), "p95_ms": round(percentile(v, 95), 2)}
                   for name, v in ms.items()},
    }


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--store", type=Path, required=True, help="bench_search.py's --store folder")
    parser.add_argument("--sizes", default="100000,1000000")
    args = parser.parse_args()
    configure_environment()
    base = Container(Settings(home=args.store / "base", models_dir=str(ROOT / ".models")))
    _, questions = assemble(20240601)
    queries = [q.text for q in questions][:100]
    report = {}
    for size in (int(x) for x in args.sizes.split(",")):
        if not (args.store / str(size) / "built.json").exists():
            print(f"{size}: no built store in {args.store}; run bench_search.py --store first", file=sys.stderr)
            continue
        store, _ = open_store(base, args.store / str(size), None, size)
        try:
            report[str(size)] = measure(store, queries)
            print(size, json.dumps(report[str(size)]), flush=True)
        finally:
            stop_store(store)
    RESULTS.mkdir(parents=True, exist_ok=True)
    (RESULTS / "lexical_pool_agreement.json").write_text(json.dumps(report, indent=2))
    plot(report)
    return 0


def plot(report: dict) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, (a, b) = plt.subplots(1, 2, figsize=(11, 4))
    for size, r in report.items():
        for k, style in (("top_10", "o-"), ("top_50", "s--")):
            a.plot(POOLS, [r["agreement"][str(p)][k]["mean"] for p in POOLS], style, label=f"{int(size):,} chunks, {k}")
        b.plot(["full", *map(str, POOLS)], [r["sql_ms"][n]["p95_ms"] for n in ("full", *map(str, POOLS))], "o-",
               label=f"{int(size):,} chunks")
    a.set_xscale("log")
    a.set_xticks(POOLS, [str(p) for p in POOLS])
    a.set_xlabel("rows ts_rank passes to ts_rank_cd")
    a.set_ylabel("share of cover density's top k (ties agree)")
    a.set_title("two-step ranking vs cover density over every row")
    a.legend(fontsize=8)
    b.set_xlabel("ranking (full = cover density over every matching row)")
    b.set_ylabel("full-text SQL p95 (ms)")
    b.set_title("cost of the ranking query")
    b.legend(fontsize=8)
    fig.tight_layout()
    fig.savefig(RESULTS / "lexical_pool_agreement.png", dpi=110)


if __name__ == "__main__":
    raise SystemExit(main())
