"""A single run's Hydra job starts as ``@hydra.main`` starts it, less the compose that only reads ``hydra.mode``
(design.md#startup): the same task config, job name, overrides, group choices and mode, and its ``.hydra`` files."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

import pytest
from hydra._internal.hydra import Hydra
from omegaconf import DictConfig, OmegaConf

from cosci import run as run_module


def test_a_single_run_s_job_is_hydra_main_s_with_one_compose_less(tmp_path: Path,
                                                                  monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "xdg"))
    seen: list[dict[str, Any]] = []

    def job(cfg: DictConfig) -> None:
        from hydra.core.hydra_config import HydraConfig

        hc = HydraConfig.get()
        seen.append({"config": OmegaConf.to_container(cfg, resolve=True), "job": hc.job.name,
                     "overrides": list(hc.overrides.task), "choices": dict(hc.runtime.choices), "mode": str(hc.mode),
                     "output": Path(hc.runtime.output_dir)})

    composed_for_mode: list[list[str]] = []
    get_mode = Hydra.get_mode

    def counting(self: Hydra, config_name: str | None, overrides: list[str]) -> Any:
        composed_for_mode.append(list(overrides))
        return get_mode(self, config_name, overrides)

    monkeypatch.setattr(run_module, "_run_job", job)
    monkeypatch.setattr(Hydra, "get_mode", counting)
    overrides = ["experiment=demo", "models=fake", "run.seed=7", f"paths.data_dir={tmp_path / 'data'}"]
    monkeypatch.setattr(sys, "argv", ["run.py", *overrides])
    run_module._job()  # @hydra.main, as a sweep (and any Hydra flag) still runs
    assert run_module.single_job(overrides)
    assert len(composed_for_mode) == 1  # @hydra.main's alone
    by_main, single = seen
    assert single["output"].parent.parent == tmp_path / "data" / "hydra"  # hydra.run.dir: data/hydra/<day>/<time>
    assert (single["output"] / ".hydra" / "config.yaml").is_file()
    assert (single["output"] / ".hydra" / "overrides.yaml").is_file()
    del by_main["output"], single["output"]
    assert single == by_main
    assert single["job"] == "run" and single["mode"] == "RunMode.RUN" and single["overrides"] == overrides
    assert single["choices"]["models"] == "fake" and single["config"]["run"]["seed"] == 7


def test_a_hydra_flag_or_mode_goes_to_hydra_main() -> None:
    assert not run_module.single_job(["models=fake", "--cfg", "job"])
    assert not run_module.single_job(["hydra.mode=MULTIRUN", "models=fake"])
