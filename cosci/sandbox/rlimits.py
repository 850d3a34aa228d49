"""Set resource limits, become the sandbox user, then execute a command:
``python rlimits.py CPU_S AS_BYTES FSIZE_BYTES NPROC UID -- CMD...``.

Runs inside the sandbox as its first process, so the limits (Python's :mod:`resource`; design.md#sandbox) bind the
command and everything it starts, without a ``preexec_fn`` in the multi-threaded parent (which the subprocess
documentation calls unsafe). A limit of 0 is left unset. ``NPROC`` caps the tasks (processes and threads) of the
program's user; it holds only for a user other than the host's root, so when cosci runs as root ``UID`` names the
unprivileged sandbox user to become (groups cleared, group id = user id) before executing; ``UID`` 0 keeps the
user (inside a user namespace the program already is ``nobody``). Imports only the standard library.
"""

import os
import resource
import sys


def main(argv: list[str]) -> None:
    if len(argv) < 7 or argv[5] != "--":
        raise SystemExit("usage: rlimits.py CPU_S AS_BYTES FSIZE_BYTES NPROC UID -- CMD...")
    cpu, address_space, fsize, nproc, uid = (int(a) for a in argv[:5])
    for kind, value in ((resource.RLIMIT_CPU, cpu), (resource.RLIMIT_AS, address_space),
                        (resource.RLIMIT_FSIZE, fsize), (resource.RLIMIT_NPROC, nproc)):
        if value > 0:
            # CPU: a soft limit sends SIGXCPU, the hard limit one second later SIGKILL
            resource.setrlimit(kind, (value, value + 1 if kind == resource.RLIMIT_CPU else value))
    resource.setrlimit(resource.RLIMIT_CORE, (0, 0))
    if uid > 0:
        os.setgroups([])
        os.setgid(uid)
        os.setuid(uid)  # from root: real, effective and saved ids, and every capability goes
    os.execvp(argv[6], argv[6:])


if __name__ == "__main__":
    main(sys.argv[1:])
