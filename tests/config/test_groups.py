"""The section groups (conf/ranking, safety, budget, tools, tracking; docs/design.md#presets): every option composes
and validates, a preset changes only the keys its file lists, and dotted overrides of a section still apply."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
import yaml
from omegaconf import OmegaConf

from cosci.config.load import ConfigError, compose, validate
from cosci.paths import conf_dir

GROUPS = ("ranking", "safety", "budget", "tools", "tracking")
OPTIONS = [(g, p.stem) for g in GROUPS for p in sorted((conf_dir() / g).glob("*.yaml"))]


def leaves(data: Any, prefix: str = "") -> dict[str, Any]:
    if isinstance(data, dict) and data:
        return {k: v for key, value in data.items() for k, v in leaves(value, f"{prefix}{key}.").items()}
    return {prefix.rstrip("."): data}


def test_each_group_has_a_default_and_a_preset() -> None:
    for group in GROUPS:
        names = {name for g, name in OPTIONS if g == group}
        assert "default" in names and len(names) >= 2, group


@pytest.mark.parametrize(("group", "option"), OPTIONS)
def test_each_option_composes_validates_and_changes_only_what_it_lists(group: str, option: str) -> None:
    validate(compose(["experiment=demo", "models=fake", f"{group}={option}"]))
    base = leaves(OmegaConf.to_container(compose([]), resolve=True))
    chosen = leaves(OmegaConf.to_container(compose([f"{group}={option}"]), resolve=True))
    changed = {k for k in base if base[k] != chosen.get(k)}
    listed = yaml.safe_load((conf_dir() / group / f"{option}.yaml").read_text(encoding="utf-8")) or {}
    listed.pop("defaults", None)
    prefix = "" if group == "budget" else f"{group}."  # budget's files are _global_: they name run.* and budget.*
    assert changed <= {prefix + k for k in leaves(listed)}, changed
    assert option == "default" or changed, f"{group}={option} changes nothing"


def test_dotted_overrides_of_a_section_still_apply_over_a_preset() -> None:
    config = validate(compose(["ranking=thorough", "ranking.max_matches_per_pair=4", "ranking.researcher_weight=5",
                               "tools=offline", "tools.max_results=7", "safety.enabled=false", "run.budget_usd=3"]))
    assert (config.ranking.max_matches_per_pair, config.ranking.dual_order, config.tools.max_results) == (4, "close", 7)
    assert config.tools.offline and not config.safety.enabled and config.run.budget_usd == 3.0


def test_an_experiments_own_values_win_over_a_preset() -> None:
    """The demo fixes its schedule (rematch cap 2); ranking=thorough changes the rest."""
    ranking = validate(compose(["experiment=demo", "ranking=thorough"])).ranking
    assert ranking.max_matches_per_pair == 2 and ranking.top_k == 10


def test_an_unknown_preset_names_the_options() -> None:
    """Fresh-user trial: Hydra's "In 'config': Could not find 'models/fak' Available options in 'models': claude45
    fake ..." is said as the override, the group's choices as a list and the nearest one."""
    with pytest.raises(ConfigError) as err:
        compose(["ranking=thorugh"])
    assert str(err.value) == ("ranking=thorugh: no such choice in the group 'ranking'; choose from default, quick, "
                              "thorough (did you mean ranking=thorough?)")
    with pytest.raises(ConfigError, match=r"^models=zzzz: no such choice in the group 'models'; choose from "
                                          r"claude45, fake, .*together$"):
        compose(["models=zzzz"])  # nothing near: no guess


@pytest.mark.parametrize(("name", "guess"), [("nope", None), ("gpt4", None), ("fak", "fake"), ("opnai", "openai"),
                                             ("sonet", "sonnet"), ("gemni", "gemini")])
def test_only_a_near_choice_is_guessed(name: str, guess: str | None) -> None:
    """Fresh-user trial: ``models=nope`` was asked "did you mean models=openai?" (difflib's ratio 0.6, its default
    cutoff); a guess is offered only for a name one or two keystrokes off, the list of choices always."""
    with pytest.raises(ConfigError) as err:
        compose([f"models={name}"])
    line = str(err.value)
    assert line.startswith(f"models={name}: no such choice in the group 'models'; choose from claude45, fake,"), line
    assert line.endswith(f" (did you mean models={guess}?)" if guess else ", sonnet, together"), line


@pytest.mark.parametrize("command", ["estimate", "run"])
def test_estimate_and_run_say_the_same_line(command: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    from tests.conftest import run_cli

    goal = ["--goal", "Which approved drugs could be repurposed for AML?"] if command == "run" else []
    code, out, err = run_cli(capsys, "--data-dir", str(tmp_path / "data"), command, *goal, "models=nope")
    assert (code, out) == (2, "") and err.startswith("cosci: models=nope: no such choice in the group 'models'; ")
    assert err.endswith(", sonnet, together\n") and "did you mean" not in err, err
    assert not (tmp_path / "data" / "sessions").exists()  # nothing recorded


def test_an_old_key_is_refused_naming_the_new_one_under_any_preset() -> None:
    with pytest.raises(ConfigError, match=r"ranking\.strategy: renamed to ranking\.pairing"):
        compose(["ranking=quick", "ranking.strategy=uncertainty"])
