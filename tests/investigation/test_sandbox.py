"""The sandbox holds: a candidate that opens a socket, writes outside its workspace, follows a symlink out of the
task, allocates past the memory limit or loops past the time limit fails its evaluation with the reason recorded
(docs/design.md#sandbox). Each runs a real program under bubblewrap."""

from __future__ import annotations

from pathlib import Path

import pytest

from cosci.investigation.harness import Harness
from cosci.investigation.task import load_task
from cosci.sandbox.bwrap import NoIsolation, isolation, probe
from tests.investigation.conftest import TASK_YAML, write_task

pytestmark = pytest.mark.skipif(probe() is None, reason="bubblewrap cannot build a sandbox here")


def evaluate(task_dir: Path, tmp_path: Path, source: str, name: str = "cand"):
    task = load_task(task_dir)
    harness = Harness(task, probe(), tmp_path / "views")
    program = tmp_path / name
    program.mkdir()
    (program / "program.py").write_text(source)
    return harness.evaluate(program, "search", 0, tmp_path / f"work-{name}")


def test_the_initial_program_passes(tiny_task: Path, tmp_path: Path) -> None:
    e = evaluate(tiny_task, tmp_path, (tiny_task / "initial" / "program.py").read_text())
    assert e.ok and e.correct and e.score == 1.0


def test_a_socket_fails_with_the_network_reason(tiny_task: Path, tmp_path: Path) -> None:
    e = evaluate(tiny_task, tmp_path, "import socket\ns = socket.create_connection(('93.184.216.34', 80), 3)\n")
    assert not e.ok and e.stage == "program" and "network" in e.reason


def test_writing_outside_the_workspace_fails_and_leaves_the_host_untouched(tiny_task: Path, tmp_path: Path) -> None:
    escape = tmp_path / "escaped.txt"
    e = evaluate(tiny_task, tmp_path, f"open({str(escape)!r}, 'w').write('x')\n", "a")
    assert not e.ok and not escape.exists() and "No such file" in e.reason
    e = evaluate(tiny_task, tmp_path, "open('/program/program.py', 'w').write('print(1)')\n", "b")
    assert not e.ok and e.reason.startswith("program: read-only")
    e = evaluate(tiny_task, tmp_path, "open('/usr/lib/x', 'w').write('x')\n", "c")
    assert not e.ok and "read-only" in e.reason


def test_a_program_tree_with_a_symlink_out_of_the_task_is_refused(tiny_task: Path, tmp_path: Path) -> None:
    task = load_task(tiny_task)
    harness = Harness(task, probe(), tmp_path / "views")
    program = tmp_path / "linked"
    program.mkdir()
    (program / "program.py").write_text((tiny_task / "initial" / "program.py").read_text())
    (program / "secret").symlink_to(tiny_task / "evaluate_final.py")
    e = harness.evaluate(program, "search", 0, tmp_path / "work")
    assert not e.ok and e.stage == "tree" and "symlink" in e.reason and not (tmp_path / "work" / "answer").exists()


def test_a_symlink_made_at_run_time_reaches_nothing_outside(tiny_task: Path, tmp_path: Path) -> None:
    src = (f"import os\nos.symlink({str(tiny_task / 'evaluate_final.py')!r}, '/workspace/l')\n"
           "print(open('/workspace/l').read())\n")
    e = evaluate(tiny_task, tmp_path, src)
    assert not e.ok and "No such file" in e.reason


def test_allocating_past_the_memory_limit_fails(tiny_task: Path, tmp_path: Path) -> None:
    e = evaluate(tiny_task, tmp_path, "x = bytearray(600 * 1024 * 1024)\n")
    assert not e.ok and e.limit == "memory" and "memory limit of 256 MB" in e.reason


def test_a_busy_loop_hits_the_cpu_limit(tmp_path: Path) -> None:
    """A generous wall clock (a loaded machine gives a busy loop less than one core), a 1 s CPU limit."""
    task = write_task(tmp_path / "cpu", task_yaml=TASK_YAML.replace("program_seconds: 4", "program_seconds: 120")
                      .replace("cpu_seconds: 2", "cpu_seconds: 1"))
    e = evaluate(task, tmp_path, "while True:\n    pass\n")
    assert not e.ok and e.limit == "cpu_time" and "CPU-time limit of 1 s" in e.reason


def test_sleeping_past_the_wall_clock_fails(tiny_task: Path, tmp_path: Path) -> None:
    e = evaluate(tiny_task, tmp_path, "import time\ntime.sleep(60)\n")
    assert not e.ok and e.limit == "wall_clock" and "wall-clock limit of 4 s" in e.reason and e.seconds < 20


def test_a_big_file_hits_the_file_size_limit(tiny_task: Path, tmp_path: Path) -> None:
    e = evaluate(tiny_task, tmp_path, "open('/workspace/big', 'wb').write(b'x' * (3 << 20))\n")
    assert not e.ok and e.limit == "file_size"


def test_the_environment_carries_no_secret(tiny_task: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("ANTHROPIC_API_KEY", "sk-secret")
    e = evaluate(tiny_task, tmp_path, "import json, os\nprint(json.dumps({'value': float('ANTHROPIC_API_KEY' in "
                                      "os.environ)}))\n")
    assert e.ok and e.score == 0.0


def test_no_isolation_is_refused_unless_unsafe(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr("cosci.sandbox.bwrap.probe", lambda: None)
    with pytest.raises(NoIsolation, match=r"investigation\.unsafe_no_sandbox=true"):
        isolation(unsafe_no_sandbox=False)
    assert isolation(unsafe_no_sandbox=True).tool == "none"


def test_without_isolation_the_same_command_lines_run(tiny_task: Path, tmp_path: Path) -> None:
    from cosci.sandbox import Isolation

    task = load_task(tiny_task)
    harness = Harness(task, Isolation("none"), tmp_path / "views")
    e = harness.evaluate(task.initial, "search", 0, tmp_path / "work")
    assert e.ok and e.score == 1.0
