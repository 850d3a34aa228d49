"""``python -m cosci.run`` boots its Prefect server before the config is composed (design.md#startup), for the data
folder every command finds when its Prefect home is new; a refused command line stops it and leaves no folder
behind, and a config naming another data folder gets a server there instead."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest

from cosci import run as run_module
from cosci.config.load import ConfigError
from flows import server as server_module


class FakeServerProcess:
    """Stands for the uvicorn process: running until terminated."""

    def __init__(self, args: list[str], env: dict[str, str], **_kwargs: Any) -> None:
        self.home = Path(env["PREFECT_HOME"])
        self.running = True

    def poll(self) -> int | None:
        return None if self.running else 0

    def terminate(self) -> None:
        self.running = False

    kill = terminate

    def wait(self, timeout: float | None = None) -> int:
        return 0


@pytest.fixture
def launched(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> list[FakeServerProcess]:
    """Every server process started (none really is), in a working folder with no layer files and no server."""
    started: list[FakeServerProcess] = []

    def popen(*args: Any, **kwargs: Any) -> FakeServerProcess:
        started.append(FakeServerProcess(*args, **kwargs))
        return started[-1]

    monkeypatch.setattr(server_module.subprocess, "Popen", popen)
    monkeypatch.setattr(server_module, "_SERVER", None)
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "xdg"))
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    for name in ("PREFECT_API_URL", "PREFECT_HOME", "COSCI_DATA_DIR"):  # set first: restored as they were
        monkeypatch.setenv(name, "")
        monkeypatch.delenv(name)
    return started


def test_the_server_boots_before_the_config_is_validated_and_a_refusal_takes_it_back(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, launched: list[FakeServerProcess]) -> None:
    data = tmp_path / "data"
    seen: dict[str, Any] = {}

    def refusing(overrides: list[str], multirun: bool) -> list[Any]:
        seen["url"] = os.environ.get("PREFECT_API_URL")
        seen["home"] = [p.home for p in launched]
        raise ConfigError("run.budget_usd: must be positive")

    monkeypatch.setattr(run_module, "prevalidate", refusing)
    with pytest.raises(SystemExit) as ended:
        run_module.main(["experiment=demo", "models=fake", f"paths.data_dir={data}", "run.budget_usd=-1"])
    assert ended.value.code == 2
    assert seen["url"] and seen["home"] == [data / "prefect"]  # booted while the config was being validated
    assert not launched[0].running  # stopped with the refusal
    assert not data.exists()  # the folders its boot made are gone: bad input leaves nothing behind
    assert "PREFECT_API_URL" not in os.environ and "PREFECT_HOME" not in os.environ


def test_the_early_server_is_kept_for_its_data_folder_and_replaced_for_another(
        tmp_path: Path, launched: list[FakeServerProcess]) -> None:
    guessed, named = tmp_path / "guessed", tmp_path / "named"
    early = run_module.boot_early(["experiment=demo", f"paths.data_dir={guessed}"])
    assert early is not None and early.data_dir == guessed and len(launched) == 1
    kept = run_module._keep_early(early, SimpleNamespace(paths=SimpleNamespace(data_dir=guessed)))  # type: ignore[arg-type]
    assert kept == [guessed, guessed / "prefect", guessed / "hydra"] and len(launched) == 1  # no second boot
    assert launched[0].running

    # a config naming another folder (an experiment's own paths.data_dir): that server goes, one boots there
    run_module._keep_early(early, SimpleNamespace(paths=SimpleNamespace(data_dir=named)))  # type: ignore[arg-type]
    assert not launched[0].running and not guessed.exists()
    assert len(launched) == 2 and launched[1].home == named / "prefect" and launched[1].running
    assert os.environ["PREFECT_HOME"] == str(named / "prefect")
    server_module.stop_server(within=[named])


def test_no_early_boot_in_a_used_prefect_home_nor_for_a_resume_a_users_server_or_an_interpolation(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, launched: list[FakeServerProcess]) -> None:
    assert run_module.boot_early(["session.resume=s-1"]) is None  # its lock comes first (flows.launch)
    assert run_module.boot_early(["paths.data_dir=${oc.env:HOME}/x"]) is None
    (tmp_path / "used" / "prefect").mkdir(parents=True)  # a server there could write before a refusal
    assert run_module.boot_early([f"paths.data_dir={tmp_path / 'used'}"]) is None
    monkeypatch.setenv("PREFECT_API_URL", "http://127.0.0.1:4200/api")
    assert run_module.boot_early([f"paths.data_dir={tmp_path / 'd'}"]) is None
    assert launched == [] and not (tmp_path / "d").exists()


def test_the_data_folder_of_the_environment_is_the_one_booted(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, launched: list[FakeServerProcess]) -> None:
    monkeypatch.setenv("COSCI_DATA_DIR", str(tmp_path / "env-data"))
    early = run_module.boot_early(["experiment=demo"])
    assert early is not None and early.data_dir == tmp_path / "env-data"
    assert launched[0].home == tmp_path / "env-data" / "prefect"
    early.drop()
    assert not (tmp_path / "env-data").exists() and not launched[0].running


def test_a_dropped_server_is_killed_at_once_not_waited_for(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                           launched: list[FakeServerProcess]) -> None:
    """uvicorn holds a SIGTERM until the app's start-up is over (seconds of Prefect's): a refused run waited out
    a 2 s grace for a server whose home it deletes next (flows.server.stop_server)."""
    waited: list[float | None] = []

    def wait(self: FakeServerProcess, timeout: float | None = None) -> int:
        waited.append(timeout)
        if self.running and timeout is not None:
            raise subprocess.TimeoutExpired("uvicorn", timeout)
        return 0

    monkeypatch.setattr(FakeServerProcess, "terminate", lambda self: None)  # held: the app is still starting
    monkeypatch.setattr(FakeServerProcess, "kill", lambda self: setattr(self, "running", False))
    monkeypatch.setattr(FakeServerProcess, "wait", wait)
    early = run_module.boot_early(["experiment=demo", f"paths.data_dir={tmp_path / 'data'}"])
    assert early is not None
    early.drop()
    assert not launched[0].running and not (tmp_path / "data").exists()
    assert all(not timeout for timeout in waited), waited  # no grace waited out
