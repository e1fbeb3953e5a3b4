"""GitCliRepoProbe: the commit a watched folder is at, and which files differ from it, via the `git` command.

Asking git itself (rather than reading .git by hand) gets worktrees, packed refs, submodules and
.gitignore right. No git installed, or a folder outside any repository, simply means "not git-aware".
"""

from __future__ import annotations

import logging
import os
import shutil
import subprocess

from ltm_desktop.core.jobs import RepoState

log = logging.getLogger(__name__)


class GitCliRepoProbe:
    def __init__(self, git: str | None = None, timeout: float = 30.0) -> None:
        self._git = git or shutil.which("git")
        self._timeout = timeout

    def _run(self, folder: str, *args: str) -> str | None:
        if not self._git:
            return None
        try:
            done = subprocess.run(
                [self._git, "-C", folder, *args],
                capture_output=True,
                timeout=self._timeout,
                env={**os.environ, "GIT_OPTIONAL_LOCKS": "0", "LC_ALL": "C"},  # never take index.lock from the user
            )
        except (OSError, subprocess.TimeoutExpired) as e:
            log.warning("git in %s failed: %s", folder, e)
            return None
        if done.returncode != 0:
            return None
        return os.fsdecode(done.stdout)

    def state(self, folder: str) -> RepoState | None:
        """None when folder is not inside a git working tree with at least one commit."""
        head = self._run(folder, "rev-parse", "--show-toplevel", "HEAD")
        if not head:
            return None
        lines = head.splitlines()
        if len(lines) < 2 or len(lines[1]) < 40:
            return None
        top, commit = lines[0], lines[1]
        status = self._run(top, "status", "--porcelain=v1", "-z", "--untracked-files=all", "--ignored=traditional")
        if status is None:
            return None
        real_top = os.path.realpath(top)
        dirty: set[str] = set()
        entries = iter(status.split("\0"))
        for entry in entries:
            if len(entry) < 4:
                continue
            code, rel = entry[:2], entry[3:]
            if code[0] in "RC":
                next(entries, None)  # a rename's or copy's source follows; the new name is what exists
            full = os.path.join(real_top, rel)
            dirty.add(full if not rel.endswith("/") else full.rstrip("/") + os.sep)
        return RepoState(real_top, commit, frozenset(dirty))
