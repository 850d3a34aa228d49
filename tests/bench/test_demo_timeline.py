"""bench.demo's phase timeline: the phases of one session add up to its wall (bench/README.md, "The eighth stop")."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from bench.demo_timeline import calls, marks, timeline


def test_the_phases_add_up_to_the_wall_and_name_the_longest_gap(tmp_path: Path) -> None:
    log = tmp_path / "calls.jsonl"
    entries = [  # launch at 100.0; calls at 110-114 and 120-126; exit at 130
        {"started": 120.0, "wall_seconds": 6.0, "prompt_evaluated": 300, "prompt_eval_ms": 1000, "generated": 40,
         "generation_ms": 3000, "sampling_ms": 500},
        {"started": 110.0, "wall_seconds": 4.0, "prompt_evaluated": 900, "prompt_eval_ms": 2000, "generated": 10,
         "generation_ms": 1000},  # an entry written before sampling was timed
        {"prompt_evaluated": 1, "generated": 1},  # an older entry without a start: left out
    ]
    log.write_text("\n".join(json.dumps(e) for e in entries) + "\n")
    start = tmp_path / "startup.jsonl"
    start.write_text("".join(json.dumps({"phase": p, "t": t, "pid": pid}) + "\n" for p, t, pid in [
        ("imports", 103.0, 7), ("task", 108.0, 7), ("task", 115.0, 7), ("imports", 101.0, 8)]))
    t = timeline(100.0, 130.0, calls(log), marks(start))
    assert t["start"] == 10.0 and t["gaps"] == 6.0 and t["finish"] == 4.0
    assert (t["prompt"], t["generation"], t["sampling"]) == (3.0, 4.0, 0.5)
    assert t["in_call"] == pytest.approx(2.5)  # 10 s in calls less 7.5 s counted
    parts = sum(t[k] for k in ("start", "prompt", "generation", "sampling", "in_call", "gaps", "finish"))
    assert parts == pytest.approx(t["wall"])
    assert t["start_marks"] == {"imports": 3.0, "task": 8.0}  # the session process's first mark of each phase
    assert t["longest_gaps"][0]["seconds"] == 6.0 and t["longest_gaps"][0]["after_call"] == 14.0
    assert t["in_session_speeds"] == {"prompt": 400.0, "generation": 11.1, "generation_decode": 12.5}


def test_no_call_log_no_timeline(tmp_path: Path) -> None:
    assert timeline(0.0, 1.0, calls(tmp_path / "missing.jsonl"), []) == {}
