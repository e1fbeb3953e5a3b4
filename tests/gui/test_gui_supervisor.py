"""The supervisor against real child processes: crash -> restart, crash loop -> give up, quit -> no orphans."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
from pathlib import Path

from tests.gui.gui_helpers import is_running

from ltm_desktop.gui.child_guard import ltm_command
from ltm_desktop.gui.supervisor import ChildSpec, ChildState, RestartPolicy, SupervisedChild, Supervisor

FAST = RestartPolicy(first_delay_ms=50, max_delay_ms=200, crash_limit=3, window_seconds=60, grace_ms=3000)

SLEEPER = """
import os, sys, time, pathlib
pathlib.Path(sys.argv[1]).write_text(str(os.getpid()))
print("ready", flush=True)
time.sleep(120)
"""


def test_a_crashed_child_is_restarted_and_keeps_its_log(qtbot, tmp_path, script):
    counter = tmp_path / "runs"
    cmd = script(
        "crash_once",
        f"""
import pathlib, time
p = pathlib.Path({str(counter)!r})
n = int(p.read_text()) if p.exists() else 0
p.write_text(str(n + 1))
print(f"run {{n + 1}}", flush=True)
if n == 0:
    raise SystemExit("ltm: something broke on the first run")
time.sleep(120)
""",
    )
    child = SupervisedChild(ChildSpec("flaky", "Flaky child", cmd), tmp_path / "logs", FAST)
    with qtbot.wait_signal(child.exited, timeout=20_000) as first:
        child.start()
    outcome = first.args[0]
    assert outcome.kind == "exited" and outcome.code == 1
    assert "something broke on the first run" in outcome.message
    qtbot.wait_until(lambda: child.state == ChildState.RUNNING and child.restarts == 1, timeout=20_000)
    qtbot.wait_until(lambda: "run 2" in child.log.tail(), timeout=20_000)
    assert counter.read_text() == "2"
    text = child.log.path.read_text()
    assert "run 1" in text and "something broke" in text and "restarting in" in text
    with qtbot.wait_signal(child.exited, timeout=10_000) as last:
        child.stop()
    assert last.args[0].kind == "stopped"
    assert child.state == ChildState.STOPPED


def test_a_crash_loop_backs_off_then_gives_up_with_the_reason(qtbot, tmp_path, script):
    cmd = script("always_fails", 'raise SystemExit("ltm: port 8322 is already in use by another program")')
    child = SupervisedChild(ChildSpec("server", "MCP server", cmd), tmp_path / "logs", FAST)
    exits = []
    child.exited.connect(exits.append)
    with qtbot.wait_signal(child.gave_up, timeout=30_000) as gave_up:
        child.start()
    outcome = gave_up.args[0]
    assert len(exits) == FAST.crash_limit
    assert child.state == ChildState.GAVE_UP
    assert "port 8322 is already in use" in outcome.describe()
    # it really stopped retrying: no further run is scheduled
    assert child.pid() is None and child.restarts == FAST.crash_limit - 1
    assert FAST.delay_ms(1) < FAST.delay_ms(2) <= FAST.max_delay_ms


def test_a_child_killed_by_a_signal_is_reported_as_crashed_and_restarted(qtbot, tmp_path, script):
    pidfile = tmp_path / "pid"
    child = SupervisedChild(ChildSpec("sleeper", "Sleeper", script("sleeper", SLEEPER) + (str(pidfile),)), tmp_path / "logs", FAST)
    with qtbot.wait_signal(child.output_lines, timeout=20_000):
        child.start()
    first_pid = int(pidfile.read_text())
    with qtbot.wait_signal(child.exited, timeout=10_000) as crashed:
        os.kill(first_pid, signal.SIGKILL)
    assert crashed.args[0].kind == "crashed"
    qtbot.wait_until(lambda: pidfile.exists() and int(pidfile.read_text()) != first_pid, timeout=20_000)
    qtbot.wait_until(lambda: child.state == ChildState.RUNNING, timeout=10_000)
    child.stop_and_wait()
    assert not is_running(int(pidfile.read_text()))


def test_a_missing_program_fails_to_start_with_a_message(qtbot, tmp_path):
    child = SupervisedChild(ChildSpec("ghost", "Ghost", ("/nonexistent/ltm-ghost",)), tmp_path / "logs", FAST)
    with qtbot.wait_signal(child.gave_up, timeout=30_000) as gave_up:
        child.start()
    assert "not found" in gave_up.args[0].message


def test_quit_stops_every_child_and_leaves_no_orphans(qtbot, tmp_path, script):
    sup = Supervisor(tmp_path / "logs", FAST)
    pids = [tmp_path / "a.pid", tmp_path / "b.pid"]
    sleeper = script("sleeper", SLEEPER)
    sup.add(ChildSpec("a", "A", sleeper + (str(pids[0]),)))
    sup.add(ChildSpec("b", "B", sleeper + (str(pids[1]),)))
    sup.start_all()
    qtbot.wait_until(lambda: all(p.exists() for p in pids) and all(c.state == ChildState.RUNNING for c in sup.children.values()), timeout=20_000)
    running = [int(p.read_text()) for p in pids]
    assert all(is_running(pid) for pid in running)
    sup.stop_all()
    assert not any(is_running(pid) for pid in running)
    assert all(c.state == ChildState.STOPPED for c in sup.children.values())


def test_restart_applies_a_new_environment(qtbot, tmp_path, script):
    out = tmp_path / "seen"
    cmd = script("env_echo", f"import os, pathlib, time\npathlib.Path({str(out)!r}).write_text(os.environ.get('LTM_HTTP_PORT', '-'))\nprint('up', flush=True)\ntime.sleep(120)\n")
    sup = Supervisor(tmp_path / "logs", FAST)
    sup.add(ChildSpec("server", "Server", cmd, {"LTM_HTTP_PORT": "8322"}))
    sup.start_all()
    qtbot.wait_until(lambda: out.exists() and out.read_text() == "8322", timeout=20_000)
    sup.restart("server", {"LTM_HTTP_PORT": "9411"})
    qtbot.wait_until(lambda: out.read_text() == "9411", timeout=20_000)
    sup.stop_all()


APP = """
import sys
from pathlib import Path
from PySide6.QtCore import QCoreApplication
from ltm_desktop.gui.supervisor import ChildSpec, Supervisor
app = QCoreApplication([])
sup = Supervisor(Path(sys.argv[1]))
for i, spec in enumerate(sys.argv[2:]):
    sup.add(ChildSpec(f"c{i}", f"child {i}", tuple(spec.split("\\x1f"))))
sup.start_all()
app.exec()
"""


def _kill_app_and_check_children(tmp_path, commands, pidfiles, qtbot, env=None, ready_text=""):
    app_py = tmp_path / "app.py"
    app_py.write_text(APP, encoding="utf-8")
    app = subprocess.Popen(
        [sys.executable, str(app_py), str(tmp_path / "logs"), *("\x1f".join(c) for c in commands)],
        env=env, start_new_session=True,
    )
    try:
        qtbot.wait_until(lambda: all(p.exists() and p.read_text() for p in pidfiles), timeout=60_000)
        if ready_text:  # wait until the child is up and quiet, so only the guard can end it
            log = tmp_path / "logs" / "c0.log"
            qtbot.wait_until(lambda: log.exists() and ready_text in log.read_text(), timeout=60_000)
        pids = [int(p.read_text()) for p in pidfiles]
        assert all(is_running(pid) for pid in pids)
        app.send_signal(signal.SIGKILL)
        app.wait(10)
        # Up to 90 s: `ltm run --headless` gives its worker 60 s to finish the file in hand before killing it
        # (cli/headless.py); on a loaded machine the clean stop can use most of that.
        qtbot.wait_until(lambda: not any(is_running(pid) for pid in pids), timeout=90_000)
    finally:
        if app.poll() is None:
            app.kill()
            app.wait()


def test_children_die_when_the_app_is_killed(qtbot, tmp_path, script):
    pidfiles = [tmp_path / "x.pid", tmp_path / "y.pid"]
    sleeper = script("sleeper", SLEEPER)
    _kill_app_and_check_children(tmp_path, [sleeper + (str(pidfiles[0]),), sleeper + (str(pidfiles[1]),)], pidfiles, qtbot)


def test_a_real_ltm_service_child_dies_with_the_killed_app(qtbot, tmp_path, cli_env):
    """`ltm run --headless` (the real store service) as the supervised child; kill -9 the app: no orphan."""
    pidfile = tmp_path / "svc.pid"
    # The service does not write a pid file; a wrapper that execs it does, keeping the same pid.
    wrapper = tmp_path / "exec_ltm.py"
    wrapper.write_text(
        "import os, sys, pathlib\npathlib.Path(sys.argv[1]).write_text(str(os.getpid()))\n"
        "os.execv(sys.argv[2], sys.argv[2:])\n",
        encoding="utf-8",
    )
    cmd = (sys.executable, str(wrapper), str(pidfile), *ltm_command("run", "--headless"))
    _kill_app_and_check_children(tmp_path, [cmd], [pidfile], qtbot, env=cli_env, ready_text="store ready")


def test_the_guard_refuses_a_bad_command_line():
    from ltm_desktop.gui.child_guard import main

    assert main(["--parent"]) == 2
    assert main(["--parent", str(os.getpid()), "--", "/nonexistent/prog"]) == 127


def test_logs_rotate_when_full(tmp_path):
    from ltm_desktop.gui.child_log import ChildLog

    log = ChildLog(tmp_path / "server.log", max_bytes=100)
    for i in range(30):
        log.append(f"line {i}\n")
    assert Path(str(log.path) + ".1").exists()
    assert log.path.stat().st_size <= 100 + 10
    assert log.tail(1) == ["line 29"]


def test_the_frozen_build_guard_subcommand_runs_the_command_and_stays_hidden():
    """A frozen app has no `-m`: it puts `ltm child-guard --parent PID --` in front of its children."""
    run = subprocess.run([*ltm_command("child-guard", "--parent", str(os.getpid()), "--", sys.executable, "-c",
                                       "import sys; print('child ran'); sys.exit(3)")], capture_output=True, text=True)
    assert run.returncode == 3 and run.stdout == "child ran\n"
    listed = subprocess.run(ltm_command("--help"), capture_output=True, text=True).stdout
    assert "child-guard" not in listed and "desktop" in listed
