"""The Scheduler is the only place that enqueues tasks (design.md#task-keys): no module of cosci/ or flows/ other
than ``cosci/supervisor/rules.py`` calls the store's ``enqueue``, so every task is counted by the Scheduler's tally
and built from :mod:`cosci.store.task_specs` in one place."""

from __future__ import annotations

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
SCHEDULER = ROOT / "cosci" / "supervisor" / "rules.py"


def enqueue_calls(path: Path) -> list[int]:
    """Lines of ``path`` calling a method named ``enqueue`` (``store.tasks.enqueue(...)``, however the receiver is
    spelled: ``self.tasks``, ``tasks = store.tasks; tasks.enqueue``)."""
    tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
    return [node.lineno for node in ast.walk(tree) if isinstance(node, ast.Call)
            and isinstance(node.func, ast.Attribute) and node.func.attr == "enqueue"]


def test_only_the_scheduler_calls_the_stores_enqueue() -> None:
    assert enqueue_calls(SCHEDULER)  # the scan sees the calls there are
    sources = [p for part in ("cosci", "flows") for p in sorted((ROOT / part).rglob("*.py")) if p != SCHEDULER]
    assert len(sources) > 100
    elsewhere = {str(p.relative_to(ROOT)): lines for p in sources if (lines := enqueue_calls(p))}
    assert elsewhere == {}


def test_the_scan_sees_a_call_however_it_is_spelled(tmp_path: Path) -> None:
    code = tmp_path / "x.py"
    code.write_text("tasks = store.tasks\ntasks.enqueue('ranking', 'MatchBatch', 'k')\n"
                    "self.store.tasks.enqueue(a, b, c, payload={})\n", encoding="utf-8")
    assert enqueue_calls(code) == [2, 3]
