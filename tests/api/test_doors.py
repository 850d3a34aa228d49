"""One pre-flight, two doors: ``cosci run --goal`` and ``python -m cosci.run`` refuse the bad inputs of
tests/reliability with the same line and exit status, because both call the session service (design.md#service)."""

from __future__ import annotations

from pathlib import Path

import pytest

from cosci import cli
from cosci import run as hydra_app
from cosci.config.load import compose
from tests.reliability.test_bad_input import BAD

DEMO_GOAL = str(compose(["experiment=demo"]).session.goal)
BASE = ["experiment=demo", "models=fake"]
OVERRIDES = [o for o in BAD if not o.lstrip("+~").startswith(("session.goal=", "session.goal_file="))]
"""The bad overrides both doors take (a goal override is the goal given twice to ``cosci run --goal``)."""


@pytest.fixture(autouse=True)
def _no_early_server(monkeypatch: pytest.MonkeyPatch) -> None:
    """A Prefect server named in ``PREFECT_API_URL`` (an address nothing answers: a refused run never calls it), so
    the ``python -m cosci.run`` door boots no early server of its own (``cosci.run.boot_early``; ``cosci run --goal``
    boots none). Each refusal's early server was a process started and killed for nothing this module reads: about
    0.8 s of CPU a test (docs/development.md, test time, ninth pass). The same overrides with the early server, and
    nothing written after it, are tests/reliability/test_bad_input.py."""
    monkeypatch.setenv("PREFECT_API_URL", "http://127.0.0.1:9/api")


def refusal(door: str, args: list[str], capsys: pytest.CaptureFixture[str]) -> tuple[int, str]:
    """``(exit status, stderr)`` of one door run in this process."""
    capsys.readouterr()
    with pytest.raises(SystemExit) as exit_:
        if door == "cli":
            cli.main(["run", "--goal", DEMO_GOAL, *args])
        else:
            hydra_app.main(args)
    return int(exit_.value.code or 0), capsys.readouterr().err


@pytest.mark.parametrize("override", OVERRIDES)
def test_both_doors_refuse_a_bad_override_with_the_same_line(override: str, tmp_path: Path,
                                                             capsys: pytest.CaptureFixture[str],
                                                             monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("PREFECT_HOME", raising=False)
    args = [*BASE, f"paths.data_dir={tmp_path / 'data'}", override]
    by_cli, by_run = refusal("cli", args, capsys), refusal("run", args, capsys)
    assert by_cli == by_run, (by_cli, by_run)
    assert by_cli[0] == 2 and by_cli[1].count("\n") == 1 and by_cli[1].startswith("cosci: ")
    assert not (tmp_path / "data").exists() or not any((tmp_path / "data").rglob("*"))


@pytest.mark.parametrize("goal", ["AML", "BCL2", "MCL1?"])
def test_both_doors_refuse_a_goal_by_the_same_rule_naming_the_key_typed(goal: str, tmp_path: Path,
                                                                        capsys: pytest.CaptureFixture[str]) -> None:
    """The goal's rule is one (cosci.config.load.check_goal, through cosci.session.preflight.check_goal_given on
    the command line); each door names the way the goal was given: ``--goal`` or ``session.goal``."""
    args = [*BASE, f"paths.data_dir={tmp_path / 'data'}"]
    capsys.readouterr()
    with pytest.raises(SystemExit) as by_cli:
        cli.main(["run", "--goal", goal, *args])
    cli_err = capsys.readouterr().err
    code, run_err = refusal("run", [*args, f"session.goal={goal}"], capsys)
    assert by_cli.value.code == code == 2 and "is not a research goal" in run_err
    assert cli_err.replace("cosci: --goal:", "cosci: session.goal:") == run_err, (cli_err, run_err)
    assert not (tmp_path / "data").exists()


def test_both_doors_refuse_a_missing_key_and_a_missing_corpus_with_the_same_line(
        tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("ANTHROPIC_API_KEY", raising=False)
    for extra in (["models=opus"], [f"session.corpus_path={tmp_path / 'nope.jsonl'}"],
                  [f"tools.skills_path={tmp_path / 'goal.txt'}"]):
        (tmp_path / "goal.txt").write_text("x")
        args = [*BASE, f"paths.data_dir={tmp_path / 'data'}", *extra]
        by_cli, by_run = refusal("cli", args, capsys), refusal("run", args, capsys)
        assert by_cli == by_run and by_cli[0] == 2 and by_cli[1].count("\n") == 1, (extra, by_cli, by_run)
