"""A Ctrl-C while an entry point still imports (before its own handler) is one line and exit 130, not a traceback.

The interrupt is raised where the imports would be, after ``import cosci``, with ``sys.argv[0]`` as each entry
point has it at that moment; a library import keeps Python's own traceback.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]


def _interrupt_after_import(argv0: str) -> subprocess.CompletedProcess[str]:
    code = f"import sys; sys.argv[0] = {argv0!r}; import cosci; raise KeyboardInterrupt"
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    return subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env, timeout=60)


@pytest.mark.parametrize("argv0", ["-m", "/usr/local/bin/cosci"])  # python -m cosci.run; the console script
def test_an_entry_point_interrupted_while_importing_says_one_line(argv0: str) -> None:
    done = _interrupt_after_import(argv0)
    assert done.stderr == "cosci: interrupted\n", done.stderr
    assert done.returncode in (-signal.SIGINT, 128 + signal.SIGINT)  # as Python exits on an unhandled interrupt


def test_a_library_import_keeps_python_s_traceback() -> None:
    done = _interrupt_after_import("my_analysis.py")
    assert "Traceback" in done.stderr and done.stderr.rstrip().endswith("KeyboardInterrupt"), done.stderr
    assert "cosci: interrupted" not in done.stderr
