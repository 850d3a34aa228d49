"""``cosci.run.expand_sweep``: the jobs pre-validated before Hydra writes anything."""

from __future__ import annotations

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
