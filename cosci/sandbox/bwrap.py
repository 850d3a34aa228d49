"""The isolation tool: Debian's bubblewrap (``bwrap``), and the probe that says whether it works here.

Why bubblewrap (docs/design.md#sandbox): a setuid-free, daemon-free, well-kept tool (Flatpak's sandbox) that gives
a network namespace (no interface but a downed loopback), PID / IPC / UTS / cgroup namespaces, every capability
dropped, and a root file system built only from the mounts named here — so a program sees the interpreter, its
libraries, the read-only task view and its own workspace, and nothing else of the host (no other worker's folder,
no session store, no home directory).

Who the program is depends on who runs cosci (:mod:`.identity`): unprivileged, bubblewrap adds a user namespace
and the program is ``nobody`` in it; as root, there is no user namespace (in one the program would still be the
host's root, whom the process-count limit exempts): bubblewrap keeps only ``CAP_SETUID`` / ``CAP_SETGID``, which
:mod:`.rlimits` uses to become an unprivileged sandbox user before it executes the program.

Measured on this project's machines (Debian 12 container, root; docs/design.md#sandbox): both forms work as root,
the user-namespace form as an unprivileged user too; a ``connect()`` inside fails with ``ENETUNREACH``.
"""

from __future__ import annotations

import functools
import os
import shutil
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

from cosci.errors import CosciError
from cosci.sandbox.identity import privileged

SYSTEM_DIRS = ("/usr", "/bin", "/sbin", "/lib", "/lib64", "/lib32", "/libx32")
"""Read-only system folders every program needs (the dynamic loader, libc, coreutils)."""
SANDBOX_UID = 65534
"""``nobody``: the program's user inside the sandbox's user namespace (cosci unprivileged)."""
NAMESPACES_UNPRIVILEGED = ("--unshare-all", "--unshare-user", "--uid", str(SANDBOX_UID), "--gid", str(SANDBOX_UID),
                           "--cap-drop", "ALL")
NAMESPACES_ROOT = ("--unshare-ipc", "--unshare-pid", "--unshare-net", "--unshare-uts", "--unshare-cgroup-try",
                   "--cap-drop", "ALL", "--cap-add", "CAP_SETUID", "--cap-add", "CAP_SETGID")
"""As root: every namespace but the user one; the two capabilities :mod:`.rlimits` needs to drop to the sandbox
user (it then has none: a change of user id from root clears them, and bubblewrap sets ``no_new_privs``)."""
LIMITS_PATH = "/run/cosci/rlimits.py"
"""Where :mod:`cosci.sandbox.rlimits` is seen inside the sandbox."""


class NoIsolation(CosciError):
    """No isolation is available and ``investigation.unsafe_no_sandbox`` is not set (one line, with the fix)."""


@dataclass(frozen=True)
class Mount:
    """One path of the sandbox's view: ``host`` seen at ``inside``, read-only unless ``writable``."""

    host: Path
    inside: str
    writable: bool = False


@dataclass(frozen=True)
class Isolation:
    """How programs are isolated: ``tool`` is the sandbox backend's name (``"bwrap"``, or a plugin's:
    ``investigation.sandbox``) or ``"none"`` (``unsafe_no_sandbox``)."""

    tool: str
    version: str = ""

    @property
    def isolated(self) -> bool:
        return self.tool != "none"


def python_dirs() -> list[str]:
    """The folders the interpreter running cosci needs: its base installation and its virtual environment."""
    dirs = {os.path.realpath(sys.base_prefix), os.path.realpath(sys.prefix)}
    return sorted(d for d in dirs if not any(d.startswith(s + "/") or d == s for s in SYSTEM_DIRS))


def interpreter() -> str:
    """The Python the sandboxed programs run with: this process's own (same libraries: numpy, scipy)."""
    return sys.executable


def command(mounts: list[Mount], argv: list[str], *, cwd: str, env: dict[str, str], tmp_bytes: int = 0) -> list[str]:
    """The ``bwrap`` command line running ``argv`` in a view made of the system folders and ``mounts``.

    ``tmp_bytes`` caps the private ``/tmp`` (a tmpfs: memory the address-space limit does not count); 0 leaves
    bubblewrap's default. Mount points' parents are made 0755 (as root bubblewrap would make e.g. ``/root`` 0700,
    which the sandbox user could not cross).
    """
    out = ["bwrap", *(NAMESPACES_ROOT if privileged() else NAMESPACES_UNPRIVILEGED), "--die-with-parent",
           "--new-session", "--clearenv", "--proc", "/proc", "--dev", "/dev", "--perms", "1777"]
    out += [*(["--size", str(tmp_bytes)] if tmp_bytes > 0 else []), "--tmpfs", "/tmp"]
    made: set[str] = {"/", "/proc", "/dev", "/tmp"}
    mounted: list[str] = []
    binds = [("--ro-bind", d, d) for d in (*SYSTEM_DIRS, *python_dirs()) if os.path.isdir(d)]
    binds.append(("--ro-bind", str(Path(__file__).with_name("rlimits.py")), LIMITS_PATH))
    binds += [("--bind" if m.writable else "--ro-bind", str(m.host), m.inside) for m in mounts]
    for flag, host, inside in binds:
        out += _parents(inside, made, mounted)
        out += [flag, host, inside]
        mounted.append(inside.rstrip("/"))
    for key, value in sorted(env.items()):
        out += ["--setenv", key, value]
    return [*out, "--chdir", cwd, "--", *argv]


def _parents(inside: str, made: set[str], mounted: list[str]) -> list[str]:
    """``--perms 0755 --dir P`` for each parent ``P`` of ``inside`` not made yet and not inside a mount (those
    exist in the mounted tree), outermost first; ``made`` is updated."""
    out: list[str] = []
    for parent in reversed(Path(inside).parents):
        p = str(parent)
        if p in made or any(p == m or p.startswith(m + "/") for m in mounted):
            continue
        out += ["--perms", "0755", "--dir", p]
        made.add(p)
    return out


@functools.cache
def probe() -> Isolation | None:
    """Whether bubblewrap can build a sandbox on this machine (runs ``true`` in one, once per process).

    Returns None when ``bwrap`` is missing or fails (user or network namespaces refused by the kernel or the
    container runtime).
    """
    exe = shutil.which("bwrap")
    if exe is None:
        return None
    try:
        done = subprocess.run(command([], ["/bin/true"], cwd="/", env={}), capture_output=True, timeout=30)
        version = subprocess.run([exe, "--version"], capture_output=True, text=True, timeout=10).stdout.strip()
    except (OSError, subprocess.TimeoutExpired):
        return None
    return Isolation("bwrap", version) if done.returncode == 0 else None


class Bubblewrap:
    """The shipped backend (``investigation.sandbox: bwrap``; :class:`cosci.sandbox.backends.Backend`)."""

    def probe(self) -> Isolation | None:
        return probe()

    def command(self, mounts: list[Mount], argv: list[str], *, cwd: str, env: dict[str, str],
                tmp_bytes: int = 0) -> list[str]:
        return command(mounts, argv, cwd=cwd, env=env, tmp_bytes=tmp_bytes)


BACKEND = Bubblewrap()
"""What ``cosci/sandbox/sandboxes.yaml`` declares as ``bwrap``."""
