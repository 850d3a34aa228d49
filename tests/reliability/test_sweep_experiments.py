"""A sweep over experiments keeps its children (issue 12): the parent sits in the first experiment's MLflow
experiment, each session in its own; the summary and `cosci compare --parent` find them by the parent-run tag."""

from __future__ import annotations

from pathlib import Path

import pytest
from mlflow.tracking import MlflowClient

from tests.test_sweeps import _cosci

pytestmark = pytest.mark.slow


def test_a_sweep_over_experiments_finds_its_children(tmp_path: Path) -> None:
    result = _cosci(["-m", "experiment=demo,amr", "models=fake", "tools.offline=true", "run.max_hypotheses=4"],
                    tmp_path)
    assert result.returncode == 0, result.stderr[-3000:]
    assert "with 2 sessions" in result.stdout, result.stdout[-2000:]
    client = MlflowClient(f"sqlite:///{tmp_path / 'data' / 'mlflow.db'}")
    parents = [r for e in client.search_experiments() for r in client.search_runs([e.experiment_id])
               if r.data.tags.get("cosci.sweep") == "true"]
    assert len(parents) == 1
    parent = parents[0].info.run_id
    shown = _cosci(["--data-dir", str(tmp_path / "data"), "compare", "--parent", parent, "--out",
                    str(tmp_path / "compare")], tmp_path, module="cosci.cli")
    assert shown.returncode == 0, shown.stderr
    assert len([ln for ln in shown.stdout.splitlines() if ln.startswith("│ s-")]) == 2
    from cosci.tracking.sweeps import child_runs

    experiments = {client.get_experiment(r.info.experiment_id).name for r in child_runs(client, parent)}
    assert experiments == {"demo", "amr"}
