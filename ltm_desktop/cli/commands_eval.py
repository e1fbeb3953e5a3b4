"""`ltm eval`: measure retrieval quality on a BEIR dataset, the bundled sample corpus, or your own documents."""

from __future__ import annotations

import argparse
import json
import signal
import sys
import tempfile
import threading
import time
from pathlib import Path

from ltm_desktop.cli.output import to_jsonable
from ltm_desktop.cli.progress import ProgressBar

MODE_LABELS = {"dense": "dense only", "lexical": "lexical only", "hybrid": "hybrid", "hybrid+rerank": "hybrid + rerank"}


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser(
        "eval",
        help="measure retrieval quality (nDCG@10, recall, MRR, verdict) in a throwaway store",
        description="Load a BEIR-format dataset (corpus.jsonl, queries.jsonl, qrels/test.tsv) into a throwaway "
        "store, never your index, and report nDCG@10, Recall@10/50 and MRR@10 for dense, lexical, hybrid and "
        "hybrid+rerank search, plus how often the verdict flags unanswerable questions 'low'.",
    )
    what = p.add_mutually_exclusive_group(required=True)
    what.add_argument("dataset", nargs="?", type=Path, metavar="DIR", help="a BEIR-format dataset folder")
    what.add_argument("--sample", action="store_true", help="the bundled sample corpus (a property-management business)")
    what.add_argument(
        "--on-my-documents", action="store_true",
        help="questions made from passages of your own index (read-only), answered against it",
    )
    p.add_argument(
        "--held-out", action="store_true",
        help="with --sample: the hand-written questions (other words, harder near misses) instead of the generated "
        "ones, to check what was tuned on those",
    )
    p.add_argument("--split", default="test", help="qrels split to use (default: test)")
    p.add_argument("--limit", type=int, default=0, help="evaluate this many evenly spaced queries (0: all)")
    p.add_argument("--questions", type=int, default=60, help="with --on-my-documents: how many questions to make")
    p.add_argument("--seed", type=int, default=7, help="with --on-my-documents: which passages are sampled")
    p.add_argument("--chart", type=Path, default=None, help="where to write the PNG chart (default: HOME/eval/)")
    p.add_argument("--json", action="store_true", help="print the full report as JSON")
    p.set_defaults(handler=cmd_eval)


def _interrupted(*_: object) -> None:
    raise KeyboardInterrupt


def cmd_eval(args: argparse.Namespace) -> int:
    from ltm_desktop.bootstrap import Container

    # A terminated eval unwinds like Ctrl-C, so its throwaway Postgres is stopped and its folder deleted (the default
    # SIGTERM action left both behind, found after killing one).
    if threading.current_thread() is threading.main_thread():  # signal handlers can only be set there
        signal.signal(signal.SIGTERM, _interrupted)
    c = Container()
    try:
        if args.on_my_documents:
            report = _eval_own_documents(c, args)
        else:
            report = _eval_dataset(c, args)
    finally:
        c.close()
    out_dir = c.settings.home / "eval"
    out_dir.mkdir(parents=True, exist_ok=True)
    stamp = time.strftime("%Y%m%d-%H%M%S")
    json_path = out_dir / f"{report.dataset}-{stamp}.json"
    json_path.write_text(json.dumps(to_jsonable(report), indent=2, ensure_ascii=False), encoding="utf-8")
    chart = args.chart or out_dir / f"{report.dataset}-{stamp}.png"
    from ltm_desktop.adapters.pymupdf_chart import render_eval_chart

    render_eval_chart(report, chart)
    if args.json:
        data = to_jsonable(report)
        data["report_file"], data["chart_file"] = str(json_path), str(chart)
        print(json.dumps(data, indent=2, ensure_ascii=False))
    else:
        print_report(report)
        print(f"\nreport: {json_path}\nchart: {chart}")
    return 0


def _load(args: argparse.Namespace, c):
    from ltm_desktop.core.errors import InvalidInput
    from ltm_desktop.services.eval_dataset import EvalDataset, load_beir, with_questions

    if args.held_out and not args.sample:
        raise InvalidInput("--held-out picks the sample corpus's hand-written questions: use it with --sample")
    if args.sample:
        from ltm_desktop.sample_corpus import sample_corpus_dir, sample_questions_dir

        dataset = load_beir(sample_corpus_dir(c.settings.home / "cache"), "test")
        if args.held_out:
            dataset = with_questions(dataset, sample_questions_dir())
    else:
        dataset = load_beir(args.dataset, args.split)
    if 0 < args.limit < len(dataset.queries):
        # Evenly spaced, so a short run keeps the mix of answerable and unanswerable questions.
        qs = dataset.queries
        picked = tuple(qs[i * len(qs) // args.limit] for i in range(args.limit))
        dataset = EvalDataset(dataset.name, dataset.root, dataset.docs, picked)
    return dataset


def _eval_dataset(c, args: argparse.Namespace):
    from ltm_desktop.adapters.postgres.scratch_store import analyze_database
    from ltm_desktop.services.evaluation import EvalReport, doc_id_lookup, evaluate_queries, ingest_dataset

    dataset = _load(args, c)
    quiet = args.json
    with c.scratch() as scratch, tempfile.TemporaryDirectory(prefix="ltm-eval-") as work:
        bar = ProgressBar("ingesting", enabled=False if quiet else None)
        paths, seconds, failed = ingest_dataset(
            dataset, Path(work), lambda files: scratch.ingest.ingest_paths(files, lambda d, t, o: bar.update(d, t))
        )
        bar.close()
        analyze_database(scratch.settings.database_url)  # as autovacuum would; full-text search reads the statistics
        search = scratch.search
        bar = ProgressBar("searching", enabled=False if quiet else None)
        modes, verdicts, runs = evaluate_queries(
            dataset.queries, search, doc_id_lookup(paths),
            search.tuning.rerank_thresholds, search.tuning.cosine_thresholds, bar.update,
        )
        bar.close()
        settings = _settings_used(scratch)
    return EvalReport(
        dataset=dataset.name, documents=len(dataset.docs), queries=len(dataset.queries),
        answerable=len(dataset.answerable), unanswerable=len(dataset.unanswerable), modes=modes, verdicts=verdicts,
        ingest_seconds=seconds, failed_files=failed, settings=settings, runs=runs,
    )


def _eval_own_documents(c, args: argparse.Namespace):
    from ltm_desktop.adapters.postgres.passage_sampler import PgPassageSampler
    from ltm_desktop.services.eval_questions import evaluate_own_documents

    search = c.search  # read-only: checks the index exists and the model matches
    bar = ProgressBar("searching", enabled=False if args.json else None)
    thresholds = (search.tuning.rerank_thresholds, search.tuning.cosine_thresholds)
    report = evaluate_own_documents(PgPassageSampler(c.read_db), search, args.questions, args.seed, thresholds, bar.update)
    bar.close()
    return _with_settings(report, _settings_used(c))


def _with_settings(report, settings: dict[str, object]):
    import dataclasses

    return dataclasses.replace(report, settings=settings)


def _settings_used(c) -> dict[str, object]:
    s, t = c.settings, c.search.tuning
    return {
        "embed_model": s.embed_model, "rerank_model": s.rerank_model, "query_prefix": s.query_prefix,
        "chunk_target": s.chunk_target, "chunk_max": s.chunk_max, "chunk_overlap": s.chunk_overlap,
        "retrieval_depth": t.depth, "rerank_candidates": t.rerank_candidates,
        "rerank_lead_chars": t.lead_chars, "fusion": t.fusion,
        "dense_weight": t.dense_weight, "lexical_weight": t.lexical_weight, "rrf_k": t.rrf_k,
        "rerank_medium": t.rerank_thresholds.medium, "rerank_high": t.rerank_thresholds.high,
        "cosine_medium": t.cosine_thresholds.medium, "cosine_high": t.cosine_thresholds.high,
    }


def print_report(report) -> None:
    """The report as a table a person reads."""
    print(
        f"dataset: {report.dataset}  ({report.documents} documents; {report.queries} questions: "
        f"{report.answerable} answerable, {report.unanswerable} unanswerable)"
    )
    if report.ingest_seconds:
        print(f"loaded into a throwaway store in {report.ingest_seconds:.1f} s; {len(report.failed_files)} file(s) failed")
    for f in report.failed_files[:10]:
        print(f"  failed: {f}")
    errors = [r for r in report.runs if r.error]
    if errors:
        print(f"{len(errors)} question(s) were refused by search, e.g. {errors[0].query_id}: {errors[0].error}")
    print(f"\n{'mode':<16}{'nDCG@10':>9}{'R@10':>8}{'R@50':>8}{'MRR@10':>8}{'p50 ms':>9}{'p95 ms':>9}")
    for m in report.modes:
        print(
            f"{MODE_LABELS.get(m.mode, m.mode):<16}{m.ndcg_10:>9.3f}{m.recall_10:>8.3f}{m.recall_50:>8.3f}"
            f"{m.mrr_10:>8.3f}{m.latency_p50_ms:>9.0f}{m.latency_p95_ms:>9.0f}"
        )
    print()
    for v in report.verdicts:
        basis = "reranker score" if v.basis == "rerank" else "cosine only (no reranker)"
        status = "meets target" if v.meets_target else "misses target"
        print(
            f"verdict ({basis}, 'low' below {v.medium_threshold:g}): "
            f"{v.unanswerable_flagged_low:.0%} of {v.unanswerable} unanswerable flagged low (target >= 80%), "
            f"{v.answerable_flagged_low:.0%} of {v.answerable} answerable wrongly flagged low (target <= 10%): {status}"
        )
        if v.unanswerable_low_by_details or v.answerable_low_by_details:
            print(
                f"  of those, low because no leading passage names the question's year, month, unit, amount or street "
                f"(its best score was not low): {v.unanswerable_low_by_details} unanswerable, "
                f"{v.answerable_low_by_details} answerable"
            )
        if not v.meets_target and v.suggested_medium is not None:
            name = "rerank_medium" if v.basis == "rerank" else "cosine_medium"
            print(
                f"  on this set, {name} = {v.suggested_medium:g} would flag at most 10% of answerable questions low "
                f"and {v.unanswerable_low_at_suggested:.0%} of unanswerable ones"
            )
    sys.stdout.flush()
