"""The fast lane (``make test-fast``): the slow list names real tests, and the marker takes them out."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from tests.conftest import pytest_collection_modifyitems, slow_test_ids

ROOT = Path(__file__).resolve().parents[1]


def test_every_listed_slow_test_exists() -> None:
    ids = slow_test_ids()
    assert ids, "tests/slow_tests.txt lists no test"
    for nodeid in sorted(ids):
        path, _, name = nodeid.partition("::")
        file = ROOT / path
        assert file.is_file(), f"{nodeid}: no file {path}"
        defined = re.search(rf"^(async )?def {re.escape(name)}\(", file.read_text(encoding="utf-8"), re.MULTILINE)
        assert defined, f"{nodeid}: no test function {name} in {path} (renamed? update tests/slow_tests.txt)"


def test_the_listed_tests_are_marked_slow_and_the_others_are_not() -> None:
    listed = sorted(slow_test_ids())[0]

    class Item:
        def __init__(self, nodeid: str) -> None:
            self.nodeid = nodeid
            self.markers: list[pytest.MarkDecorator] = []

        def add_marker(self, marker: pytest.MarkDecorator) -> None:
            self.markers.append(marker)

    items = [Item(listed), Item(f"{listed}[param-1]"), Item("tests/test_fast_lane.py::not_listed")]
    pytest_collection_modifyitems(None, items)  # type: ignore[arg-type]
    assert [[m.name for m in i.markers] for i in items] == [["slow"], ["slow"], []]
