"""The start-up bench (issue 46) reads the marks a session process writes and times the researcher commands."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from bench.startup import table
from cosci.startup import LOG_ENV, mark, pause_collector, resume_collector

ROOT = Path(__file__).resolve().parents[2]


def test_a_mark_is_written_only_when_the_log_is_named(tmp_path: Path, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    log = tmp_path / "marks.jsonl"
    monkeypatch.delenv(LOG_ENV, raising=False)
    mark("config")
    assert not log.exists()
    monkeypatch.setenv(LOG_ENV, str(log))
    mark("config")
    mark("imports")
    rows = [json.loads(line) for line in log.read_text().splitlines()]
    assert [r["phase"] for r in rows] == ["config", "imports"]
    assert rows[0]["t"] <= rows[1]["t"] and rows[0]["cpu"] <= rows[1]["cpu"]


def test_a_mark_that_cannot_be_written_never_fails(tmp_path: Path, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    monkeypatch.setenv(LOG_ENV, str(tmp_path / "no-such-folder" / "marks.jsonl"))
    mark("config")  # no exception


def test_the_collector_is_resumed_only_if_the_pause_turned_it_off() -> None:
    import gc

    assert gc.isenabled()
    pause_collector()
    assert not gc.isenabled()
    frozen = gc.get_freeze_count()
    kept = [[i] for i in range(10)]  # made during the pause: long-lived, like an import's objects
    resume_collector()
    assert gc.isenabled()
    assert gc.get_freeze_count() >= frozen + len(kept)  # full passes no longer walk start-up's objects
    gc.disable()  # someone else's choice stays
    try:
        pause_collector()
        resume_collector()
        assert not gc.isenabled()
    finally:
        gc.enable()


def test_a_failed_run_leaves_the_collector_on() -> None:
    """``python -m cosci.run`` called in-process (as tests do) with an invalid override: the pause ends with it."""
    code = ("import gc\nfrom cosci.run import main\ntry:\n    main(['run.budget_usd=-1'])\nexcept SystemExit:\n"
            "    pass\nprint(gc.isenabled())")
    out = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, timeout=120)
    assert out.stdout.strip().splitlines()[-1] == "True", out.stderr


def test_the_table_has_one_column_per_tree_and_every_phase() -> None:
    one = {"tree": "/a/main", "first_call": 9.0, "first_calls": [9.0, 8.0], "phases": {"config": 1.0},
           "cpu_at": {"config": 0.5}, "commands": {"rate": {"median": 2.0, "codes": [0]}}, "load": (1.0, 2.0, 3.0)}
    two = {**one, "tree": "/b/fast-start", "first_call": 4.0, "phases": {"config": 0.5, "screen": 1.0},
           "cpu_at": {"config": 0.4, "screen": 1.2}}
    text = table([one, two])
    assert "| measure | main | fast-start |" in text
    assert "| phase: screen (s; CPU at its end) | - | 1.00 (1.20) |" in text
    assert "9.00 (9.0, 8.0)" in text and "`cosci rate`, median (s) | 2.00 (exit 0) | 2.00 (exit 0) |" in text


def test_the_session_cpu_at_the_first_request_is_read_from_proc_on_any_tree() -> None:
    import os
    import time

    from bench.startup import _process_cpu

    busy = time.process_time() + 0.2
    while time.process_time() < busy:  # some CPU of this process's own
        pass
    read = _process_cpu(os.getpid())
    assert read is not None and abs(read - time.process_time()) < 0.1  # user + system, clock ticks
    assert _process_cpu(2**22 + 12345) is None  # no such process
    one = {"tree": "/a/main", "first_call": 9.0, "first_calls": [9.0], "phases": {}, "cpu_at": {}, "cpu_at_call": 4.2,
           "commands": {}, "load": (1.0, 2.0, 3.0)}
    text = table([one, {**one, "tree": "/b/old", "cpu_at_call": None}])
    assert "| session CPU at the fake's first request, median (s) | 4.20 | - |" in text


def test_paired_runs_alternate_the_trees_and_report_one_row_each(tmp_path: Path, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    import bench.startup as startup

    order: list[tuple[str, bool]] = []
    figures = {"main": (9.0, 6.0, 3.0), "branch": (7.0, 5.5, 2.0)}

    def launch(tree: Path, data: Path, cache: Path, *, stop_at_first_call: bool = True) -> dict:  # type: ignore[type-arg]
        order.append((tree.name, stop_at_first_call))
        first, cpu, post = figures[tree.name]
        return {"first_call": first, "cpu_at_call": cpu, "marks": {"screen": 1.0, "prefect server": first - post},
                "cpu": {}}

    monkeypatch.setattr(startup, "launch", launch)
    monkeypatch.setattr(startup, "DATA", tmp_path)
    text = startup.paired([Path("/x/main"), Path("/y/branch")], 2)
    assert order == [("main", False), ("branch", False), ("main", True), ("branch", True), ("main", True),
                     ("branch", True)]  # a warm-up each, then alternating
    assert "| main | 9.00 (9.00-9.00) | 6.00 (6.00-6.00) | 3.00 (3.00-3.00) | 5.00 (5.00-5.00) |" in text
    assert "| branch | 7.00 (7.00-7.00) | 5.50 (5.50-5.50) | 2.00 (2.00-2.00) | 4.00 (4.00-4.00) |" in text
