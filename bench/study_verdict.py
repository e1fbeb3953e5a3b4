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

import contextlib
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
from ltm_desktop.core.models import SearchFilters  # noqa: E402
from ltm_desktop.core.question_details import details_of, unmentioned_details  # noqa: E402
from ltm_desktop.sample_corpus import sample_corpus_dir, sample_questions_dir  # noqa: E402
from ltm_desktop.services.eval_dataset import load_beir, with_questions  # noqa: E402
from ltm_desktop.services.evaluation import ingest_dataset  # noqa: E402
from ltm_desktop.services.search import DETAIL_LEAD_CHARS  # noqa: E402
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


SIGNALS = ("top_score", "second_score", "gap", "mean_top3", "best_cosine", "top_cosine", "top_fused", "close_to_best",
           "spread_top10", "absent_words")


def low_rates(rows: list[dict], low) -> dict[str, float]:
    una = [r for r in rows if r["unanswerable"]]
    ans = [r for r in rows if not r["unanswerable"]]
    return {"unanswerable_low": round(sum(map(low, una)) / len(una), 3),
            "answerable_low": round(sum(map(low, ans)) / len(ans), 3)}


def threshold_at(score: list[float], unanswerable: list[bool]) -> float:
    ans = sorted(s for s, u in zip(score, unanswerable) if not u)
    allowed = int(MAX_ANSWERABLE_LOW * len(ans))
    return (ans[allowed - 1] + ans[allowed]) / 2 if allowed else ans[0]


def transfer(fit: list[dict], test: list[dict]) -> dict:
    """Rules fitted on one question set (10% of its answerable questions low) and applied unchanged to the other."""
    stats = {}
    for n in SIGNALS:
        values = [r[n] for r in fit]
        mean = sum(values) / len(values)
        stats[n] = (mean, math.sqrt(sum((v - mean) ** 2 for v in values) / len(values)) or 1.0)

    def rule(weights: dict[str, float]) -> dict:
        def score(r):
            return sum(w * (r[n] - stats[n][0]) / stats[n][1] for n, w in weights.items())
        threshold = threshold_at([score(r) for r in fit], [r["unanswerable"] for r in fit])
        return {"weights": {n: round(w, 2) for n, w in weights.items()},
                "fitted": low_rates(fit, lambda r: score(r) < threshold),
                "applied": low_rates(test, lambda r: score(r) < threshold)}

    singles = [rule({n: sign}) for n in SIGNALS for sign in (1.0, -1.0)]
    pairs = []
    for a, b in itertools.combinations(SIGNALS, 2):
        best = max((rule({a: math.cos(t), b: math.sin(t)}) for t in (i * math.pi / 36 for i in range(72))),
                   key=lambda r: r["fitted"]["unanswerable_low"])
        pairs.append(best)
    key = lambda r: -r["fitted"]["unanswerable_low"]  # noqa: E731
    return {"single": sorted(singles, key=key)[:5], "pairs": sorted(pairs, key=key)[:5],
            "best_applied_pair": max(pairs, key=lambda r: r["applied"]["unanswerable_low"]
                                     - 10 * max(0.0, r["applied"]["answerable_low"] - MAX_ANSWERABLE_LOW))}


def analyse_set(rows: list[dict]) -> dict:
    """Within one question set: each signal and each fitted pair (upper bounds), the best pairs cross-validated."""
    una = [r["unanswerable"] for r in rows]
    single = {}
    for name in SIGNALS:
        values = [r[name] for r in rows]
        single[name] = max(caught_at(values, una), caught_at([-v for v in values], una))
    pairs = []
    z = {name: standardise([r[name] for r in rows]) for name in SIGNALS}
    for a, b in itertools.combinations(SIGNALS, 2):
        t, _ = fit_pair(z[a], z[b], una)
        caught = caught_at([math.cos(t) * x + math.sin(t) * y for x, y in zip(z[a], z[b])], una)
        pairs.append({"features": [a, b], "caught": caught, "angle": round(t, 2)})
    pairs.sort(key=lambda p: -p["caught"])
    for p in pairs[:3]:
        p["held_out"] = cross_validate(rows, *p["features"])
    return {
        "questions": len(rows), "unanswerable": sum(una),
        "shipped_verdict": low_rates(rows, lambda r: r["verdict"] == "low"),
        "caught_at_10pct_answerable_low": {"single": single, "best_pairs": pairs[:10]},
        "answerable_questions_with_a_word_absent_from_the_index": sum(
            1 for r in rows if r["absent"] and not r["unanswerable"]),
    }


SHIPPED_MEDIUM, SHIPPED_HIGH = 1.0, 6.0


def detail_policies(rows: list[dict]) -> dict:
    """What each way of using the detail check does to the verdict (passages checked: the best 3, or the best 1)."""
    out = {}
    for field in ("unmentioned", "unmentioned_top1"):
        policies = {
            "score only (no detail check)": lambda r: r["top_score"] < SHIPPED_MEDIUM,
            "a missing detail makes it low": lambda r, f=field: r["top_score"] < SHIPPED_MEDIUM or bool(r[f]),
            **{f"a missing detail makes it low below {t}": (
                lambda r, f=field, t=t: r["top_score"] < SHIPPED_MEDIUM or (bool(r[f]) and r["top_score"] < t))
               for t in (3, 6, 9)},
        }
        out[field] = {name: {s: low_rates([r for r in rows if r.get("set", "generated") == s], low)
                             for s in sorted({r.get("set", "generated") for r in rows})}
                      for name, low in policies.items()}
        out[field]["high_reached"] = {
            s: {"unanswerable": sum(1 for r in rows if r.get("set", "generated") == s and r["unanswerable"]
                                    and r["top_score"] >= SHIPPED_HIGH and not r[field]),
                "answerable": sum(1 for r in rows if r.get("set", "generated") == s and not r["unanswerable"]
                                  and r["top_score"] >= SHIPPED_HIGH and not r[field])}
            for s in sorted({r.get("set", "generated") for r in rows})}
    return out


def analyse(rows: list[dict]) -> dict:
    by_set = {}
    for r in rows:
        by_set.setdefault(r.get("set", "generated"), []).append(r)
    report = {"sets": {name: analyse_set(rs) for name, rs in by_set.items()}}
    if len(by_set) == 2:
        (a, ra), (b, rb) = by_set.items()
        report["transfer"] = {f"fitted on {a}, applied to {b}": transfer(ra, rb),
                              f"fitted on {b}, applied to {a}": transfer(rb, ra)}
        report["top_score_sweep"] = {
            str(t): {name: low_rates(rs, lambda r, t=t: r["top_score"] < t) for name, rs in by_set.items()}
            for t in (-3, -2, -1, 0, 1, 2, 3)}
    if all("unmentioned" in r for r in rows):
        report["detail_check"] = detail_policies(rows)
    report["rows"] = rows
    return report


def question_rows(service, index, dataset, question_set: str) -> list[dict]:
    """Per question: the signals, plus what a new signal may need later (every score, the best passages' text)."""
    rows = []
    for n, q in enumerate(dataset.queries, start=1):
        result = service.search(q.text, k=20)
        absent = list(result.unmatched_terms)  # words whose stemmed form is in no chunk, as the search reports
        ids = [h.chunk_id for h in result.hits]
        details = index.chunk_details(ids[:3], SearchFilters())
        # The same text the search checks (path, title and heading, opening, passage), for the best passage only
        leads = index.leads(ids[:1], DETAIL_LEAD_CHARS)
        top1 = [f"{details[c].path}\n{details[c].title}\n{details[c].heading or ''}\n{leads.get(c, '')}\n{details[c].text}"
                for c in ids[:1] if c in details]
        rows.append({"id": q.query_id, "set": question_set, "unanswerable": not q.is_answerable, "absent": absent,
                     "verdict": result.confidence, **features(result.hits, len(absent)),
                     "details": [d.label for d in details_of(q.text)],
                     "unmentioned": list(result.unmentioned_details),  # in the best 3 passages, as the search checks
                     "unmentioned_top1": [d.label for d in unmentioned_details(q.text, top1)],
                     "scores": [h.rerank_score for h in result.hits],
                     "top_texts": [details[c].text for c in ids[:3] if c in details],
                     "question": q.text})
        if n % 25 == 0:
            print(f"{question_set}: {n}/{len(dataset.queries)}", flush=True)
    return rows


@contextlib.contextmanager
def sample_store(prefix: str):
    """A scratch store holding the sample corpus, analysed: (store, {set name: questions}, path -> corpus id)."""
    configure_environment()
    home = Path(tempfile.mkdtemp(prefix=prefix))
    base = Container(Settings(home=home, models_dir=str(ROOT / ".models"), ingest_workers=1))
    dataset = load_beir(sample_corpus_dir(home / "cache"))
    sets = {"generated": dataset, "hand-written": with_questions(dataset, sample_questions_dir())}
    with base.scratch() as scratch, tempfile.TemporaryDirectory() as work:
        paths, _, _ = ingest_dataset(dataset, Path(work), scratch.ingest.ingest_paths)
        analyze_database(scratch.settings.database_url)
        yield scratch, sets, paths


def main() -> int:
    if sys.argv[1:2] == ["--rows"]:  # re-analyse saved rows without searching again
        report = analyse(json.loads(Path(sys.argv[2]).read_text())["rows"])
        (RESULTS / "study_verdict.json").write_text(json.dumps(report, indent=2))
        print(json.dumps({k: v for k, v in report.items() if k != "rows"}, indent=2))
        return 0
    rows = []
    with sample_store("ltm-verdict-") as (scratch, sets, _):
        for name, questions in sets.items():
            rows += question_rows(scratch.search, scratch.search_index, questions, name)
    report = analyse(rows)
    RESULTS.mkdir(parents=True, exist_ok=True)
    (RESULTS / "study_verdict.json").write_text(json.dumps(report, indent=2))
    print(json.dumps({k: v for k, v in report.items() if k != "rows"}, indent=2))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
