"""The desktop app's controller: starts the store, supervises the children, feeds the tray, opens the windows.

Everything slow runs on pool threads (tasks.run_task) or the status thread; this object only reacts to
their signals on the Qt thread, so the tray and windows never freeze.
"""

from __future__ import annotations

import dataclasses
import logging
from pathlib import Path

from PySide6.QtCore import QObject, QThreadPool, Signal
from PySide6.QtWidgets import QApplication, QSystemTrayIcon

from ltm_desktop.gui import children
from ltm_desktop.gui.app_status import AppStatus, LocalIngest, QueueFacts, StatusFacts, compose_status
from ltm_desktop.gui.app_windows import AppWindows
from ltm_desktop.gui.desktop_state import DesktopState
from ltm_desktop.gui.port_check import port_problem, probe_port
from ltm_desktop.gui.status_watcher import StatusReading, StatusWatcher
from ltm_desktop.gui.supervisor import ChildState, ProcessOutcome, RestartPolicy, Supervisor
from ltm_desktop.gui.tasks import run_task, serial_pool, wait_for_tasks
from ltm_desktop.gui.tray import MenuActions, TrayIcon
from ltm_desktop.settings import Settings, save_settings

log = logging.getLogger(__name__)


class DesktopApp(QObject):
    status_changed = Signal(object)  # AppStatus
    store_ready = Signal()
    store_failed = Signal(str)
    settings_applied = Signal(object)  # the new Settings
    notified = Signal(str, str, object)  # title, message, click context

    def __init__(
        self,
        container,
        *,
        policy: RestartPolicy = RestartPolicy(),
        tray_available: bool | None = None,
        run_children: bool = True,
        stop_database_on_quit: bool = True,
    ) -> None:
        super().__init__()
        self.container = container
        self.run_children = run_children
        self.stop_database_on_quit = stop_database_on_quit
        self.facts = StatusFacts()
        self.status: AppStatus = compose_status(self.facts)
        self.paused = False
        self.ingest_pool: QThreadPool = serial_pool(self)
        self.state = DesktopState(container.settings.home)
        self.supervisor = Supervisor(container.settings.log_dir, policy, self)
        self.supervisor.child_state_changed.connect(self._child_state_changed)
        self.supervisor.child_gave_up.connect(self._child_gave_up)
        self.watcher: StatusWatcher | None = None
        self._seen_failures: set[str] = set()
        self._failures_primed = False
        self._had_backlog = False
        self._processed_seen: int | None = None  # done + failed at the last reading
        self._quitting = False
        actions = MenuActions(
            search=lambda: self.windows.show("search"),
            add_files=lambda: self.windows.show("drop"),
            watched_folders=lambda: self.windows.show("settings", "folders"),
            toggle_pause=self.toggle_pause,
            connect_app=lambda: self.windows.show("settings", "apps"),
            settings=lambda: self.windows.show("settings"),
            open_logs=lambda: self.windows.show("logs"),
            quit=self.quit,
        )
        self.windows = AppWindows(self, actions)
        has_tray = QSystemTrayIcon.isSystemTrayAvailable() if tray_available is None else tray_available
        self.tray: TrayIcon | None = TrayIcon(actions, self) if has_tray else None
        if self.tray is not None:
            self.tray.notification_clicked.connect(self.windows.open_context)
            self.tray.activated_primary.connect(lambda: self.windows.show("search"))

    # ---- life cycle ---------------------------------------------------------------------------------

    def start(self) -> None:
        """Show the tray (or the fallback window) and start the store; children follow once it is up."""
        if self.tray is not None:
            self.tray.show()
        else:
            self.windows.show("status")
        self._publish()
        self.start_store()

    def start_store(self) -> None:
        self._update(store_error=None, store_ready=False)

        def open_store():
            c = self.container
            c.write_db  # noqa: B018 (starts or attaches to Postgres, migrates)
            c.document_store  # noqa: B018 (pins the embedding model on first start)
            return True

        run_task(open_store, lambda _ok: self._store_opened(), self._store_failed)

    def _store_opened(self) -> None:
        self._update(store_ready=True)
        self.store_ready.emit()
        if self.run_children:
            self.start_children()
        self.watcher = StatusWatcher(self.container)
        self.watcher.status_read.connect(self._status_read)
        self.watcher.read_failed.connect(lambda msg: log.warning("status: %s", msg))
        self.watcher.start()
        if not self.state.welcomed:
            self.windows.show("welcome")

    def _store_failed(self, message: str) -> None:
        self._update(store_error=message)
        self.store_failed.emit(message)
        self.notify("The database did not start", message, error=True, context=("store", message))

    def start_children(self) -> None:
        s = self.container.settings
        worker = self.supervisor.children.get(children.WORKER) or self.supervisor.add(children.worker_spec(s))
        worker.start()
        self.start_server()

    def start_server(self) -> None:
        """Start the HTTP server child unless its port is taken (by another program, or by LTM already)."""
        s = self.container.settings
        run_task(lambda: probe_port(s.http_host, s.http_port), self._port_probed, lambda msg: log.warning("port probe: %s", msg))

    def _port_probed(self, state: str) -> None:
        s = self.container.settings
        url = f"http://{s.http_host}:{s.http_port}/mcp"
        problems = tuple(p for p in self.facts.child_problems if not p.startswith("port "))
        if state == "busy":
            problem = port_problem(s.http_host, s.http_port)
            self._update(child_problems=(*problems, problem), server_url=None)
            self.notify("The MCP server cannot start", problem, error=True, context=("settings", "server"))
            return
        self._update(child_problems=problems)
        ours = self.supervisor.children.get(children.SERVER)
        if state == "ltm" and (ours is None or ours.state in (ChildState.STOPPED, ChildState.GAVE_UP)):
            # Another LTM server (e.g. `ltm run --headless`) already serves there: use it rather than fight it.
            self._update(server_url=url + " (already running)")
            return
        server = self.supervisor.children.get(children.SERVER) or self.supervisor.add(children.server_spec(s))
        server.set_env(children.settings_env(s))
        server.start()  # after a settings change the old run may still be stopping: it starts once that ends

    def quit(self) -> None:
        """Stop the children and the status thread, then leave the event loop."""
        if self._quitting:
            return
        self._quitting = True
        if self.watcher is not None:
            self.watcher.stop()
        self.supervisor.stop_all()
        self.windows.close_all()
        if self.tray is not None:
            self.tray.hide()
        wait_for_tasks(30_000)
        if self.stop_database_on_quit and not self.container.settings.database_url:
            from ltm_desktop.adapters.postgres.embedded_server import stop_embedded

            self.container.close()
            try:
                stop_embedded(self.container.settings.data_dir)
            except Exception:  # quitting anyway; the next start attaches to or restarts it
                log.exception("stopping the embedded Postgres failed")
        else:
            self.container.close()
        QApplication.quit()

    # ---- status -------------------------------------------------------------------------------------

    def _update(self, **changes) -> None:
        self.facts = dataclasses.replace(self.facts, **changes)
        self._publish()

    def _publish(self) -> None:
        status = compose_status(self.facts)
        self.status = status
        if self.tray is not None:
            self.tray.show_status(status, self.paused)
        self.status_changed.emit(status)

    def _status_read(self, reading: StatusReading) -> None:
        changes: dict = {}
        if reading.stats is not None:
            changes.update(documents=int(reading.stats.get("documents", 0)), failed_files=int(reading.stats.get("failed_files", 0)))
        w = reading.worker
        if w is not None:
            self.paused = bool(w.paused)
            changes["queue"] = QueueFacts(w.queued, w.running, w.done, w.failed, w.paused, w.eta_seconds, len(w.workers))
            self._notice_worker_events(w)
        self._update(**changes)

    def _notice_worker_events(self, w) -> None:
        keys = {f"{j.path}|{j.updated}": j for j in w.failed_files}
        new = [j for k, j in keys.items() if k not in self._seen_failures]
        self._seen_failures |= set(keys)
        if new and self._failures_primed:  # failures from before this start are in the Problems list, not a popup
            j = new[0]
            more = f" (and {len(new) - 1} more)" if len(new) > 1 else ""
            self.notify(f"Could not index {Path(j.path).name}{more}", j.error or "unknown reason", error=True, context=("failed", j.path))
        self._failures_primed = True
        backlog = w.queued + w.running
        processed = w.done + w.failed
        # A small batch can be queued and finished between two readings, so a grown done+failed count counts too.
        grew = self._processed_seen is not None and processed > self._processed_seen
        self._processed_seen = processed
        if backlog:
            self._had_backlog = True
        elif self._had_backlog or grew:
            self._had_backlog = False
            self.notify("Indexing finished", f"Your documents are up to date ({w.done:,} files processed, {w.failed} failed).",
                        context=("problems", None) if w.failed else ("search", None))

    def _child_state_changed(self, name: str, state: str) -> None:
        if name == children.SERVER:
            s = self.container.settings
            self._update(server_url=f"http://{s.http_host}:{s.http_port}/mcp" if state == ChildState.RUNNING.value else None)
        if state in (ChildState.STARTING.value, ChildState.RUNNING.value):
            label = self.supervisor.children[name].spec.label
            problems = tuple(p for p in self.facts.child_problems if not p.startswith(label))
            if problems != self.facts.child_problems:
                self._update(child_problems=problems)

    def _child_gave_up(self, name: str, outcome: ProcessOutcome) -> None:
        problem = f"{outcome.describe()} — it kept failing, so it was stopped; see Open logs, fix the cause, then Settings → Restart services"
        self._update(child_problems=(*self.facts.child_problems, problem))
        self.notify(f"{outcome.name} stopped", outcome.message or outcome.describe(), error=True, context=("logs", name))

    # ---- actions ------------------------------------------------------------------------------------

    def notify(self, title: str, message: str, *, error: bool = False, context: object = None) -> None:
        self.notified.emit(title, message, context)
        if self.tray is not None:
            self.tray.notify(title, message, error=error, context=context)

    def toggle_pause(self) -> None:
        if not hasattr(self.container, "job_queue"):
            return
        want = not self.paused
        c = self.container
        run_task(lambda: c.job_queue.set_paused(want), lambda _r: self._paused_set(want),
                 lambda msg: self.notify("Could not change indexing", msg, error=True))

    def _paused_set(self, paused: bool) -> None:
        self.paused = paused
        self._update(queue=dataclasses.replace(self.facts.queue, paused=paused))
        if self.watcher is not None:
            self.watcher.request_refresh()

    def local_ingest_progress(self, done: int, total: int) -> None:
        self._update(local=LocalIngest(done, total))

    def local_ingest_finished(self, summary: str, failed: int) -> None:
        self._update(local=None)
        if self.watcher is not None:
            self.watcher.request_refresh(with_stats=True)
        self.notify("Files added", summary, error=bool(failed), context=("drop", None))

    def restart_services(self) -> None:
        """Restart every child with the current settings (also after a give-up)."""
        self._update(child_problems=())
        for name in list(self.supervisor.children):
            if name == children.TUNNEL:
                continue
            if name == children.SERVER:
                self.supervisor.children[name].stop()
                continue
            self.supervisor.restart(name, children.settings_env(self.container.settings))
        if self.run_children:
            self.start_server() if children.SERVER in self.supervisor.children else self.start_children()

    def apply_settings(self, changes: dict) -> Settings:
        """Save settings and apply them now: services in this process are rebuilt, affected children restart."""
        old = self.container.settings
        changed = {k for k, v in changes.items() if getattr(old, k) != v}
        if not changed:
            return old
        new = save_settings(old, {k: changes[k] for k in changed})
        self.container.settings = new
        self._refresh_container(changed)
        for name in children.children_for(changed) & set(self.supervisor.children):
            if name == children.SERVER:
                self.supervisor.children[name].stop()
                self.supervisor.children[name].set_env(children.settings_env(new))
                self.start_server()  # re-probes the (maybe new) port first
            else:
                self.supervisor.restart(name, children.settings_env(new))
        self.settings_applied.emit(new)
        return new

    def _refresh_container(self, changed: set[str]) -> None:
        """Drop the services built from old settings; pools stay, models stay unless a model setting changed."""
        keep = {"write_db", "read_db", "journal_db", "memory_db", "embedder", "reranker", "document_store", "search_index",
                "job_queue", "watch_store", "tunnel_files", "tunnel_control"}
        if changed & {"embed_model", "models_dir", "query_prefix"}:
            keep -= {"embedder", "document_store"}
        if changed & {"rerank_model", "models_dir"}:
            keep -= {"reranker"}
        for name in [k for k, v in vars(type(self.container)).items() if hasattr(v, "attrname")]:  # cached properties
            if name not in keep:
                self.container.__dict__.pop(name, None)
