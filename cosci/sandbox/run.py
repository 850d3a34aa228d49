"""Run one program in the sandbox with limits, and say how it ended (docs/design.md#sandbox).

Limits: CPU time, address space (memory), file size and the number of processes are set inside the sandbox by
:mod:`.rlimits` (as root, with the program's own sandbox user: :mod:`.identity`); the wall clock is enforced here
(the whole process group is killed). Standard output and error go to files outside the
program's view (so the file-size limit caps them too) and are read back with a size cap, without following
symlinks. :func:`classify` turns an ending into one reason a researcher can read: ``wall-clock limit``,
``CPU-time limit``, ``memory limit``, ``file-size limit``, ``process limit``, ``network`` (no network in the sandbox),
``read-only`` (a write outside the workspace), else the exit status and the last line of standard error.
"""

from __future__ import annotations

import contextlib
import os
import signal
import stat
import subprocess
import time
from dataclasses import dataclass
from pathlib import Path

from cosci.sandbox.backends import backend, limits_program
from cosci.sandbox.bwrap import LIMITS_PATH, Isolation, Mount, interpreter
from cosci.sandbox.identity import hand_over, privileged, sandbox_uid, take_back

OUTPUT_CAP_BYTES = 1 << 20
"""Bytes of standard output (or error) read back from a run: 1 MiB (design.md#sandbox)."""
BASE_ENV = {"PATH": "/usr/bin:/bin", "LANG": "C.UTF-8", "PYTHONDONTWRITEBYTECODE": "1", "PYTHONHASHSEED": "0",
            "OMP_NUM_THREADS": "1", "OPENBLAS_NUM_THREADS": "1", "MKL_NUM_THREADS": "1"}
"""The whole environment of a sandboxed program (``--clearenv``): no key, token or host path leaks in. One BLAS
thread: a thread pool's reserved stacks count against the memory limit."""


@dataclass(frozen=True)
class Limits:
    """Resource limits of one run: seconds of CPU time and of wall clock, MB of address space and of any file,
    and the number of processes (tasks: a thread counts as one) the program's user may have at once."""

    cpu_seconds: int
    wall_seconds: float
    memory_mb: int
    file_size_mb: int
    processes: int


@dataclass(frozen=True)
class SandboxResult:
    """How a run ended. ``exit_code`` is the program's (negative: killed by that signal); ``limit`` names the limit
    it hit (``wall_clock``, ``cpu_time``, ``memory``, ``file_size``, ``processes``; ``threads``: processes or memory)
    or is None; ``reason`` is one readable line
    ("" for a clean exit 0); seconds are wall-clock."""

    exit_code: int
    stdout: str
    stderr: str
    wall_seconds: float
    limit: str | None
    reason: str

    @property
    def ok(self) -> bool:
        return self.exit_code == 0 and self.limit is None


class View:
    """What a program sees: ``mounts`` under bubblewrap, or, without isolation, the host paths themselves.

    :meth:`where` gives the path the program must be told for an inside path (``/task/x.py``), so one command
    line works both ways.
    """

    def __init__(self, mounts: list[Mount], isolation: Isolation) -> None:
        self.mounts = mounts
        self.isolation = isolation

    def where(self, inside: str) -> str:
        if self.isolation.isolated:
            return inside
        for m in sorted(self.mounts, key=lambda m: -len(m.inside)):
            if inside == m.inside or inside.startswith(m.inside.rstrip("/") + "/"):
                return str(m.host) + inside[len(m.inside):]
        return inside


def run_sandboxed(view: View, argv: list[str], *, cwd: str, limits: Limits, logs: Path,
                  env: dict[str, str] | None = None) -> SandboxResult:
    """Run ``argv`` (inside paths) in ``view`` with ``limits``; ``logs`` (a host folder outside the view) keeps
    ``stdout.txt`` and ``stderr.txt``.

    Without isolation (``unsafe_no_sandbox``) there is no process limit: ``RLIMIT_NPROC`` would count all of the
    user's processes on the host. Never raises for what the program does; OSError only if the sandbox itself
    cannot start.
    """
    logs.mkdir(parents=True, exist_ok=True)
    workspaces = [m.host for m in view.mounts if m.writable]
    uid = sandbox_uid(workspaces[0] if workspaces else logs) if view.isolation.isolated and privileged() else 0
    nproc = limits.processes if view.isolation.isolated else 0
    wrapped = [interpreter(), LIMITS_PATH if view.isolation.isolated else str(limits_program()),
               str(limits.cpu_seconds), str(limits.memory_mb << 20), str(limits.file_size_mb << 20), str(nproc),
               str(uid), "--", *[view.where(a) if a.startswith("/") else a for a in argv]]
    full_env = {**BASE_ENV, **(env or {})}
    if view.isolation.isolated:
        full_env["PATH"] = f"{os.path.dirname(interpreter())}:{full_env['PATH']}"
        cmd = backend(view.isolation.tool).command(view.mounts, wrapped, cwd=cwd, env=full_env,
                                                   tmp_bytes=limits.memory_mb << 20)
        run_env: dict[str, str] = {}
    else:
        cmd, run_env = wrapped, {**full_env, "PATH": f"{os.path.dirname(interpreter())}:{full_env['PATH']}"}
    if uid:
        hand_over(workspaces, uid)
    try:
        code, timed_out, wall = _run(cmd, run_env, None if view.isolation.isolated else view.where(cwd), logs, limits)
    finally:
        if uid:
            take_back(workspaces, uid)
    stdout, stderr = read_capped(logs / "stdout.txt"), read_capped(logs / "stderr.txt")
    limit, reason = classify(code, stderr, timed_out, limits)
    return SandboxResult(code, stdout, stderr, wall, limit, reason)


def _run(cmd: list[str], env: dict[str, str], cwd: str | None, logs: Path, limits: Limits) -> tuple[int, bool, float]:
    """Run ``cmd`` with its outputs in ``logs``, killed at the wall clock: ``(exit code, timed out, seconds)``."""
    started = time.monotonic()
    with (logs / "stdout.txt").open("wb") as out, (logs / "stderr.txt").open("wb") as err:
        proc = subprocess.Popen(cmd, stdin=subprocess.DEVNULL, stdout=out, stderr=err, env=env, cwd=cwd,
                                start_new_session=True)
        timed_out = False
        try:
            code = proc.wait(timeout=limits.wall_seconds)
        except subprocess.TimeoutExpired:
            timed_out = True
            _kill_group(proc)
            code = proc.wait()
    return code, timed_out, time.monotonic() - started


def _kill_group(proc: subprocess.Popen[bytes]) -> None:
    with contextlib.suppress(ProcessLookupError):
        os.killpg(proc.pid, signal.SIGKILL)


def read_capped(path: Path, cap: int = OUTPUT_CAP_BYTES) -> str:
    """At most ``cap`` bytes of a regular file, opened without following a symlink (UTF-8, errors replaced).

    Raises:
        OSError: ``path`` is a symlink (ELOOP) or cannot be opened; ValueError: not a regular file.
    """
    fd = os.open(path, os.O_RDONLY | os.O_NOFOLLOW)
    try:
        if not stat.S_ISREG(os.fstat(fd).st_mode):
            raise ValueError(f"{path.name} is not a regular file")
        with os.fdopen(fd, "rb", closefd=False) as fh:
            return fh.read(cap).decode("utf-8", "replace")
    finally:
        os.close(fd)


SIGNAL_LIMITS = {signal.SIGXCPU: "cpu_time", signal.SIGXFSZ: "file_size"}
STDERR_MARKS = (("MemoryError", "memory"), ("Cannot allocate memory", "memory"), ("bad_alloc", "memory"),
                ("File too large", "file_size"), ("Resource temporarily unavailable", "processes"),
                ("Cannot fork", "processes"), ("can't start new thread", "threads"))
"""EAGAIN from fork / clone and a shell that cannot fork: the process limit; a thread that cannot start: the process
limit or the memory limit (each thread reserves its stack; the error does not say which)."""
NETWORK_MARKS = ("Network is unreachable", "Temporary failure in name resolution", "Name or service not known",
                 "Connection refused")
"""Standard-error texts that name the cause of a failure."""


def classify(code: int, stderr: str, timed_out: bool, limits: Limits) -> tuple[str | None, str]:
    """``(limit hit or None, one-line reason)`` of an ending (see module docstring)."""
    last = next((ln.strip() for ln in reversed(stderr.splitlines()) if ln.strip()), "")[:300]
    if timed_out:
        return "wall_clock", f"wall-clock limit of {limits.wall_seconds:g} s exceeded"
    sig = -code if code < 0 else (code - 128 if code > 128 else 0)
    if sig in SIGNAL_LIMITS:
        kind = SIGNAL_LIMITS[signal.Signals(sig)]
        return kind, _limit_text(kind, limits)
    if sig == signal.SIGKILL:  # the CPU hard limit (one second past the soft one), or the kernel's OOM killer
        return "cpu_time", f"killed (SIGKILL): {_limit_text('cpu_time', limits)} or out of memory"
    if code == 0:
        return None, ""
    for mark, kind in STDERR_MARKS:
        if mark in stderr:
            return kind, f"{_limit_text(kind, limits)}: {last}"
    if any(m in stderr for m in NETWORK_MARKS):
        return None, f"network: the sandbox has no network ({last})"
    if "Read-only file system" in stderr:
        return None, f"read-only: only the workspace is writable ({last})"
    if "Permission denied" in stderr:
        return None, f"permission: the program runs as an unprivileged user; only the workspace is writable ({last})"
    return None, f"exit status {code}: {last or 'no error output'}"


def _limit_text(kind: str, limits: Limits) -> str:
    return {"cpu_time": f"CPU-time limit of {limits.cpu_seconds} s exceeded",
            "memory": f"memory limit of {limits.memory_mb} MB exceeded",
            "file_size": f"file-size limit of {limits.file_size_mb} MB exceeded",
            "processes": f"process limit of {limits.processes} reached (a fork failed)",
            "threads": f"a thread could not start: process limit of {limits.processes} or memory limit of "
                       f"{limits.memory_mb} MB"}[kind]
