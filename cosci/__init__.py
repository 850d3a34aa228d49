"""cosci, an AI co-scientist (docs/ARCHITECTURE.md).

Run as ``cosci`` or ``python -m cosci.…``, a Ctrl-C that lands while the entry point is still importing, before
its own handler exists (the first second or two), ends in the handler's line, ``cosci: interrupted``, with exit
status 130, instead of a traceback (docs/design.md#resume). Imported as a library, nothing changes: the hook is
set only for those two entry points.
"""

import os
import sys


def _interrupted(kind: type[BaseException], value: BaseException, tb: object) -> None:
    """``sys.excepthook`` for the entry points: a KeyboardInterrupt is one line (Python still exits 130, as for
    any unhandled interrupt); anything else goes to the hook there was before."""
    if issubclass(kind, KeyboardInterrupt):
        print("cosci: interrupted", file=sys.stderr)
        return
    _previous(kind, value, tb)  # type: ignore[arg-type]


_previous = sys.excepthook
# "-m" is sys.argv[0] while `python -m cosci.run` locates its module (Python's docs for -m), which imports this package
if sys.argv and (sys.argv[0] == "-m" or os.path.basename(sys.argv[0]) == "cosci"):
    sys.excepthook = _interrupted
