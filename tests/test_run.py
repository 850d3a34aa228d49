"""``python -m cosci.run``: the jobs pre-validated before Hydra writes anything, and Hydra's own flags kept apart from
the overrides (``--cfg job`` anywhere, a config error said as it is, ``--help`` under a broken layer file)."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from cosci.config.load import ConfigError
from cosci.run import expand_sweep


def test_the_basic_sweeper_gives_the_cartesian_product() -> None:
    assert expand_sweep(["run.seed=1,2", "models=fake,local", "run.max_hypotheses=4"]) == [
        ["run.seed=1", "models=fake", "run.max_hypotheses=4"], ["run.seed=1", "models=local", "run.max_hypotheses=4"],
        ["run.seed=2", "models=fake", "run.max_hypotheses=4"], ["run.seed=2", "models=local", "run.max_hypotheses=4"]]


def test_another_sweeper_keeps_its_own_sweep_syntax() -> None:
    """Optuna's ``interval(...)`` is no basic sweep: only the overrides every job shares are pre-validated."""
    jobs = expand_sweep(["hydra/sweeper=optuna", "run.seed=interval(0, 9)", "models=fake,local",
                         "run.max_hypotheses=4"])
    assert jobs == [["hydra/sweeper=optuna", "run.max_hypotheses=4"]]


def test_an_override_hydra_cannot_parse_is_one_config_error() -> None:
    with pytest.raises(ConfigError) as err:
        expand_sweep(["run.seed=1,,2"])
    assert "\n" not in str(err.value)


def test_a_pre_flight_skills_warning_is_said_as_every_cosci_warning(tmp_path: Path,
                                                                    capsys: pytest.CaptureFixture[str]) -> None:
    from cosci.session.preflight import check_skills

    (tmp_path / "empty_skills").mkdir()
    check_skills(str(tmp_path / "empty_skills"))
    err = capsys.readouterr().err.splitlines()
    assert err == [f"cosci: warning: tools.skills_path: {tmp_path / 'empty_skills'} holds no SKILL.md (its "
                   "subfolders neither): no skill tools this session"], err


@pytest.fixture
def folder(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """An empty working folder and user config folder (never the developer's files)."""
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "xdg"))
    return tmp_path


def run_main(argv: list[str]) -> int:
    from cosci.run import main

    try:
        main(argv)
    except SystemExit as exc:
        return int(exc.code or 0)
    return 0


@pytest.mark.parametrize(("argv", "says"), [
    (["models=fake", "--cfg", "job", "run.nosuch=3"], "cosci: run.nosuch: unknown key"),
    (["--cfg", "job", "models=nosuch"], "cosci: models=nosuch: no such choice in the group 'models'"),
    (["-c", "job", "--resolve", "models=fake", "run.nosuch=3"], "cosci: run.nosuch: unknown key"),
])
def test_cfg_job_with_a_config_error_says_the_error_not_a_grammar_one(
        folder: Path, argv: list[str], says: str, capsys: pytest.CaptureFixture[str]) -> None:
    """Hydra's flags (``--cfg job``) are not overrides: the real error is said, not "override '--cfg' is not in
    Hydra's override grammar"."""
    assert run_main(argv) == 2
    err = capsys.readouterr().err
    assert err.startswith(says) and err.count("\n") == 1 and "--cfg' is not" not in err, err


def test_cfg_job_with_a_bad_key_in_the_project_file_names_the_file(folder: Path,
                                                                   capsys: pytest.CaptureFixture[str]) -> None:
    (folder / "cosci.yaml").write_text("run: {nosuchkey: 1}\n", encoding="utf-8")
    assert run_main(["--cfg", "job", "models=fake"]) == 2
    err = capsys.readouterr().err
    assert err.startswith(f"cosci: {folder / 'cosci.yaml'}: run.nosuchkey: unknown key"), err


def test_hydra_flags_may_stand_between_overrides(folder: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """``models=fake --cfg job run.budget_usd=3`` prints the config as with ``--cfg`` first (it said "unrecognized
    arguments")."""
    assert run_main(["models=fake", "--cfg", "job", "run.budget_usd=3"]) == 0
    out = capsys.readouterr().out
    assert re.search(r"^  budget_usd: 3$", out, re.MULTILINE), out


def test_help_is_printed_under_a_broken_project_file(folder: Path, capsys: pytest.CaptureFixture[str]) -> None:
    (folder / "cosci.yaml").write_text("run: [\n", encoding="utf-8")
    assert run_main(["--help"]) == 0
    captured = capsys.readouterr()
    assert "Usage: python -m cosci.run" in captured.out and "cannot be read" not in captured.err, captured


@pytest.mark.parametrize(("argv", "says"), [
    (["experiment=demo", "models=fake", "--bogus"], "cosci: unrecognized arguments: --bogus (see `python -m cosci.run "
                                                    "--help`: it takes key=value overrides and Hydra's flags)"),
    (["--goal", "Which drugs treat AML?", "models=fake"], "cosci: unrecognized arguments: --goal (see `python -m "
                                                          "cosci.run --help`: it takes key=value overrides and Hydra's "
                                                          "flags; a goal is `cosci run --goal \"...\"` or "
                                                          "session.goal_file=PATH)"),
    (["--cfg", "nosuch"], "cosci: argument --cfg/-c: invalid choice: 'nosuch'"),
    (["--multi", "models=fake"], "cosci: unrecognized arguments: --multi (see `python -m cosci.run --help`"),
])
def test_a_bad_flag_is_one_line_not_hydra_s_usage_block(folder: Path, argv: list[str], says: str,
                                                        capsys: pytest.CaptureFixture[str]) -> None:
    """Fresh-user trial: ``python -m cosci.run --goal "..."`` (the flag `cosci run` takes) printed Hydra's seven-line
    usage block above "run.py: error: unrecognized arguments: --goal": one line, exit 2, as `cosci` says its own."""
    assert run_main(argv) == 2
    err = capsys.readouterr().err
    assert err.startswith(says) and err.count("\n") == 1 and "usage:" not in err, err
