"""Running untrusted programs (candidate programs, task evaluators) in a sandbox (docs/design.md#sandbox).

:mod:`.bwrap` builds Debian's bubblewrap command line (network, PID, IPC and user namespaces; a read-only view of
what the program may read and one writable workspace) and probes whether isolation works on this machine;
:mod:`.run` runs one program under it with CPU-time, wall-clock, memory and file-size limits and classifies how it
ended; :mod:`.rlimits` is the small program that sets the limits inside the sandbox, then executes the command;
:mod:`.backends` picks the backend ``investigation.sandbox`` names (bubblewrap, or a plugin's: docs/plugins.md).
"""

from cosci.sandbox.backends import isolation
from cosci.sandbox.bwrap import Isolation, Mount, NoIsolation, probe
from cosci.sandbox.run import Limits, SandboxResult, run_sandboxed

__all__ = ["Isolation", "Limits", "Mount", "NoIsolation", "SandboxResult", "isolation", "probe", "run_sandboxed"]
