"""Remote access through a tunnel: supervise the tunnel binary, publish its public URL, hand out a connector URL.

The MCP server never leaves 127.0.0.1: the tunnel program makes an outbound connection and forwards to it.
While a URL is live it is published (run/tunnel.json) so the server allows that Host; when the tunnel dies
it is restarted with exponential backoff and a changed URL is re-published.
"""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any, Protocol
from urllib.parse import urlsplit

from ltm_desktop.core.errors import KnownError

log = logging.getLogger(__name__)

EXPOSURE = (
    "What this exposes: anyone who has this URL can search and read the documents in your index and read and "
    "write your shared memory, as the client '{name}'. Nothing else on this computer is reachable, your files are "
    "not served directly, and the server itself stays on 127.0.0.1. It stops working when you run "
    "`ltm tunnel stop` or `ltm token revoke {name}`. Treat it like a password: don't post it or share it."
)


class TunnelRunner(Protocol):
    """One run of a tunnel binary (adapters.tunnel_processes.TunnelProcess)."""

    @property
    def pid(self) -> int | None: ...

    def start(self) -> None: ...

    def exit_code(self) -> int | None: ...

    def public_url(self) -> str | None: ...

    def output(self) -> list[str]: ...

    def stop(self, grace: float = 5.0) -> None: ...


class TunnelStore(Protocol):
    """Where the live URL and the supervisor's state are published (adapters.tunnel_state.TunnelStateFiles)."""

    def publish(self, record: dict[str, Any]) -> None: ...

    def unpublish(self) -> None: ...

    def published(self) -> dict[str, Any] | None: ...

    def set_status(self, record: dict[str, Any]) -> None: ...

    def status(self) -> dict[str, Any] | None: ...


@dataclass(frozen=True)
class BackoffPolicy:
    first: float = 1.0  # seconds before the first restart
    cap: float = 60.0  # longest wait between restarts
    healthy_after: float = 60.0  # a run this long resets the failure count
    max_failures: int = 6  # consecutive failed runs before giving up
    url_timeout: float = 60.0  # a run with no public URL by then counts as failed
    poll: float = 1.0  # how often the URL and the process are checked

    def delay(self, failures: int) -> float:
        """Wait before restart number `failures` (1, 2, 4, ... capped)."""
        return min(self.cap, self.first * 2 ** max(0, failures - 1))


def now_iso() -> str:
    return datetime.now(UTC).strftime("%Y-%m-%dT%H:%M:%SZ")


def connector_url(public_url: str, secret: str) -> str:
    """The URL to paste into claude.ai or ChatGPT: the token rides in the path (they have no header field)."""
    return f"{public_url.rstrip('/')}/t/{secret}/mcp"


class TunnelSupervisor:
    """Runs one provider's tunnel until stopped: restart with backoff, publish and re-publish the URL."""

    def __init__(
        self,
        provider: str,
        json_response: bool,
        make_runner: Callable[[], TunnelRunner],
        store: TunnelStore,
        *,
        pid: int,
        policy: BackoffPolicy | None = None,
        diagnose: Callable[[Sequence[str]], str | None] = lambda lines: None,
        on_event: Callable[[str, str], None] = lambda kind, text: None,
        monotonic: Callable[[], float] = time.monotonic,
    ) -> None:
        self.provider = provider
        self.json_response = json_response
        self.make_runner = make_runner
        self.store = store
        self.pid = pid
        self.policy = policy or BackoffPolicy()
        self.diagnose = diagnose
        self.on_event = on_event
        self._monotonic = monotonic
        self.urls: list[str] = []  # every URL published, in order (the last is current)

    def _status(self, state: str, message: str = "", **extra: Any) -> None:
        record = {"provider": self.provider, "state": state, "message": message, "pid": self.pid,
                  "updated_at": now_iso(), **extra}
        self.store.set_status(record)

    def _publish(self, url: str, runner: TunnelRunner, started_at: str) -> None:
        record = {"provider": self.provider, "public_url": url, "public_host": urlsplit(url).hostname or "",
                  "pid": self.pid, "tunnel_pid": runner.pid, "started_at": started_at,
                  "json_response": self.json_response}
        self.store.publish(record)
        changed = bool(self.urls) and self.urls[-1] != url
        self.urls.append(url)
        self._status("running", "", public_url=url, tunnel_pid=runner.pid)
        if changed:
            self.on_event("url-changed", url)
        else:
            self.on_event("url", url)

    def run(self, stop: threading.Event) -> str:
        """Supervise until stop is set ("stopped") or the tunnel keeps failing ("failed")."""
        failures = 0
        try:
            while not stop.is_set():
                self._status("starting" if not failures else "restarting", attempt=failures + 1)
                outcome, ran_for, detail = self._run_once(stop)
                if outcome == "stopped":
                    break
                failures = 1 if ran_for >= self.policy.healthy_after else failures + 1
                if failures >= self.policy.max_failures:
                    message = f"{self.provider} tunnel failed {failures} times in a row; last: {detail}"
                    self._status("failed", message)
                    self.on_event("failed", message)
                    return "failed"
                wait = self.policy.delay(failures)
                self._status("restarting", f"{detail}; restarting in {wait:.0f} s", attempt=failures + 1)
                self.on_event("restarting", f"{detail}; restarting in {wait:.1f} s")
                stop.wait(wait)
        finally:
            self.store.unpublish()
        self._status("stopped")
        return "stopped"

    def _run_once(self, stop: threading.Event) -> tuple[str, float, str]:
        """One start of the binary: ("stopped" | "exited" | "no-url", seconds it ran, what went wrong)."""
        runner = self.make_runner()
        try:
            runner.start()
        except KnownError as e:
            return "exited", 0.0, str(e)
        started, started_at = self._monotonic(), now_iso()
        url: str | None = None
        try:
            while not stop.is_set():
                code = runner.exit_code()
                if code is not None:
                    lines = runner.output()
                    why = self.diagnose(lines) or (" | ".join(ln for ln in lines[-3:] if ln.strip()) or "no output")
                    return "exited", self._monotonic() - started, f"exited with code {code}: {why}"
                current = runner.public_url()
                if current and current != url:
                    url = current
                    self._publish(url, runner, started_at)
                if url is None and self._monotonic() - started > self.policy.url_timeout:
                    why = self.diagnose(runner.output()) or "the provider reported no public URL"
                    return "no-url", self._monotonic() - started, f"no public URL after {self.policy.url_timeout:.0f} s ({why})"
                stop.wait(self.policy.poll)
            return "stopped", self._monotonic() - started, ""
        finally:
            runner.stop()
            if url is not None:
                self.store.unpublish()


@dataclass(frozen=True)
class TunnelStatus:
    state: str  # none | starting | running | restarting | failed | stopped
    provider: str | None = None
    public_url: str | None = None
    message: str = ""
    pid: int | None = None
    json_response: bool = False


class TunnelControl:
    """Start-up wait, status and stop of the tunnel supervisor process, seen from another process."""

    def __init__(
        self,
        store: TunnelStore,
        pid_alive: Callable[[int], bool],
        terminate: Callable[[int, bool], None],
        *,
        sleep: Callable[[float], None] = time.sleep,
        monotonic: Callable[[], float] = time.monotonic,
    ) -> None:
        self.store = store
        self.pid_alive = pid_alive
        self.terminate = terminate
        self._sleep = sleep
        self._monotonic = monotonic

    def status(self) -> TunnelStatus:
        """What the tunnel is doing now; a supervisor that died without cleaning up is reported and cleaned."""
        state = self.store.status()
        published = self.store.published()
        if not state:
            if published:
                self.store.unpublish()
            return TunnelStatus("none")
        pid = state.get("pid")
        running_states = ("starting", "running", "restarting")
        if state.get("state") in running_states and not (isinstance(pid, int) and self.pid_alive(pid)):
            self.store.unpublish()
            self.store.set_status({**state, "state": "failed", "message": "the tunnel supervisor died unexpectedly; "
                                   "see run/tunnel.log, then `ltm tunnel start` again", "updated_at": now_iso()})
            return self.status()
        url = (published or {}).get("public_url") if state.get("state") == "running" else None
        return TunnelStatus(state.get("state", "none"), state.get("provider"), url, state.get("message", ""),
                            pid if isinstance(pid, int) else None, bool((published or {}).get("json_response")))

    def is_running(self) -> bool:
        return self.status().state in ("starting", "running", "restarting")

    def wait_for_url(self, pid: int, timeout: float) -> TunnelStatus:
        """Wait until the supervisor pid publishes a URL, fails, or exits."""
        deadline = self._monotonic() + timeout
        while self._monotonic() < deadline:
            state = self.store.status() or {}
            if state.get("pid") == pid:
                current = self.status()
                if current.state == "running" and current.public_url:
                    return current
                # A first run that failed is reported at once (the supervisor would keep retrying with backoff).
                if current.state in ("failed", "stopped") or (current.state == "restarting" and current.message):
                    return current
            if not self.pid_alive(pid):
                self._sleep(0.2)  # let a last status write land
                current = self.status()
                if current.state in ("failed", "stopped") and (self.store.status() or {}).get("pid") == pid:
                    return current
                return TunnelStatus("failed", message="the tunnel supervisor exited before it was ready; see run/tunnel.log")
            self._sleep(0.2)
        return TunnelStatus("starting", message=f"no public URL yet after {timeout:.0f} s; check `ltm tunnel status`",
                            pid=pid)

    def stop(self, timeout: float = 10.0) -> TunnelStatus:
        """Stop the supervisor (it stops the binary and withdraws the URL); force it if it does not listen."""
        before = self.status()
        pid = before.pid
        if pid is None or before.state not in ("starting", "running", "restarting"):
            self.store.unpublish()
            return before
        self.terminate(pid, False)
        deadline = self._monotonic() + timeout
        while self.pid_alive(pid) and self._monotonic() < deadline:
            self._sleep(0.1)
        if self.pid_alive(pid):
            tunnel_pid = (self.store.published() or {}).get("tunnel_pid") or (self.store.status() or {}).get("tunnel_pid")
            self.terminate(pid, True)
            if isinstance(tunnel_pid, int):
                self.terminate(tunnel_pid, True)
        self.store.unpublish()
        state = self.store.status() or {}
        if state.get("state") != "stopped":
            self.store.set_status({**state, "state": "stopped", "message": "", "updated_at": now_iso()})
        return before
