"""Tunnel supervision against a stand-in cloudflared: URL parsing, publishing, restart with backoff, failures."""

from __future__ import annotations

import os
import sys
import threading
import time
from pathlib import Path

import pytest

from ltm_desktop.adapters.tunnel_processes import (
    JSON_RESPONSE,
    TunnelBinaryMissing,
    cloudflared_quick_tunnel,
    find_binary,
    known_failure,
    runner_factory,
)
from ltm_desktop.adapters.tunnel_state import TunnelStateFiles, pid_alive, terminate
from ltm_desktop.services.tunnels import BackoffPolicy, TunnelControl, TunnelSupervisor, connector_url

FAKE = Path(__file__).resolve().parents[1] / "fixtures" / "fake_cloudflared.py"
FAST = BackoffPolicy(first=0.1, cap=0.5, healthy_after=30, max_failures=3, url_timeout=10, poll=0.05)


def fake_bin_dir(tmp_path: Path) -> Path:
    """A folder with a `cloudflared` that is the stand-in (exec keeps the pid, so signals reach it)."""
    folder = tmp_path / "bin"
    folder.mkdir(exist_ok=True)
    exe = folder / "cloudflared"
    exe.write_text(f'#!/bin/sh\nexec "{sys.executable}" "{FAKE}" "$@"\n')
    exe.chmod(0o755)
    return folder


class Events:
    def __init__(self) -> None:
        self.items: list[tuple[str, str]] = []
        self.changed = threading.Event()

    def __call__(self, kind: str, text: str) -> None:
        self.items.append((kind, text))
        self.changed.set()

    def wait_for(self, kind: str, count: int = 1, timeout: float = 20) -> list[str]:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            found = [t for k, t in self.items if k == kind]
            if len(found) >= count:
                return found
            self.changed.wait(0.05)
            self.changed.clear()
        raise AssertionError(f"no {count}x {kind!r} within {timeout}s; saw {self.items}")


def start_supervisor(tmp_path, env_updates=None, policy=FAST):
    for k, v in (env_updates or {}).items():
        os.environ[k] = v  # read by the stand-in binary, a real child process
    binary = find_binary("cloudflare", [fake_bin_dir(tmp_path)])
    store = TunnelStateFiles(tmp_path / "run")
    events = Events()
    sup = TunnelSupervisor("cloudflare", JSON_RESPONSE["cloudflare"], runner_factory("cloudflare", binary, 8322,
                           store.log_file), store, pid=os.getpid(), policy=policy,
                           diagnose=lambda lines: known_failure("cloudflare", lines), on_event=events)
    stop = threading.Event()
    result: list[str] = []
    thread = threading.Thread(target=lambda: result.append(sup.run(stop)), daemon=True)
    thread.start()
    return sup, store, events, stop, thread, result


@pytest.fixture
def clean_env():
    saved = {k: v for k, v in os.environ.items() if k.startswith("FAKE_CLOUDFLARED")}
    yield
    for k in [k for k in os.environ if k.startswith("FAKE_CLOUDFLARED")]:
        del os.environ[k]
    os.environ.update(saved)


def test_quick_tunnel_url_is_read_published_and_withdrawn(tmp_path, clean_env):
    sup, store, events, stop, thread, result = start_supervisor(tmp_path)
    url = events.wait_for("url")[0]
    assert url.startswith("https://") and url.endswith(".trycloudflare.com")
    record = store.published()
    assert record["provider"] == "cloudflare" and record["public_url"] == url
    assert record["public_host"] == url.removeprefix("https://") and record["json_response"] is True
    assert record["pid"] == os.getpid() and record["started_at"].endswith("Z")
    tunnel_pid = record["tunnel_pid"]
    assert pid_alive(tunnel_pid)
    assert store.status()["state"] == "running"
    banner = store.log_file.read_text()
    assert "Your quick Tunnel has been created" in banner and url in banner

    stop.set()
    thread.join(15)
    assert result == ["stopped"]
    assert store.published() is None and store.status()["state"] == "stopped"
    assert not pid_alive(tunnel_pid), "the tunnel binary must not outlive its supervisor"


def test_crash_restarts_with_backoff_and_republishes_changed_url(tmp_path, clean_env):
    starts = tmp_path / "starts.txt"
    sup, store, events, stop, thread, result = start_supervisor(
        tmp_path, {"FAKE_CLOUDFLARED_EXIT_AFTER": "0.8", "FAKE_CLOUDFLARED_STARTS": str(starts)})
    first = events.wait_for("url")[0]
    restarting = events.wait_for("restarting")[0]
    assert "exited with code 1" in restarting and "fake crash" in restarting
    second = events.wait_for("url-changed")[0]
    assert second != first and store.published()["public_url"] == second
    stop.set()
    thread.join(15)
    assert result == ["stopped"] and store.published() is None
    assert len(starts.read_text().split()) >= 2
    assert sup.urls[:2] == [first, second]


def test_binary_that_crashes_at_start_gives_up_with_its_error(tmp_path, clean_env):
    sup, store, events, stop, thread, result = start_supervisor(tmp_path, {"FAKE_CLOUDFLARED_FAIL": "1"})
    thread.join(20)
    assert result == ["failed"]
    message = store.status()["message"]
    assert store.status()["state"] == "failed"
    assert "failed 3 times" in message and "failed to request quick Tunnel" in message
    assert store.published() is None
    assert [k for k, _ in events.items].count("restarting") == 2


def test_no_url_in_time_counts_as_a_failure(tmp_path, clean_env):
    policy = BackoffPolicy(first=0.1, cap=0.2, max_failures=1, url_timeout=0.5, poll=0.05)
    sup, store, events, stop, thread, result = start_supervisor(tmp_path, {"FAKE_CLOUDFLARED_DELAY": "30"}, policy)
    thread.join(20)
    assert result == ["failed"] and "no public URL after" in store.status()["message"]


def test_missing_binary_names_the_install_step(tmp_path):
    with pytest.raises(TunnelBinaryMissing) as e:
        find_binary("cloudflare", [tmp_path], path_env=str(tmp_path))
    assert "cloudflared is not installed" in str(e.value) and "install" in str(e.value).lower()
    with pytest.raises(TunnelBinaryMissing, match="ngrok"):
        find_binary("ngrok", [], path_env=str(tmp_path))


def test_backoff_doubles_up_to_the_cap():
    policy = BackoffPolicy(first=1, cap=60)
    assert [policy.delay(n) for n in (1, 2, 3, 4, 7, 20)] == [1, 2, 4, 8, 60, 60]


def test_control_reports_a_dead_supervisor_and_cleans_up(tmp_path):
    store = TunnelStateFiles(tmp_path / "run")
    import subprocess

    gone = subprocess.Popen([sys.executable, "-c", "pass"])
    gone.wait()
    store.set_status({"provider": "cloudflare", "state": "running", "pid": gone.pid})
    store.publish({"provider": "cloudflare", "public_url": "https://x.trycloudflare.com", "pid": gone.pid})
    control = TunnelControl(store, pid_alive, terminate)
    status = control.status()
    assert status.state == "failed" and "died unexpectedly" in status.message
    assert store.published() is None


def test_stop_terminates_a_running_binary_process(tmp_path, clean_env):
    """TunnelControl.stop against a real process that publishes like a supervisor (the stand-in itself)."""
    binary = find_binary("cloudflare", [fake_bin_dir(tmp_path)])
    proc = cloudflared_quick_tunnel(binary, 8322, tmp_path / "t.log")
    proc.start()
    store = TunnelStateFiles(tmp_path / "run")
    store.set_status({"provider": "cloudflare", "state": "running", "pid": proc.pid})
    store.publish({"provider": "cloudflare", "public_url": "https://a.trycloudflare.com", "pid": proc.pid})
    control = TunnelControl(store, pid_alive, terminate)
    assert control.is_running()
    control.stop(timeout=5)
    assert proc.exit_code() is not None and store.published() is None
    assert store.status()["state"] == "stopped"
    proc.stop()


def test_connector_url_carries_the_token_in_the_path():
    assert connector_url("https://a.trycloudflare.com/", "ltm_abc") == "https://a.trycloudflare.com/t/ltm_abc/mcp"
