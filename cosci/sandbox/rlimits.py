"""Set resource limits, then execute a command: ``python rlimits.py CPU_S AS_BYTES FSIZE_BYTES -- CMD...``.

Runs inside the sandbox as its first process, so the limits (Python's :mod:`resource`; design.md#sandbox) bind the
command and everything it starts, without a ``preexec_fn`` in the multi-threaded parent (which the subprocess
documentation calls unsafe). A limit of 0 is left unset. No process-count limit: inside a user namespace
``RLIMIT_NPROC`` counts the host user's processes (root's, here), so any value would be wrong.
Imports only the standard library.
"""

import os
import resource
import sys


def main(argv: list[str]) -> None:
    cpu, address_space, fsize = (int(a) for a in argv[:3])
    if argv[3] != "--" or len(argv) < 5:
        raise SystemExit("usage: rlimits.py CPU_S AS_BYTES FSIZE_BYTES -- CMD...")
    for kind, value in ((resource.RLIMIT_CPU, cpu), (resource.RLIMIT_AS, address_space),
                        (resource.RLIMIT_FSIZE, fsize)):
        if value > 0:
            # CPU: a soft limit sends SIGXCPU, the hard limit one second later SIGKILL
            resource.setrlimit(kind, (value, value + 1 if kind == resource.RLIMIT_CPU else value))
    resource.setrlimit(resource.RLIMIT_CORE, (0, 0))
    os.execvp(argv[4], argv[4:])


if __name__ == "__main__":
    main(sys.argv[1:])
