"""watch, worker, status, pause, resume: the always-on ingestion worker from a terminal."""

from __future__ import annotations

import argparse
import signal
import sys
import threading

from ltm_desktop.cli.output import print_json, to_jsonable


def register(sub: argparse._SubParsersAction) -> None:
    watch = sub.add_parser("watch", help="folders the worker keeps indexed").add_subparsers(dest="watch_command", metavar="ACTION")
    p = watch.add_parser("add", help="watch a folder (recursively); its files are indexed and kept up to date")
    p.add_argument("path", metavar="PATH")
    p.add_argument("--ignore", action="append", default=[], metavar="GLOB", help="skip files matching GLOB (repeatable)")
    p.set_defaults(handler=cmd_watch_add)
    p = watch.add_parser("list", help="watched folders and their state")
    p.add_argument("--json", action="store_true")
    p.set_defaults(handler=cmd_watch_list)
    p = watch.add_parser("remove", help="stop watching a folder; its documents leave search")
    p.add_argument("path", metavar="PATH")
    p.add_argument("--keep-documents", action="store_true", help="keep its documents searchable")
    p.set_defaults(handler=cmd_watch_remove)

    p = sub.add_parser("worker", help="run the ingestion worker (watches folders, works through the queue)")
    p.add_argument("--until-idle", action="store_true", help="scan watched folders, work until the queue is empty, exit")
    p.add_argument("--no-watch", action="store_true", help="only work through the queue; watch no folders")
    p.set_defaults(handler=cmd_worker)

    p = sub.add_parser("status", help="the worker's queue: queued, running, done, failed, speed and ETA")
    p.add_argument("--json", action="store_true")
    p.add_argument("--limit", type=int, default=20, help="files listed per state (default 20)")
    p.set_defaults(handler=cmd_status)

    p = sub.add_parser("pause", help="pause indexing (every worker sharing the queue finishes its current files)")
    p.set_defaults(handler=cmd_pause)
    p = sub.add_parser("resume", help="resume indexing")
    p.set_defaults(handler=cmd_resume)


def _container():
    from ltm_desktop.bootstrap import Container

    return Container()


def cmd_watch_add(args: argparse.Namespace) -> int:
    c = _container()
    folder = c.watch_folders.add(args.path, args.ignore)
    extra = f" (ignoring {', '.join(folder.ignore)})" if folder.ignore else ""
    print(f"watching {folder.path}{extra}; a running worker picks it up within seconds (start one with `ltm worker`)")
    c.close()
    return 0


def cmd_watch_list(args: argparse.Namespace) -> int:
    c = _container()
    folders = c.watch_folders.list()
    if args.json:
        print_json(folders)
    elif not folders:
        print("no watched folders; add one with `ltm watch add PATH`")
    for f in folders if not args.json else ():
        ignore = f"  ignore: {', '.join(f.ignore)}" if f.ignore else ""
        scanned = f"  scanned {f.scanned_at}" if f.scanned_at else "  not scanned yet"
        print(f"{f.path}  [{f.state}]{scanned}{ignore}")
        if f.reason:
            print(f"  note: {f.reason}")
    c.close()
    return 0


def cmd_watch_remove(args: argparse.Namespace) -> int:
    c = _container()
    hidden = c.watch_folders.remove(args.path, keep_documents=args.keep_documents)
    kept = "its documents stay searchable" if args.keep_documents else f"{hidden} documents removed from search"
    print(f"no longer watching {args.path}; {kept}")
    c.close()
    return 0


def cmd_worker(args: argparse.Namespace) -> int:
    import os

    c = _container()
    nice = c.settings.worker_nice
    if nice > 0 and hasattr(os, "nice"):
        os.nice(nice)  # the whole worker yields the CPU to search and the user's apps; extraction inherits it
    c.document_store  # noqa: B018 (migrate and pin the embedding model before the first job)
    daemon = c.worker_daemon(watch=not args.no_watch)
    stop = threading.Event()
    signal.signal(signal.SIGTERM, lambda *_: stop.set())
    signal.signal(signal.SIGINT, lambda *_: stop.set())
    print(f"ltm worker: started (pid {os.getpid()}); Ctrl-C to stop", file=sys.stderr, flush=True)
    n = daemon.run(stop, until_idle=args.until_idle)
    print(f"ltm worker: stopped after {n} jobs", file=sys.stderr, flush=True)
    c.close()
    return 0


def cmd_status(args: argparse.Namespace) -> int:
    c = _container()
    status = c.worker_status()
    if args.json:
        out = to_jsonable(status)
        out["summary"] = status.summary
        print_json(out)
        return 0
    print(status.summary)
    for w in status.workers:
        print(f"  worker {w.id} (heartbeat {w.heartbeat_age_seconds:.0f}s ago)")
    for f in status.folders:
        print(f"  folder {f.path} [{f.state}]" + (f": {f.reason}" if f.reason else ""))
    for label, jobs in (("running", status.running_files), ("failed", status.failed_files), ("queued", status.queued_files)):
        for j in jobs[: args.limit]:
            detail = f": {j.error}" if j.error else ""
            print(f"  {label}: {j.path}{detail}" + (f" (attempt {j.attempts})" if label != "queued" else ""))
    c.close()
    return 0


def cmd_pause(args: argparse.Namespace) -> int:
    c = _container()
    c.job_queue.set_paused(True)
    print("paused: workers finish the files they are on, then wait (`ltm resume` to continue)")
    c.close()
    return 0


def cmd_resume(args: argparse.Namespace) -> int:
    c = _container()
    c.job_queue.set_paused(False)
    print("resumed")
    c.close()
    return 0
