"""The fast lane (``make test-fast``): the slow list names real tests, and the marker takes them out."""

from __future__ import annotations

import ast
import subprocess
import sys
from pathlib import Path

from tests.conftest import slow_test_ids

ROOT = Path(__file__).resolve().parents[1]


def test_every_listed_slow_test_exists() -> None:
    ids = slow_test_ids()
    assert ids, "tests/slow_tests.txt lists no test"
    for nodeid in sorted(ids):
        path, _, name = nodeid.partition("::")
        file = ROOT / path
        assert file.is_file(), f"{nodeid}: no file {path}"
        names = {n.name for n in ast.walk(ast.parse(file.read_text(encoding="utf-8")))
                 if isinstance(n, ast.FunctionDef | ast.AsyncFunctionDef)}
        assert name in names, f"{nodeid}: no test function {name} in {path} (renamed? update tests/slow_tests.txt)"


def test_the_fast_lane_leaves_the_listed_tests_out() -> None:
    target = "tests/safety/test_safety_cli.py"
    listed = {i.partition("::")[2] for i in slow_test_ids() if i.startswith(target + "::")}
    assert listed, f"{target}: expected listed slow tests there"
    out = subprocess.run([sys.executable, "-m", "pytest", "--collect-only", "-q", "-m", "not slow and not live",
                          target], cwd=ROOT, capture_output=True, text=True, timeout=120, check=False).stdout
    collected = {line.split("::", 1)[1].split("[")[0] for line in out.splitlines() if line.startswith(target + "::")}
    assert collected, out  # the file's other tests stay in the fast lane
    assert not collected & listed
