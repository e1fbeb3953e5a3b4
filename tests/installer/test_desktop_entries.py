"""installer/linux/install.sh and uninstall.sh against a stand-in bundle (the real bundle is tested by
installer/smoke_test.py after `make installer`; these run in `make test` because they need no build)."""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
LINUX = ROOT / "installer" / "linux"


def fake_bundle(folder: Path) -> Path:
    """What package.sh lays out, with a script standing in for the PyInstaller executable."""
    (folder / "share").mkdir(parents=True)
    for name in ("install.sh", "uninstall.sh"):
        shutil.copy2(LINUX / name, folder / name)
    for name in ("ltm-desktop.desktop", "ltm-desktop-autostart.desktop"):
        shutil.copy2(LINUX / name, folder / "share" / name)
    shutil.copy2(ROOT / "resources/icons/png/app-256.png", folder / "share/ltm-desktop.png")
    shutil.copy2(ROOT / "resources/icons/app.svg", folder / "share/ltm-desktop.svg")
    exe = folder / "ltm-desktop"
    exe.write_text('#!/bin/sh\necho "ran $*"\n')
    exe.chmod(0o755)
    return folder


def run(script: Path, home: Path, *args: str) -> subprocess.CompletedProcess:
    env = {"HOME": str(home), "PATH": os.environ.get("PATH", "/usr/bin:/bin")}
    return subprocess.run(["bash", str(script), *args], env=env, capture_output=True, text=True, timeout=30)


def desktop_exec(entry: Path) -> str:
    line = next(ln for ln in entry.read_text().splitlines() if ln.startswith("Exec="))
    return line[len("Exec="):]


def unquote_exec(value: str) -> str:
    """The Desktop Entry spec's two levels: string escapes (\\\\ -> \\), then the quoted-argument escapes."""
    value = value.replace("\\\\", "\\")
    assert value.startswith('"') and value.endswith('"'), value
    out, i, inner = [], 0, value[1:-1]
    while i < len(inner):
        if inner[i] == "\\" and i + 1 < len(inner) and inner[i + 1] in '"`$\\':
            out.append(inner[i + 1])
            i += 2
            continue
        out.append(inner[i])
        i += 1
    return "".join(out).replace("%%", "%")


@pytest.mark.parametrize("name", ["ltm-desktop", "My Apps", 'odd & $HOME `x` "q" 100% \\ |'])
def test_install_writes_entries_that_launch_this_folder(tmp_path, name):
    bundle = fake_bundle(tmp_path / name / "ltm-desktop")
    home = tmp_path / "home"
    home.mkdir()
    ran = run(bundle / "install.sh", home)
    assert ran.returncode == 0, ran.stderr
    menu = home / ".local/share/applications/ltm-desktop.desktop"
    autostart = home / ".config/autostart/ltm-desktop.desktop"
    for entry in (menu, autostart):
        assert unquote_exec(desktop_exec(entry)) == str((bundle / "ltm-desktop").resolve())
    if shutil.which("desktop-file-validate"):
        check = subprocess.run(["desktop-file-validate", str(menu), str(autostart)], capture_output=True, text=True)
        assert check.returncode == 0, check.stdout + check.stderr
    link = home / ".local/bin/ltm"
    assert subprocess.run([str(link), "--version"], capture_output=True, text=True).stdout == "ran --version\n"
    assert (home / ".local/share/icons/hicolor/256x256/apps/ltm-desktop.png").is_file()


def test_options_leave_out_autostart_and_link(tmp_path):
    bundle = fake_bundle(tmp_path / "b" / "ltm-desktop")
    home = tmp_path / "home"
    home.mkdir()
    assert run(bundle / "install.sh", home).returncode == 0
    ran = run(bundle / "install.sh", home, "--no-autostart", "--no-link")
    assert ran.returncode == 0, ran.stderr
    assert not (home / ".config/autostart/ltm-desktop.desktop").exists()  # a second run takes it away again
    assert (home / ".local/share/applications/ltm-desktop.desktop").exists()


def test_unknown_option_is_refused(tmp_path):
    bundle = fake_bundle(tmp_path / "b" / "ltm-desktop")
    ran = run(bundle / "install.sh", tmp_path, "--sytem")
    assert ran.returncode == 2 and "unknown option --sytem" in ran.stderr


def test_incomplete_unpack_is_refused(tmp_path):
    bundle = fake_bundle(tmp_path / "b" / "ltm-desktop")
    (bundle / "ltm-desktop").unlink()
    ran = run(bundle / "install.sh", tmp_path)
    assert ran.returncode == 1 and "unpack the whole tarball" in ran.stderr


def test_moved_folder_reinstall_points_at_new_place_and_uninstall_cleans_up(tmp_path):
    home = tmp_path / "home"
    home.mkdir()
    old = fake_bundle(tmp_path / "old" / "ltm-desktop")
    assert run(old / "install.sh", home).returncode == 0
    new = tmp_path / "new" / "ltm-desktop"
    new.parent.mkdir()
    old.rename(new)
    assert run(new / "install.sh", home).returncode == 0
    menu = home / ".local/share/applications/ltm-desktop.desktop"
    assert unquote_exec(desktop_exec(menu)) == str((new / "ltm-desktop").resolve())
    assert os.readlink(home / ".local/bin/ltm") == str((new / "ltm-desktop").resolve())
    foreign = tmp_path / "someone-elses-ltm"
    foreign.write_text("")
    ran = run(new / "uninstall.sh", home)
    assert ran.returncode == 0, ran.stderr
    assert not menu.exists() and not (home / ".config/autostart/ltm-desktop.desktop").exists()
    assert not (home / ".local/bin/ltm").exists()
    # A `ltm` link that is not ours survives an uninstall.
    (home / ".local/bin/ltm").symlink_to(foreign)
    assert run(new / "uninstall.sh", home).returncode == 0
    assert (home / ".local/bin/ltm").is_symlink()
