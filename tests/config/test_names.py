"""Names that fail loudly (issue 18): an unknown tool name, a renamed or removed key, each refused in one line
(exit 2 at the entry point); a session frozen under the old names still resumes."""

from __future__ import annotations

import importlib
import json
import pkgutil
import re
from pathlib import Path

import pytest

from cosci import literature, run, tools
from cosci.config.frozen import frozen_config
from cosci.config.load import ConfigError, compose, validate
from cosci.config.renames import ADDED, REMOVED, RENAMED, carry_over


def test_tool_names_are_the_tools_that_exist() -> None:
    """Every tool module (one with a ``SPEC``) has its tool declared under its spec's name, with the module's
    builder, and nothing else is declared (design.md#tools)."""
    modules = [importlib.import_module(f"cosci.tools.{m.name}") for m in pkgutil.iter_modules(tools.__path__)]
    specs = {m.SPEC.name: m.__name__ for m in modules if hasattr(m, "SPEC")}
    assert {d.name: d.build for d in literature.declarations()} == {n: f"{m}:build" for n, m in specs.items()}
    assert len(specs) >= 6


def test_an_unknown_tool_name_is_refused_naming_the_known_tools() -> None:
    with pytest.raises(ConfigError) as err:
        validate(compose(["agents.generation.tools=[pubmed_search,nope]"]))
    line = str(err.value)
    assert "\n" not in line and line.startswith("agents.generation.tools")
    assert "'nope'" in line and all(name in line for name in literature.tool_names())


def test_the_entry_point_refuses_an_unknown_tool_in_one_line(capsys: pytest.CaptureFixture[str],
                                                             tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    with pytest.raises(SystemExit) as exit_:
        run.main(["experiment=demo", f"paths.data_dir={tmp_path / 'data'}",
                  "agents.generation.tools=[pubmed_search,nope]"])
    err = capsys.readouterr().err
    assert exit_.value.code == 2 and err.count("\n") == 1, err
    assert "agents.generation.tools" in err and "'nope'" in err and "pubmed_search" in err
    assert list(tmp_path.iterdir()) == []  # nothing written


@pytest.mark.parametrize("override", ["run.debate_fraction=0.5", "+run.debate_fraction=0.5"])
def test_a_renamed_key_names_its_new_name(override: str) -> None:
    with pytest.raises(ConfigError, match=r"^run\.debate_fraction: renamed to generation\.debate_share"):
        compose([override])


def test_a_renamed_key_in_a_composed_config_is_refused_too() -> None:
    data = json.loads(validate(compose([])).model_dump_json())
    data["run"]["debate_fraction"] = 0.5  # e.g. an experiment file written before the rename
    with pytest.raises(ConfigError, match=r"generation\.debate_share"):
        validate(data)


@pytest.mark.parametrize("key", sorted(REMOVED))
def test_a_removed_setting_says_why(key: str) -> None:
    with pytest.raises(ConfigError, match=rf"^{re.escape(key)}: removed, {re.escape(REMOVED[key])}"):
        compose([f"{key}=60"])


def test_a_session_frozen_with_the_embedded_block_rule_resumes_with_the_offline_screen(tmp_path: Path) -> None:
    old = json.loads(validate(compose(["experiment=demo"])).model_dump_json())
    for key in ("refuse_categories", "screen"):
        del old["safety"][key]
    old["safety"]["embedded_block_needs_prescreen"] = True
    config = frozen_config(old, tmp_path)
    assert config.safety is not None and config.safety.refuse_categories == ["biological", "chemical",
                                                                              "radiological_nuclear"]


def test_generation_debate_share_is_the_new_name() -> None:
    assert validate(compose(["generation.debate_share=0.5"])).generation.debate_share == 0.5


def test_a_session_frozen_under_the_old_names_still_resumes(tmp_path: Path) -> None:
    snapshot = json.loads(validate(compose(["experiment=demo"])).model_dump_json())
    old = carry_over(snapshot)  # today's snapshot, written the old way
    del old["generation"]
    old["run"]["debate_fraction"] = 0.25
    old["lease"].update(default_seconds=300, reflection_seconds=600, final_seconds=1800)
    config = frozen_config(old, tmp_path)
    assert config.generation.debate_share == 0.25
    assert config.paths.data_dir == tmp_path.resolve()
    for renamed in RENAMED:
        with pytest.raises(ConfigError, match="renamed to"):
            frozen_config(old, tmp_path, [f"{renamed}=0.5"])


# The vocabulary renames (design.md#vocabulary): each old key or value is refused in one line naming the new one,
# on the command line, in a composed config (an experiment file) and on resume; a frozen snapshot carries over.
OLD_OVERRIDES = [  # codemod: keep (the old names below are the point)
    ("run.max_ideas=10", r"^run\.max_ideas: renamed to run\.max_hypotheses"),  # codemod: keep
    ("termination.min_ideas_before_stable=3",  # codemod: keep
     r"renamed to termination\.min_hypotheses_before_stable"),
    ("ranking.matches_per_batch=2",  # codemod: keep
     r"^ranking\.matches_per_batch: renamed to ranking\.matches_per_round"),  # codemod: keep
    ("ranking.strategy=uncertainty", r"^ranking\.strategy: renamed to ranking\.pairing"),  # codemod: keep
    ("ranking.pairing=seed", r"^ranking\.pairing=seed: renamed to elo_buckets"),  # codemod: keep
    ("evolution.strategies=[combine]", r"^evolution\.strategies: renamed to evolution\.modes"),  # codemod: keep
    ("agents.supervisor.modes.parse_goal.tier=mini",  # codemod: keep
     r"^agents\.supervisor: renamed to agents\.goal_parsing "  # codemod: keep
     r"\(set agents\.goal_parsing\.modes\.parse_goal\.tier"),
]


@pytest.mark.parametrize(("override", "message"), OLD_OVERRIDES, ids=[o for o, _ in OLD_OVERRIDES])
def test_an_old_name_is_refused_in_one_line(override: str, message: str) -> None:
    with pytest.raises(ConfigError, match=message) as err:
        compose([override])
    assert "\n" not in str(err.value)


def test_an_old_value_in_a_composed_config_is_refused_too() -> None:
    data = json.loads(validate(compose([])).model_dump_json())
    data["ranking"]["pairing"] = "seed"  # an experiment file written before the rename
    with pytest.raises(ConfigError, match=r"ranking\.pairing=seed: renamed to elo_buckets"):
        validate(data)
    data = json.loads(validate(compose([])).model_dump_json())
    data["agents"]["supervisor"] = data["agents"].pop("goal_parsing")  # codemod: keep
    with pytest.raises(ConfigError, match=r"agents\.supervisor: renamed to agents\.goal_parsing"):  # codemod: keep
        validate(data)


def test_a_snapshot_frozen_before_the_vocabulary_renames_carries_over(tmp_path: Path) -> None:
    today = json.loads(validate(compose(["experiment=demo", "ranking.pairing=elo_buckets"])).model_dump_json())
    old = json.loads(json.dumps(today))
    old["run"]["max_ideas"] = old["run"].pop("max_hypotheses")  # codemod: keep
    old["ranking"]["matches_per_batch"] = old["ranking"].pop("matches_per_round")  # codemod: keep
    old["ranking"]["strategy"] = "seed"  # codemod: keep
    del old["ranking"]["pairing"]
    old["evolution"]["strategies"] = old["evolution"].pop("modes")  # codemod: keep
    termination = old["termination"]
    termination["min_ideas_before_stable"] = termination.pop("min_hypotheses_before_stable")  # codemod: keep
    old["agents"]["supervisor"] = old["agents"].pop("goal_parsing")  # codemod: keep
    assert carry_over(old) == today
    config = frozen_config(old, tmp_path, ["run.max_hypotheses=7"])
    assert (config.run.max_hypotheses, config.ranking.pairing) == (7, "elo_buckets")
    assert "goal_parsing" in config.agents and "supervisor" not in config.agents
    for override in ("run.max_ideas=7", "ranking.pairing=seed"):  # codemod: keep
        with pytest.raises(ConfigError, match="renamed to"):
            frozen_config(old, tmp_path, [override])


def test_a_debate_mode_takes_no_iterations_and_a_tool_loop_needs_them() -> None:
    """Debate turns have one bound, ``debate.max_turns``; a tool-loop mode without its bound is refused."""
    data = json.loads(validate(compose([])).model_dump_json())
    assert data["agents"]["ranking"]["modes"]["debate"]["max_iterations"] is None
    validate(data)  # the dumped null is no old key
    data["agents"]["ranking"]["modes"]["debate"]["max_iterations"] = 12
    with pytest.raises(ConfigError, match=r"agents\.ranking\.modes\.debate\.max_iterations: removed"):
        validate(data)
    del data["agents"]["ranking"]["modes"]["debate"]["max_iterations"]
    del data["agents"]["reflection"]["modes"]["full"]["max_iterations"]
    with pytest.raises(ConfigError, match=r"modes\.full\.max_iterations is required"):
        validate(data)


def test_a_session_frozen_without_the_added_keys_resumes_with_their_values(tmp_path: Path) -> None:
    """The schema has no defaults for the ranking keys (conf/ is their one place): a snapshot frozen before a key
    existed gets the value of ``ADDED``."""
    old = json.loads(validate(compose(["experiment=demo"])).model_dump_json())
    for key in ADDED:
        *path, leaf = key.split(".")
        node = old
        for part in path:
            node = node[part]
        node.pop(leaf, None)
    config = frozen_config(old, tmp_path)
    assert (config.ranking.batch, config.ranking.top_k, config.ranking.pairing) == (False, 5, "uncertainty")
