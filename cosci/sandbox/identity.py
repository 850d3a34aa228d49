"""Who a sandboxed program runs as, so that its process-count limit holds (docs/design.md#sandbox).

``RLIMIT_NPROC`` counts the tasks (processes and threads) of a user, and never limits the host's root. Two cases:

- **cosci runs unprivileged**: bubblewrap makes a user namespace and the program is ``nobody`` in it. The kernel
  counts a user's tasks per (user namespace, user), so the limit counts this run's tasks only (checked here,
  Linux 6.18: a capped fork loop stops at the limit whatever the caller's other processes).
- **cosci runs as root** (containers, CI): inside a user namespace the program would still be the host's root,
  which the limit exempts. So no user namespace: the program drops to an unprivileged host user of its own
  (:func:`sandbox_uid`) right before it executes (:mod:`.rlimits`), and the writable workspace is handed to that
  user for the run (:func:`hand_over`) and taken back afterwards (:func:`take_back`).
"""

from __future__ import annotations

import hashlib
import os
import time
from pathlib import Path

UID_BASE = 60_000
UID_SPAN = 5_000
"""Sandbox users are 60000-64999: Debian's range reserved for global allocation (no login user, no package user
here), below ``nobody`` (65534) and within the 65,536 ids a rootless container maps. Two runs at once share a
process count only if their workspaces hash to the same id (1 in 5,000 per pair)."""


def privileged() -> bool:
    """Whether cosci runs as root (then no user namespace: see the module docstring)."""
    return os.geteuid() == 0


def sandbox_uid(workspace: Path) -> int:
    """The host user (and group) id a run whose writable workspace is ``workspace`` runs as when cosci is root.

    Stable (sha256 of the absolute path), so the same workspace always gets the same id, and distinct workspaces
    (parallel workers, the program and its evaluator) almost always get distinct ones: each has its own count.
    """
    digest = hashlib.sha256(str(workspace.absolute()).encode()).digest()
    return UID_BASE + int.from_bytes(digest[:8], "big") % UID_SPAN


def _chown_tree(root: Path, uid: int, gid: int) -> None:
    """``chown`` ``root`` and everything under it, never following a symlink."""
    os.chown(root, uid, gid, follow_symlinks=False)
    for folder, dirs, files in os.walk(root, followlinks=False):
        for name in (*dirs, *files):
            os.chown(os.path.join(folder, name), uid, gid, follow_symlinks=False)


def hand_over(workspaces: list[Path], uid: int) -> None:
    """Make ``workspaces`` (host folders) owned by the sandbox user ``uid`` so the program can write them."""
    for ws in workspaces:
        _chown_tree(ws, uid, uid)


def take_back(workspaces: list[Path], uid: int, wait_seconds: float = 5.0) -> None:
    """After a run: wait (at most ``wait_seconds``) until no process of ``uid`` is left, then give ``workspaces``
    back to cosci's own user, so the run folder holds no file of a sandbox user.

    The PID namespace's processes die with the sandbox's first process; waiting for the last of them keeps a
    straggler from writing after the hand-back and from counting against the next run with the same id.
    """
    deadline = time.monotonic() + wait_seconds
    while _has_processes(uid) and time.monotonic() < deadline:
        time.sleep(0.02)
    for ws in workspaces:
        if ws.exists():
            _chown_tree(ws, os.getuid(), os.getgid())


def _has_processes(uid: int) -> bool:
    """Whether a process whose real user id is ``uid`` is alive (the ``Uid:`` line of ``/proc/PID/status``: the
    folder's owner is root while a process is not dumpable, as right after ``setuid``)."""
    for entry in os.scandir("/proc"):
        if not entry.name.isdigit():
            continue
        try:
            with open(os.path.join(entry.path, "status"), encoding="ascii", errors="replace") as fh:
                line = next((ln for ln in fh if ln.startswith("Uid:")), "")
        except OSError:  # the process ended while being looked at
            continue
        if line.split()[1:2] == [str(uid)]:
            return True
    return False
