"""A tiny task (pure Python, no numpy) built in a temporary folder, for the sandbox and check tests."""

from __future__ import annotations

from pathlib import Path

import pytest

PROGRAM = '''import json, sys
VALUE = 1.0
print(json.dumps({"value": VALUE}))
'''
EVALUATOR = '''import argparse, json
p = argparse.ArgumentParser(); p.add_argument("answer"); p.add_argument("--seed", type=int); p.add_argument("--data")
a = p.parse_args()
v = json.load(open(a.answer))["value"]
print(json.dumps({"metrics": {"score": v}, "correct": v >= 0}))
'''
TASK_YAML = """score: {metric: score, direction: maximize}
evaluation_budget: 2
timeouts: {program_seconds: 4, evaluator_seconds: 10}
limits: {cpu_seconds: 2, memory_mb: 256, file_size_mb: 1}
"""
RUBRICS = """- id: positive
  text: "score is at least 0"
"""


def write_task(root: Path, *, program: str = PROGRAM, search: str = EVALUATOR, final: str | None = None,
               task_yaml: str = TASK_YAML, rubrics: str = RUBRICS) -> Path:
    (root / "initial").mkdir(parents=True)
    (root / "initial" / "program.py").write_text(program)
    (root / "evaluate_search.py").write_text(search)
    (root / "evaluate_final.py").write_text(final if final is not None else "PHASE = 'final'\n" + search)
    (root / "task.yaml").write_text(task_yaml)
    (root / "rubrics.yaml").write_text(rubrics)
    (root / "task.md").write_text("# A tiny task\nPrint a value.\n")
    return root


@pytest.fixture
def tiny_task(tmp_path: Path) -> Path:
    return write_task(tmp_path / "tiny")
