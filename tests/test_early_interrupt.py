"""A Ctrl-C while an entry point still imports (before its own handler) is one line and exit 130, not a traceback.

The interrupt is raised where the imports would be, after ``import cosci``, with ``sys.argv[0]`` as each entry
point has it at that moment; a library import keeps Python's own traceback. A session interrupted after its summary
said how to resume it adds no line.
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


def test_a_session_interrupted_after_its_summary_adds_no_line(monkeypatch: pytest.MonkeyPatch,
                                                             capsys: pytest.CaptureFixture[str]) -> None:
    """Fresh-user trial: after an interrupted session's summary (which ends with `cosci resume <id>`), `cosci run`
    printed "cosci: interrupted", read as a second failure. Exit 130, nothing more said; an interrupt the summary
    did not announce still says its line."""
    from cosci import api
    from cosci.errors import SessionInterrupted
    from tests.conftest import run_cli

    def stopped(*_: object, **__: object) -> None:
        raise SessionInterrupted("s-1")

    monkeypatch.setattr(api, "preflight", lambda prepared: type("C", (), {"notices": ()})())
    monkeypatch.setattr(api, "prepare", lambda *a, **k: None)
    monkeypatch.setattr(api, "run", stopped)
    assert run_cli(capsys, "run", "--goal", "Suggest approved drugs for acute myeloid leukemia") == (130, "", "")

    def bare(*_: object, **__: object) -> None:
        raise KeyboardInterrupt

    monkeypatch.setattr(api, "run", bare)
    assert run_cli(capsys, "run", "--goal", "Suggest approved drugs for acute myeloid leukemia") == \
        (130, "", "cosci: interrupted\n")
