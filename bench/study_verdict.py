"""How far can a verdict built on the search's own signals separate answerable from unanswerable questions?

On the sample corpus, with the shipped search (hybrid, reranker reading each passage after its document's
opening), for every question: the reranked candidates' scores, cosines and fused scores, and the words of the
question that appear nowhere in the index. Then, for each signal and for every pair of signals (a linear rule
fitted on this very set, so an upper bound), the share of unanswerable questions flagged low when at most 10% of
answerable ones are; the best pairs are also fitted on half the questions and applied to the other half (20
stratified splits), which says how much of their figure is fitting. Results: bench/results/study_verdict.json (docs/retrieval.md, "Verdict thresholds").

Run:  LTM_MODELS_DIR=.models .venv/bin/python bench/study_verdict.py
      .venv/bin/python bench/study_verdict.py --rows bench/results/study_verdict.json   (re-analyse only)
"""

from __future__ import annotations

import itertools
import json
import math
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from ltm_desktop.adapters.postgres.scratch_store import analyze_database  # noqa: E402
from ltm_desktop.bootstrap import Container, configure_environment  # noqa: E402
from ltm_desktop.sample_corpus import sample_corpus_dir  # noqa: E402
from ltm_desktop.services.eval_dataset import load_beir  # noqa: E402
from ltm_desktop.services.evaluation import ingest_dataset  # noqa: E402
from ltm_desktop.settings import Settings  # noqa: E402

RESULTS = ROOT / "bench" / "results"
MAX_ANSWERABLE_LOW = 0.10


def caught_at(score: list[float], unanswerable: list[bool]) -> float:
    """Share of unanswerable questions below the threshold that flags at most 10% of answerable ones low."""
    ans = sorted(s for s, u in zip(score, unanswerable) if not u)
    una = [s for s, u in zip(score, unanswerable) if u]
    allowed = int(MAX_ANSWERABLE_LOW * len(ans))
    threshold = (ans[allowed - 1] + ans[allowed]) / 2 if allowed else ans[0]
    return round(sum(s < threshold for s in una) / len(una), 3)


def standardise(values: list[float]) -> list[float]:
    mean = sum(values) / len(values)
    sd = math.sqrt(sum((v - mean) ** 2 for v in values) / len(values)) or 1.0
    return [(v - mean) / sd for v in values]


def features(hits, absent: int) -> dict[str, float]:
    rs = [h.rerank_score for h in hits if h.rerank_score is not None] or [-20.0]
    rs += [rs[-1]] * (3 - len(rs))
    cs = [h.cosine for h in hits if h.cosine is not None] or [0.0]
    top = hits[0] if hits else None
    return {
        "top_score": rs[0], "second_score": rs[1], "gap": rs[0] - rs[1], "mean_top3": sum(rs[:3]) / 3,
        "best_cosine": max(cs), "top_cosine": (top.cosine or 0.0) if top else 0.0,
        "top_fused": top.fused_score if top else 0.0, "close_to_best": float(sum(s > rs[0] - 3 for s in rs)),
        "spread_top10": float(max(rs[:10]) - min(rs[:10])), "absent_words": float(absent),
    }


def fit_pair(z_a: list[float], z_b: list[float], una: list[bool]) -> tuple[float, float]:
    """The angle of the best linear rule on these questions, and its threshold (10% of answerable below it)."""
    best = (-1.0, 0.0)
    for t in (i * math.pi / 36 for i in range(72)):
        caught = caught_at([math.cos(t) * x + math.sin(t) * y for x, y in zip(z_a, z_b)], una)
        best = max(best, (caught, t))
    t = best[1]
    score = [math.cos(t) * x + math.sin(t) * y for x, y in zip(z_a, z_b)]
    ans = sorted(v for v, u in zip(score, una) if not u)
    allowed = int(MAX_ANSWERABLE_LOW * len(ans))
    return t, (ans[allowed - 1] + ans[allowed]) / 2 if allowed else ans[0]


def cross_validate(rows: list[dict], a: str, b: str, rounds: int = 20) -> dict[str, float]:
    """Fit the pair rule on half the questions (stratified), apply it to the other half; medians over splits."""
    import random

    z = {n: standardise([r[n] for r in rows]) for n in (a, b)}
    caught, wrongly = [], []
    for seed in range(rounds):
        rng = random.Random(seed)
        idx = {True: [i for i, r in enumerate(rows) if r["unanswerable"]],
               False: [i for i, r in enumerate(rows) if not r["unanswerable"]]}
        fit = set()
        for group in idx.values():
            rng.shuffle(group)
            fit.update(group[: len(group) // 2])
        test = [i for i in range(len(rows)) if i not in fit]
        fit_i = sorted(fit)
        t, threshold = fit_pair([z[a][i] for i in fit_i], [z[b][i] for i in fit_i],
                                [rows[i]["unanswerable"] for i in fit_i])
        score = {i: math.cos(t) * z[a][i] + math.sin(t) * z[b][i] for i in test}
        una = [i for i in test if rows[i]["unanswerable"]]
        ans = [i for i in test if not rows[i]["unanswerable"]]
        caught.append(sum(score[i] < threshold for i in una) / len(una))
        wrongly.append(sum(score[i] < threshold for i in ans) / len(ans))
    caught.sort()
    wrongly.sort()
    return {"unanswerable_low_median": round(caught[len(caught) // 2], 3),
            "answerable_low_median": round(wrongly[len(wrongly) // 2], 3), "splits": rounds}


def analyse(rows: list[dict]) -> dict:
    una = [r["unanswerable"] for r in rows]
    names = [k for k in rows[0] if k not in ("id", "unanswerable", "absent", "verdict")]
    single = {}
    for name in names:
        values = [r[name] for r in rows]
        single[name] = max(caught_at(values, una), caught_at([-v for v in values], una))
    pairs = []
    z = {name: standardise([r[name] for r in rows]) for name in names}
    for a, b in itertools.combinations(names, 2):
        t, _ = fit_pair(z[a], z[b], una)
        caught = caught_at([math.cos(t) * x + math.sin(t) * y for x, y in zip(z[a], z[b])], una)
        pairs.append({"features": [a, b], "caught": caught, "angle": round(t, 2)})
    pairs.sort(key=lambda p: -p["caught"])
    for p in pairs[:3]:
        p["held_out"] = cross_validate(rows, *p["features"])
    return {
        "questions": len(rows), "unanswerable": sum(una),
        "shipped_verdict": {
            "unanswerable_low": round(sum(r["verdict"] == "low" for r in rows if r["unanswerable"]) / sum(una), 3),
            "answerable_low": round(sum(r["verdict"] == "low" for r in rows if not r["unanswerable"])
                                    / (len(rows) - sum(una)), 3),
        },
        "caught_at_10pct_answerable_low": {"single": single, "best_pairs": pairs[:10]},
        "answerable_questions_with_a_word_absent_from_the_index": sum(
            1 for r in rows if r["absent"] and not r["unanswerable"]),
        "rows": rows,
    }


def main() -> int:
    if sys.argv[1:2] == ["--rows"]:  # re-analyse saved rows without searching again
        report = analyse(json.loads(Path(sys.argv[2]).read_text())["rows"])
        (RESULTS / "study_verdict.json").write_text(json.dumps(report, indent=2))
        print(json.dumps({k: v for k, v in report.items() if k != "rows"}, indent=2))
        return 0
    configure_environment()
    home = Path(tempfile.mkdtemp(prefix="ltm-verdict-"))
    base = Container(Settings(home=home, models_dir=str(ROOT / ".models"), ingest_workers=1))
    dataset = load_beir(sample_corpus_dir(home / "cache"))
    rows = []
    with base.scratch() as scratch, tempfile.TemporaryDirectory() as work:
        ingest_dataset(dataset, Path(work), scratch.ingest.ingest_paths)
        analyze_database(scratch.settings.database_url)
        service = scratch.search
        for n, q in enumerate(dataset.queries, start=1):
            result = service.search(q.text, k=20)
            absent = list(result.unmatched_terms)  # words whose stemmed form is in no chunk, as the search reports
            rows.append({"id": q.query_id, "unanswerable": not q.is_answerable, "absent": absent,
                         "verdict": result.confidence, **features(result.hits, len(absent))})
            if n % 25 == 0:
                print(f"{n}/{len(dataset.queries)}", flush=True)
    report = analyse(rows)
    RESULTS.mkdir(parents=True, exist_ok=True)
    (RESULTS / "study_verdict.json").write_text(json.dumps(report, indent=2))
    print(json.dumps({k: v for k, v in report.items() if k != "rows"}, indent=2))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
