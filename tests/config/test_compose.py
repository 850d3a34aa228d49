"""Every experiment composes and validates with every models option; bad overrides give one clear line (issue 2)."""

from __future__ import annotations

import os
import sys
from collections.abc import Callable
from pathlib import Path
from typing import NamedTuple

import pytest

from cosci.config.load import ConfigError, compose, validate
from cosci.paths import conf_dir

EXPERIMENTS = sorted(p.stem for p in (conf_dir() / "experiment").glob("*.yaml"))
MODELS = sorted(p.stem for p in (conf_dir() / "models").glob("*.yaml"))


def test_the_config_tree_has_what_the_issue_names() -> None:
    assert {"oncology", "liver_fibrosis", "amr", "demo"} <= set(EXPERIMENTS)
    assert {"local", "opus", "sonnet", "openai", "gemini", "openrouter", "ollama", "fake"} <= set(MODELS)


@pytest.mark.parametrize("experiment", EXPERIMENTS)
@pytest.mark.parametrize("models", MODELS)
def test_every_experiment_with_every_models_option(experiment: str, models: str) -> None:
    config = validate(compose([f"experiment={experiment}", f"models={models}"]), require_goal=True)
    assert config.session.goal and config.session.name == experiment
    assert config.models.name == models
    for agent, acfg in config.agents.items():
        for mode in acfg.modes:
            assert config.tier_of(agent, mode) in config.models.tiers


def test_defaults_follow_the_seeds() -> None:
    c = validate(compose([]))
    assert (c.run.concurrency, c.run.max_hypotheses, c.run.wall_clock_seconds, c.run.budget_usd) == (4, 60, 7200, 25.0)
    assert (c.ranking.elo_initial, c.ranking.k_factor_new, c.ranking.k_factor_warm) == (1200, 32, 16)
    assert (c.termination.elo_stability_k, c.termination.elo_stability_n, c.termination.elo_stability_eps) == (
        5,
        3,
        25.0,
    )
    assert (c.evolution.min_mature, c.evolution.top_k, c.vectors.dedup_cosine_threshold) == (20, 5, 0.92)
    assert c.models.name == "local" and c.run.n_initial == 3
    shares = {a: cfg.budget_share for a, cfg in c.agents.items()}
    assert shares == {
        "goal_parsing": 0.0,
        "generation": 0.2,
        "reflection": 0.2,
        "ranking": 0.25,
        "evolution": 0.15,
        "metareview": 0.1,
        "proximity": 0.02,
        "safety": 0.0,  # issue 15: the classifier draws on the reserve
    }
    assert c.budget.reserve_share == 0.08
    assert c.safety is not None and c.safety.enabled and c.tier_of("safety", "classify") == "mini"
    assert c.agents["ranking"].tools == [] and "pubmed_search" in c.agents["generation"].tools


def test_opus_routes_generation_to_an_opus_model_with_thinking() -> None:
    from cosci.llm.gateway.routing import Router

    c = validate(compose(["experiment=oncology", "models=opus"]))
    route = Router(c).route("generation", "literature")
    assert route.model.startswith("anthropic/claude-opus") and route.thinking_tokens == 4000
    assert Router(c).route("ranking", "pairwise").thinking_tokens == 0  # Sonnet-class: no thinking (seed 001)
    assert "acute myeloid leukemia" in c.session.goal.lower()


def test_a_models_choice_on_the_command_line_wins_over_the_experiment() -> None:
    assert validate(compose(["experiment=demo"])).models.name == "local"
    assert validate(compose(["experiment=demo", "models=sonnet"])).models.name == "sonnet"


@pytest.mark.parametrize(
    ("override", "needle"),
    [
        ("run.budget_usd=-1", "run.budget_usd"),
        ("agents.generation.budget_share=0.5", "budget_share"),
        ("run.concurrency=0", "run.concurrency"),
        ("vectors.dedup_cosine_threshold=1.5", "vectors.dedup_cosine_threshold"),
        ("agents.reflection.modes.full.thinking_tokens=5000", "thinking_tokens"),
        ("agents.generation.modes.literature.tier=ultra", "tier"),
        ("+run.foo=1", "run.foo"),
        ("run.foo=1", "run.foo"),
        ("models=nope", "models"),
        ("run.seed=[1", "override 'run.seed=[1'"),  # a grammar error names the override, not only a token
        ("run.max_hypotheses=(", "override 'run.max_hypotheses=('"),
        ("ranking.judges=[cheap,nosuch]", "ranking.judges"),
    ],
)
def test_bad_overrides_raise_one_line(override: str, needle: str) -> None:
    with pytest.raises(ConfigError) as err:
        validate(compose(["experiment=demo", override]), require_goal=True)
    message = str(err.value)
    assert needle in message and "\n" not in message


@pytest.mark.parametrize("value", ["my lab", "a/b", ".hidden", "x" * 65, "true", "[a,b]"])
def test_a_bad_project_name_is_one_readable_line(value: str) -> None:
    with pytest.raises(ConfigError) as err:
        validate(compose(["experiment=demo", f"session.project={value}"]), require_goal=True)
    message = str(err.value)
    assert message.startswith("session.project: ") and "is not a project name: use 1-64 letters, digits" in message
    assert "\n" not in message and "pattern" not in message and "[A-Za-z" not in message


def test_a_project_named_by_a_number_is_its_digits() -> None:
    assert validate(compose(["experiment=demo", "session.project=2026"])).session.project == "2026"


def test_a_missing_goal_is_named() -> None:
    with pytest.raises(ConfigError, match=r"session\.goal"):
        validate(compose([]), require_goal=True)


class Ran(NamedTuple):
    returncode: int
    stdout: str
    stderr: str


@pytest.fixture
def entry(tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch) -> Callable[..., Ran]:
    """``python -m cosci.run *args`` as a terminal runs it from ``tmp_path`` (no API keys, the data folder in
    ``COSCI_DATA_DIR``), called in this process (``cosci.run.main``): exit code, stdout, stderr. Each had a process of
    its own, about 1.2 s of test time apiece (docs/development.md, test time, seventh pass); the entry point's own
    process refusing a command line: tests/test_sweeps.py and tests/test_launchers.py (exit 2, one line)."""
    from cosci.run import main

    for name in [k for k in os.environ if k.endswith("_API_KEY")]:
        monkeypatch.delenv(name)
    monkeypatch.delenv("PREFECT_HOME", raising=False)  # as in a terminal: the run's Prefect home is in `data`
    monkeypatch.setenv("COSCI_DATA_DIR", str(tmp_path / "data"))
    for name, value in (("HYDRA_FULL_ERROR", "1"), ("MLFLOW_LOGGING_LEVEL", "WARNING")):
        monkeypatch.setenv(name, value)  # main sets them: undone after the test
    monkeypatch.setattr(sys, "argv", [sys.argv[0]])  # main rewrites it for Hydra
    monkeypatch.chdir(tmp_path)

    def run(*args: str) -> Ran:
        capsys.readouterr()
        try:
            main(list(args))
            code = 0
        except SystemExit as exc:
            code = int(exc.code or 0)
        out, err = capsys.readouterr()
        return Ran(code, out, err)

    return run


@pytest.mark.parametrize(
    "override",
    [
        "run.budget_usd=-1",
        "agents.generation.budget_share=0.5",
        "models=nope",
        "run.concurrency=0",
        "vectors.dedup_cosine_threshold=1.5",
        "foo=1",
        "ranking.judges=[cheap,nosuch]",
    ],
)
def test_the_entry_point_rejects_bad_overrides_with_one_line_and_writes_nothing(
        override: str, tmp_path: Path, entry: Callable[..., Ran], monkeypatch: pytest.MonkeyPatch) -> None:
    if override != "run.concurrency=0":  # one refusal with the early server of a data folder found in the
        # environment; the others name a server nothing answers, so none boots: the same drop for any refusal
        # (tests/reliability/test_bad_input.py EARLY_SERVER; docs/development.md, test time, ninth pass)
        monkeypatch.setenv("PREFECT_API_URL", "http://127.0.0.1:9/api")
    result = entry("experiment=demo", override)
    assert result.returncode == 2
    lines = [ln for ln in result.stderr.splitlines() if ln.strip()]
    assert len(lines) == 1 and lines[0].startswith("cosci: "), result.stderr
    assert "Traceback" not in result.stderr
    assert list(tmp_path.iterdir()) == [], "something was written"


def test_a_missing_api_key_fails_at_once_naming_the_variable(tmp_path: Path, entry: Callable[..., Ran]) -> None:
    result = entry("experiment=oncology", "models=opus")
    assert result.returncode == 2
    assert result.stderr.strip().count("\n") == 0 and "ANTHROPIC_API_KEY" in result.stderr
    assert list(tmp_path.iterdir()) == []


def test_cfg_job_prints_the_composed_config(entry: Callable[..., Ran]) -> None:
    result = entry("--cfg", "job", "experiment=oncology", "models=opus")
    assert result.returncode == 0, result.stderr
    assert "anthropic/claude-opus" in result.stdout and "acute myeloid leukemia" in result.stdout.lower()
    sonnet = entry("--cfg", "job", "experiment=demo", "models=sonnet")
    assert "name: sonnet" in sonnet.stdout


@pytest.mark.parametrize("corpus", ["/nonexistent/corpus.jsonl", "bad"])
def test_a_bad_corpus_is_refused_before_anything_runs(corpus: str, tmp_path: Path, entry: Callable[..., Ran]) -> None:
    if corpus == "bad":
        corpus = str(tmp_path.parent / "not_a_corpus.pdf")  # a text file is a corpus document now; this is no PDF
        Path(corpus).write_text("just some text\n")
    result = entry("experiment=demo", f"session.corpus_path={corpus}")
    assert result.returncode == 2 and "session.corpus_path" in result.stderr
    assert result.stderr.strip().count("\n") == 0 and "Traceback" not in result.stderr
    assert list(tmp_path.iterdir()) == []


def test_resuming_an_unknown_session_is_one_line(entry: Callable[..., Ran]) -> None:
    result = entry("session.resume=s-nope")
    assert result.returncode == 2 and "no session 's-nope'" in result.stderr
    assert result.stderr.strip().count("\n") == 0


@pytest.mark.parametrize("experiment", EXPERIMENTS)
def test_an_experiment_keeps_its_preferences_for_its_own_goal(experiment: str) -> None:
    config = validate(compose([f"experiment={experiment}"]), require_goal=True)
    assert config.session.preferences and config.session.preferences == config.session.preset_preferences


def test_another_goal_drops_the_experiments_preferences(tmp_path: Path) -> None:
    """`cosci run --goal ... experiment=demo` keeps the demo's schedule, not its leukemia preferences."""
    cfg = compose(["experiment=demo"])
    cfg.session.goal = "Identify drug targets in Mycobacterium tuberculosis persisters."
    assert validate(cfg, require_goal=True).session.preferences == []
    goal = tmp_path / "goal.txt"  # a goal file is read before the comparison
    goal.write_text("Which host factors limit measles vaccine stability at room temperature?", encoding="utf-8")
    config = validate(compose(["experiment=demo", f"session.goal_file={goal}"]), require_goal=True)
    assert config.session.preferences == []


def test_preferences_the_user_gives_are_kept_with_another_goal() -> None:
    cfg = compose(["experiment=demo", "session.preferences=[Prefer oral drugs]"])
    cfg.session.goal = "Identify drug targets in Mycobacterium tuberculosis persisters."
    assert validate(cfg, require_goal=True).session.preferences == ["Prefer oral drugs"]
    same = compose(["experiment=demo"])  # the experiment's own goal, re-wrapped, is the same goal
    same.session.goal = " ".join(str(same.session.goal).split()) + "\n"
    assert validate(same, require_goal=True).session.preferences == list(same.session.preset_preferences)
