"""Configuration layers (cosci/config/layers.py, docs/configuration.md#groups-and-layers): the user's file and the
project's ``./cosci.yaml`` lie under the command line; a secret written in either is refused in one line."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from cosci.config.layers import looks_secret, user_file
from cosci.config.load import ConfigError, compose, hydra_argv, validate
from cosci.run import main

BASE = ["experiment=demo", "models=fake"]


@pytest.fixture
def project(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A project folder as the working directory, and an empty user config folder (never the developer's)."""
    folder = tmp_path / "project"
    folder.mkdir()
    monkeypatch.chdir(folder)
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "xdg"))
    return folder


def write_user(text: str) -> Path:
    path = user_file()
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
    return path


def test_the_user_file_honours_xdg_config_home_and_falls_back_to_home() -> None:
    assert user_file({"XDG_CONFIG_HOME": "/x", "HOME": "/h"}) == Path("/x/cosci/config.yaml")
    assert user_file({"XDG_CONFIG_HOME": "", "HOME": "/h"}) == Path("/h/.config/cosci/config.yaml")


def test_a_project_file_sets_the_budget_over_the_experiment(project: Path) -> None:
    """The demo experiment sets run.budget_usd=1.0; the project's file is above it."""
    assert validate(compose(BASE)).run.budget_usd == 1.0
    (project / "cosci.yaml").write_text("run:\n  budget_usd: 3.5\n", encoding="utf-8")
    assert validate(compose(BASE)).run.budget_usd == 3.5


def test_the_command_line_beats_the_project_file_which_beats_the_user_file(project: Path) -> None:
    write_user("run: {budget_usd: 9.0, seed: 7}\ntools: offline\n")
    (project / "cosci.yaml").write_text("run.budget_usd: 3.5\nranking: {top_k: 8}\n", encoding="utf-8")
    config = validate(compose(BASE))
    assert (config.run.budget_usd, config.run.seed, config.tools.offline, config.ranking.top_k) == (3.5, 7, True, 8)
    config = validate(compose([*BASE, "run.budget_usd=2.25", "tools=default"]))
    assert (config.run.budget_usd, config.run.seed, config.tools.offline) == (2.25, 7, False)


def test_a_layer_chooses_a_group_option_and_a_command_line_choice_wins(project: Path) -> None:
    (project / "cosci.yaml").write_text("ranking: thorough\n", encoding="utf-8")
    assert validate(compose([])).ranking.dual_order == "close"
    assert validate(compose(["ranking=quick"])).ranking.max_matches_per_pair == 2


def test_python_m_cosci_run_composes_the_layers_under_its_command_line(project: Path) -> None:
    (project / "cosci.yaml").write_text("run: {budget_usd: 3.5}\nranking: thorough\n", encoding="utf-8")
    argv = hydra_argv(["-m", *BASE, "run.seed=1,2"])
    assert argv == ["-m", "run.budget_usd=3.5", "ranking=thorough", *BASE, "run.seed=1,2"]
    assert hydra_argv(["--cfg", "job", *BASE, "run.budget_usd=2"])[-1] == "run.budget_usd=2"
    assert "run.budget_usd=3.5" not in hydra_argv([*BASE, "run.budget_usd=2"])


@pytest.mark.parametrize("text", [
    "models: {tiers: {strong: {api_key: sk-proj-Abc123def456ghi789}}}",
    "openai_api_key: not-even-shaped-like-one",
    "tools: {apis: {crossref_mailto: ghp_0123456789abcdefABCDEF0123456789abcd}}",
    "tracking: {tracking_uri: 'https://bob:hunter2@mlflow.example.org'}",
    "hf_token: abc",
    "session: {background: 'our NCBI key is 0123456789abcdef0123456789abcdef0123'}",
])
def test_a_secret_in_the_project_file_is_refused_in_one_line_naming_file_and_key(project: Path, text: str) -> None:
    (project / "cosci.yaml").write_text(text + "\n", encoding="utf-8")
    with pytest.raises(ConfigError) as err:
        compose(BASE)
    line = str(err.value)
    assert "\n" not in line and line.startswith(f"{project / 'cosci.yaml'}: ") and "secret" in line
    assert "hunter2" not in line and "sk-proj" not in line and "0123456789abcdef" not in line


@pytest.mark.parametrize(("key", "value"), [
    ("models.tiers.strong.api_key_env", "OPENAI_API_KEY"), ("run.budget_tokens", 100000),
    ("retry.first_token_seconds", 60.0), ("models.tiers.strong.model", "anthropic/claude-sonnet-4-5-20250929"),
    ("session.goal", "Suggest approved drugs to repurpose for acute myeloid leukemia"),
    ("session.resume", "s-20261205-061500-a1b2c3"), ("paths.data_dir", "/home/me/data"),
    ("models.tiers.strong.api_key", None),
])
def test_what_is_not_a_secret_passes(key: str, value: object) -> None:
    assert not looks_secret(key, value)


def test_a_secret_in_the_user_file_stops_python_m_cosci_run_and_nothing_is_written(
        project: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = write_user("models:\n  tiers:\n    cheap:\n      anthropic_api_key: sk-ant-api03-Zx9Yw8Vu7Ts6Rq5Po4\n")
    data = project / "data"
    with pytest.raises(SystemExit) as exit_:
        main([*BASE, f"paths.data_dir={data}"])
    err = capsys.readouterr().err
    assert exit_.value.code == 2 and err.count("\n") == 1
    assert err.startswith(f"cosci: {path}: models.tiers.cheap.anthropic_api_key: looks like a secret"), err
    assert "sk-ant" not in err and not data.exists()


@pytest.mark.parametrize(("text", "says"), [
    ("run: {budget_uds: 3}\n", "run.budget_uds: unknown key"),
    ("run: {budget_usd: -3}\n", "run.budget_usd: Input should be greater than 0"),
    ("ranking: thorugh\n", "ranking=thorugh: no such choice in the group 'ranking'"),
    ("run: {max_ideas: 5}\n", "run.max_ideas: renamed to run.max_hypotheses"),
    ("- run.budget_usd=3\n", "must hold a mapping"),
    ("defaults: [{ranking: quick}]\n", "defaults: not read from a layer"),
])
def test_a_bad_layer_file_is_one_line_naming_it(project: Path, text: str, says: str) -> None:
    (project / "cosci.yaml").write_text(text, encoding="utf-8")
    with pytest.raises(ConfigError) as err:
        validate(compose(BASE))
    assert "\n" not in str(err.value) and str(err.value).startswith(f"{project / 'cosci.yaml'}: ")
    assert says in str(err.value)


def test_a_value_hydra_would_misread_reaches_the_config_unchanged(project: Path) -> None:
    goal = "Why do AML blasts resist cytarabine, and how can we overcome it? (BCL-2 & MCL-1; don't stop.) \\"
    (project / "cosci.yaml").write_text(f"session:\n  goal: {goal!r}\n  preferences: ['1', 'a, b']\n",
                                        encoding="utf-8")
    session = validate(compose(BASE)).session
    assert session.goal == goal and session.preferences == ["1", "a, b"]


def test_a_run_from_the_project_folder_stores_where_it_says_and_freezes_the_project_budget(project: Path) -> None:
    """`python -m cosci.run experiment=demo ranking=thorough tools=offline models=fake` run in a folder whose
    ./cosci.yaml sets run.budget_usd and paths.data_dir: the session runs to the end and is stored in the project's
    data folder, not ./data; its frozen config holds the project's budget and the presets' values (a process of its
    own: the command ends the process after a run on its own server); `cosci status <id>` and `cosci list` run from
    the same folder (no --data-dir, no COSCI_DATA_DIR) find it (fresh-user report: they said "no session '<id>'
    under ./data/sessions"). One run for what were two tests, each running its own (docs/development.md, test
    time)."""
    from cosci.store import SessionStore

    (project / "cosci.yaml").write_text("run:\n  budget_usd: 3.5\npaths:\n  data_dir: elsewhere\n", encoding="utf-8")
    env = {k: v for k, v in os.environ.items() if not k.startswith(("PREFECT_", "COSCI_"))}
    env["PYTHONPATH"] = str(Path(__file__).resolve().parents[2])
    done = subprocess.run([sys.executable, "-m", "cosci.run", "experiment=demo", "ranking=thorough", "tools=offline",
                           "models=fake", "tracking=off"], cwd=project, env=env,
                          capture_output=True, text=True, timeout=600, check=False)
    assert done.returncode == 0, done.stderr[-2000:]
    stores = list((project / "elsewhere" / "sessions").glob("*/store.sqlite"))
    assert len(stores) == 1 and not (project / "data").exists()
    sid = stores[0].parent.name
    store = SessionStore.open(stores[0], sid)
    row = store.sessions.get()
    store.close()
    assert row.budget_usd == 3.5 and row.config_snapshot["run"]["budget_usd"] == 3.5
    assert row.config_snapshot["ranking"]["dual_order"] == "close" and row.config_snapshot["tools"]["offline"]
    assert row.status == "done", row.status
    for command in (["status", sid], ["list"]):
        shown = subprocess.run([sys.executable, "-m", "cosci.cli", *command], cwd=project, env=env,
                               capture_output=True, text=True, timeout=300, check=False)
        assert shown.returncode == 0 and sid in shown.stdout, (command, shown.stdout, shown.stderr)


def test_the_data_folder_is_the_flag_then_the_environment_then_the_project_then_the_user_file(
        project: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """One order for every command and for the run: --data-dir > COSCI_DATA_DIR > ./cosci.yaml > user file > ./data
    (cosci.api.data_folder; the run composes the layers, whose paths.data_dir gives way to COSCI_DATA_DIR)."""
    from cosci.api import data_folder

    monkeypatch.delenv("COSCI_DATA_DIR", raising=False)
    assert data_folder() == project / "data"
    write_user("paths.data_dir: from_user\n")
    assert data_folder() == project / "from_user" == validate(compose(BASE)).paths.data_dir
    (project / "cosci.yaml").write_text("paths: {data_dir: from_project}\n", encoding="utf-8")
    assert data_folder() == project / "from_project" == validate(compose(BASE)).paths.data_dir
    monkeypatch.setenv("COSCI_DATA_DIR", str(project / "from_env"))
    assert data_folder() == project / "from_env" == validate(compose(BASE)).paths.data_dir
    assert data_folder("flag") == project / "flag"
    assert validate(compose([*BASE, f"paths.data_dir={project / 'flag'}"])).paths.data_dir == project / "flag"


def test_an_unreadable_project_file_is_one_line_for_a_session_command(project: Path,
                                                                      monkeypatch: pytest.MonkeyPatch) -> None:
    from cosci.api import data_folder
    from cosci.errors import CosciError

    monkeypatch.delenv("COSCI_DATA_DIR", raising=False)
    (project / "cosci.yaml").write_text("paths: [\n", encoding="utf-8")
    with pytest.raises(CosciError, match=r"cosci\.yaml: cannot be read as YAML"):
        data_folder()


def test_a_goal_or_layer_file_not_in_utf8_names_the_byte_and_the_fix(project: Path) -> None:
    """Fresh-user trial: a goal file in Latin-1 said "(UnicodeDecodeError: 'utf-8' codec can't decode byte 0xe9 in
    position 12: ...)": one line naming the file, the byte's offset and line, "is not UTF-8 text" and the fix."""
    goal = project / "goal.txt"
    goal.write_bytes(b"Which soil microbes\nfix nitrogen in caf\xe9 farms?\n")
    with pytest.raises(ConfigError) as caught:
        validate(compose(["experiment=demo", f"session.goal_file={goal}"]), require_goal=True)
    assert str(caught.value) == (f"session.goal_file: {goal} is not UTF-8 text (byte 0xe9 at byte offset 39, line 2); "
                                 "re-save it as UTF-8")
    with pytest.raises(ConfigError, match=r"^session.goal_file: .*absent.txt: no such file or directory$"):
        validate(compose(["experiment=demo", f"session.goal_file={project / 'absent.txt'}"]), require_goal=True)
    (project / "cosci.yaml").write_bytes(b"run:\n  seed: 7 # caf\xe9\n")
    with pytest.raises(ConfigError) as layer:
        compose(["experiment=demo"])
    assert str(layer.value).endswith("cosci.yaml is not UTF-8 text (byte 0xe9 at byte offset 20, line 2); re-save it "
                                     "as UTF-8"), str(layer.value)
    assert "Error" not in str(layer.value)
