"""Supervision of the app's child processes (MCP HTTP server, ingestion worker) with QProcess.

Modelled on qutebrowser's misc/guiprocess.py: every run ends in a typed ProcessOutcome; a child that
dies unexpectedly is restarted with exponential backoff; one that keeps dying (a crash loop) is given up
on, and the reason (its last line of output) is reported instead of retrying forever. Children run under
child_guard, so they cannot outlive the app even when the app is killed.
"""

from __future__ import annotations

import logging
import os
import time
from collections import deque
from collections.abc import Mapping
from dataclasses import dataclass, field
from enum import Enum
from pathlib import Path
from typing import Literal

from PySide6.QtCore import QObject, QProcess, QProcessEnvironment, QTimer, Signal

from ltm_desktop.gui.child_guard import guarded_command
from ltm_desktop.gui.child_log import ChildLog

log = logging.getLogger(__name__)

OutcomeKind = Literal["exited", "crashed", "failed_to_start", "stopped"]


class ChildState(str, Enum):
    STOPPED = "stopped"
    STARTING = "starting"
    RUNNING = "running"
    BACKING_OFF = "restarting"
    STOPPING = "stopping"
    GAVE_UP = "gave up"


@dataclass(frozen=True)
class ProcessOutcome:
    """How one run of a child ended."""

    name: str
    kind: OutcomeKind
    code: int | None
    message: str
    ran_seconds: float

    @property
    def was_requested(self) -> bool:
        return self.kind == "stopped"

    def describe(self) -> str:
        what = {
            "exited": f"exited with status {self.code}",
            "crashed": "crashed",
            "failed_to_start": "could not be started",
            "stopped": "was stopped",
        }[self.kind]
        return f"{self.name} {what}" + (f": {self.message}" if self.message else "")


@dataclass(frozen=True)
class RestartPolicy:
    """Backoff doubles from first_delay_ms up to max_delay_ms; crash_limit crashes within window_seconds give up."""

    first_delay_ms: int = 1000
    max_delay_ms: int = 60_000
    crash_limit: int = 5
    window_seconds: float = 120.0
    grace_ms: int = 5000  # between the polite stop (SIGTERM) and the kill

    def delay_ms(self, recent_crashes: int) -> int:
        return min(self.max_delay_ms, self.first_delay_ms * 2 ** max(0, recent_crashes - 1))


@dataclass(frozen=True)
class ChildSpec:
    name: str  # short, used for the log file name: "server", "worker"
    label: str  # what a person reads: "MCP server"
    command: tuple[str, ...]
    env: Mapping[str, str] = field(default_factory=dict)


class SupervisedChild(QObject):
    """One child process, restarted when it dies unexpectedly."""

    state_changed = Signal(str)
    exited = Signal(object)  # ProcessOutcome of every run
    gave_up = Signal(object)  # the ProcessOutcome that ended the crash loop
    output_lines = Signal(list)

    def __init__(self, spec: ChildSpec, log_dir: Path, policy: RestartPolicy = RestartPolicy(), parent: QObject | None = None) -> None:
        super().__init__(parent)
        self.spec = spec
        self.policy = policy
        self.log = ChildLog(log_dir / f"{spec.name}.log")
        self.state = ChildState.STOPPED
        self.last_outcome: ProcessOutcome | None = None
        self.restarts = 0
        self._process: QProcess | None = None
        self._crashes: deque[float] = deque()
        self._started_at = 0.0
        self._stop_requested = False
        self._start_after_stop = False
        self._restart_timer = QTimer(self, singleShot=True)
        self._restart_timer.timeout.connect(self._launch)
        self._kill_timer = QTimer(self, singleShot=True)
        self._kill_timer.timeout.connect(self._kill)

    # ---- control ------------------------------------------------------------------------------------

    def start(self) -> None:
        """Start (or restart after giving up); a manual start forgets earlier crashes."""
        if self.state == ChildState.STOPPING:
            self._start_after_stop = True  # a restart: start again as soon as the old run has ended
            return
        if self.state in (ChildState.RUNNING, ChildState.STARTING):
            return
        self._crashes.clear()
        self._restart_timer.stop()
        self._launch()

    def stop(self) -> None:
        """Stop politely, then kill after the grace period; no restart follows."""
        self._restart_timer.stop()
        self._start_after_stop = False
        if self._process is None or self._process.state() == QProcess.ProcessState.NotRunning:
            if self.state != ChildState.GAVE_UP:
                self._set_state(ChildState.STOPPED)
            return
        self._stop_requested = True
        self._set_state(ChildState.STOPPING)
        self._process.terminate()
        self._kill_timer.start(self.policy.grace_ms)

    def stop_and_wait(self) -> None:
        """Stop synchronously (at quit, when the event loop may not run again)."""
        self.stop()
        proc = self._process
        if proc is not None and proc.state() != QProcess.ProcessState.NotRunning:
            if not proc.waitForFinished(self.policy.grace_ms):
                proc.kill()
                proc.waitForFinished(2000)

    def set_env(self, env: Mapping[str, str]) -> None:
        """Environment for the next start (settings changes restart the child with it)."""
        self.spec = ChildSpec(self.spec.name, self.spec.label, self.spec.command, dict(env))

    def pid(self) -> int | None:
        if self._process is None or self._process.state() == QProcess.ProcessState.NotRunning:
            return None
        return int(self._process.processId()) or None

    # ---- process events -----------------------------------------------------------------------------

    def _launch(self) -> None:
        if self._process is not None:
            self._process.deleteLater()
        proc = QProcess(self)
        proc.setProcessChannelMode(QProcess.ProcessChannelMode.MergedChannels)
        env = QProcessEnvironment.systemEnvironment()
        env.insert("PYTHONUNBUFFERED", "1")
        for key, value in self.spec.env.items():
            env.insert(key, value)
        proc.setProcessEnvironment(env)
        argv = guarded_command(self.spec.command, os.getpid())
        proc.setProgram(argv[0])
        proc.setArguments(argv[1:])
        proc.readyReadStandardOutput.connect(self._read_output)
        proc.started.connect(self._on_started)
        proc.finished.connect(self._on_finished)
        proc.errorOccurred.connect(self._on_error)
        self._process = proc
        self._stop_requested = False
        self._started_at = time.monotonic()
        self.log.note(f"starting {' '.join(self.spec.command)}")
        self._set_state(ChildState.STARTING)
        proc.start()

    def _on_started(self) -> None:
        self._set_state(ChildState.RUNNING)

    def _read_output(self) -> None:
        if self._process is None:
            return
        text = bytes(self._process.readAllStandardOutput().data()).decode("utf-8", errors="replace")
        lines = self.log.append(text)
        if lines:
            self.output_lines.emit(lines)

    def _on_error(self, error: QProcess.ProcessError) -> None:
        # Only FailedToStart comes without a finished signal; other errors are followed by one.
        if error != QProcess.ProcessError.FailedToStart or self._process is None:
            return
        self._conclude(ProcessOutcome(self.spec.label, "failed_to_start", None, self._process.errorString(), 0.0))

    def _on_finished(self, code: int, status: QProcess.ExitStatus) -> None:
        self._read_output()
        ran = time.monotonic() - self._started_at
        if self._stop_requested:
            kind: OutcomeKind = "stopped"
        elif status == QProcess.ExitStatus.CrashExit:
            kind = "crashed"
        else:
            kind = "exited"
        message = "" if kind == "stopped" else self.log.last_meaningful_line()
        self._conclude(ProcessOutcome(self.spec.label, kind, code if kind == "exited" else None, message, round(ran, 2)))

    def _conclude(self, outcome: ProcessOutcome) -> None:
        self._kill_timer.stop()
        self.last_outcome = outcome
        self.log.note(outcome.describe())
        self.exited.emit(outcome)
        if outcome.was_requested:
            self._set_state(ChildState.STOPPED)
            if self._start_after_stop:
                self._start_after_stop = False
                self.start()
            return
        now = time.monotonic()
        self._crashes.append(now)
        while self._crashes and now - self._crashes[0] > self.policy.window_seconds:
            self._crashes.popleft()
        if len(self._crashes) >= self.policy.crash_limit:
            log.warning("giving up on %s after %d crashes: %s", self.spec.name, len(self._crashes), outcome.describe())
            self.log.note(f"gave up after {len(self._crashes)} failures in {self.policy.window_seconds:.0f} s")
            self._set_state(ChildState.GAVE_UP)
            self.gave_up.emit(outcome)
            return
        delay = self.policy.delay_ms(len(self._crashes))
        self.restarts += 1
        self.log.note(f"restarting in {delay / 1000:.1f} s")
        self._set_state(ChildState.BACKING_OFF)
        self._restart_timer.start(delay)

    def _kill(self) -> None:
        if self._process is not None and self._process.state() != QProcess.ProcessState.NotRunning:
            self.log.note(f"did not stop within {self.policy.grace_ms} ms; killing it")
            self._process.kill()

    def _set_state(self, state: ChildState) -> None:
        if state != self.state:
            self.state = state
            self.state_changed.emit(state.value)


class Supervisor(QObject):
    """The set of children the app runs; one place to start, stop and watch them."""

    child_state_changed = Signal(str, str)  # name, state
    child_gave_up = Signal(str, object)  # name, ProcessOutcome

    def __init__(self, log_dir: Path, policy: RestartPolicy = RestartPolicy(), parent: QObject | None = None) -> None:
        super().__init__(parent)
        self.log_dir = log_dir
        self.policy = policy
        self.children: dict[str, SupervisedChild] = {}

    def add(self, spec: ChildSpec) -> SupervisedChild:
        child = SupervisedChild(spec, self.log_dir, self.policy, self)
        child.state_changed.connect(lambda state, name=spec.name: self.child_state_changed.emit(name, state))
        child.gave_up.connect(lambda outcome, name=spec.name: self.child_gave_up.emit(name, outcome))
        self.children[spec.name] = child
        return child

    def start_all(self) -> None:
        for child in self.children.values():
            child.start()

    def restart(self, name: str, env: Mapping[str, str] | None = None) -> None:
        """Stop a child and start it again (e.g. with new settings); works after a give-up too."""
        child = self.children[name]
        if env is not None:
            child.set_env(env)
        child.stop()
        child.start()

    def stop_all(self) -> None:
        """Stop every child and wait for them (used at quit)."""
        for child in self.children.values():
            child.stop()
        for child in self.children.values():
            child.stop_and_wait()
