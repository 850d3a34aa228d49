"""The fast lane (``make test-fast``): the slow list names real tests, the marker takes them out, and one whole
fake session stays in; the measured file times name real files and order the files longest first."""

from __future__ import annotations

import inspect
import re
from pathlib import Path

import pytest

from tests import conftest
from tests.conftest import file_seconds, longest_files_first, pytest_collection_modifyitems, slow_test_ids

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
    # the hook also orders the items by their files' measured seconds: read the markers by node id, not position
    assert {i.nodeid: [m.name for m in i.markers] for i in items} == {
        listed: ["slow"], f"{listed}[param-1]": ["slow"], "tests/test_fast_lane.py::not_listed": []}


def test_the_fast_lane_runs_one_whole_fake_session_through_the_flow() -> None:
    """The demo tour (every agent and mode once, on the fake, through the Prefect flow) is the fast lane's end-to-end
    session: the integration breaks the unit tests miss show in ``make test-fast`` too (issue 46)."""
    from tests.flows import test_demo_tour as tour

    marks = getattr(tour, "pytestmark", [])
    marks = marks if isinstance(marks, list) else [marks]
    assert "slow" not in {m.name for m in marks}
    assert not {i for i in slow_test_ids() if i.startswith("tests/flows/test_demo_tour.py::")}
    session = tour.test_the_demo_shows_every_agent_and_mode_and_ends_on_a_full_pool
    assert "prefect_server" in inspect.signature(session).parameters  # through the flow, on a Prefect server


def test_every_timed_file_exists() -> None:
    seconds = file_seconds()
    assert seconds, "tests/file_seconds.txt lists no file"
    for path, value in seconds.items():
        assert (ROOT / path).is_file(), f"tests/file_seconds.txt: no file {path} (renamed? update the list)"
        assert value >= 0, path


def test_unmeasured_files_run_first_then_the_longest_and_each_file_keeps_its_order(
        monkeypatch: pytest.MonkeyPatch) -> None:
    class Item:
        def __init__(self, nodeid: str) -> None:
            self.nodeid = nodeid

    monkeypatch.setattr(conftest, "file_seconds", lambda: {"tests/short.py": 1.0, "tests/long.py": 90.0})
    collected = ["tests/short.py::a", "tests/long.py::b", "tests/short.py::c", "tests/new.py::d", "tests/long.py::e[1]"]
    ordered = longest_files_first([Item(n) for n in collected])  # type: ignore[misc]
    assert [i.nodeid for i in ordered] == ["tests/new.py::d", "tests/long.py::b", "tests/long.py::e[1]",
                                           "tests/short.py::a", "tests/short.py::c"]


def test_the_file_times_are_summed_per_file_from_a_junit_report(tmp_path: Path) -> None:
    from tests.timing import render, seconds_per_file

    (tmp_path / "tests" / "flows").mkdir(parents=True)
    for path in ("tests/flows/test_a.py", "tests/test_b.py"):
        (tmp_path / path).write_text("")
    cases = [("tests.flows.test_a", 1.5), ("tests.flows.test_a.TestGroup", 2.0), ("tests.test_b", 10.0)]
    junit = tmp_path / "j.xml"
    rows = "".join(f'<testcase classname="{c}" name="t{i}" time="{t}"/>' for i, (c, t) in enumerate(cases))
    junit.write_text(f"<testsuites><testsuite>{rows}</testsuite></testsuites>")
    seconds = seconds_per_file(junit, tmp_path)
    assert seconds == {"tests/test_b.py": 10.0, "tests/flows/test_a.py": 3.5}
    assert list(seconds) == ["tests/test_b.py", "tests/flows/test_a.py"]
    assert render(seconds).splitlines()[-2:] == ["10.0 tests/test_b.py", "3.5 tests/flows/test_a.py"]


def test_a_config_composed_once_still_follows_its_data_folder_its_overrides_and_the_layer_files(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """``make_config`` composes once per overrides (docs/design.md#tests), and each call still gets its own data
    folder, an override of ``paths.data_dir`` still wins over it, and a later ``./cosci.yaml`` still applies."""
    from tests.conftest import make_config

    composed: list[list[str]] = []
    compose = conftest.compose

    def counted(overrides: list[str]) -> object:
        composed.append(overrides)
        return compose(overrides)

    monkeypatch.setattr(conftest, "compose", counted)
    monkeypatch.chdir(tmp_path)
    seed = f"run.seed={id(tmp_path)}"  # overrides no other test composed in this process
    first, second = make_config(tmp_path / "a", seed), make_config(tmp_path / "b", seed)
    assert len(composed) == 1  # Hydra composed once for both
    assert (first.paths.data_dir, second.paths.data_dir) == ((tmp_path / "a").resolve(), (tmp_path / "b").resolve())
    assert first.run.seed == second.run.seed == id(tmp_path) and first is not second
    chosen = make_config(tmp_path / "a", f"paths.data_dir={tmp_path / 'chosen'}")
    assert chosen.paths.data_dir == (tmp_path / "chosen").resolve()
    (tmp_path / "cosci.yaml").write_text("run:\n  budget_usd: 3.5\n", encoding="utf-8")
    assert make_config(tmp_path / "d", seed).run.budget_usd == 3.5 and len(composed) == 3  # a new layer: composed
