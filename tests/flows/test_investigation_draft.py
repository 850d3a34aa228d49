"""The acceptance of ``cosci investigate draft`` (docs/design.md#draft): on the scripted fake, a short brief for a
numeric optimisation task becomes a folder that passes ``cosci investigate check`` and runs one cycle of
``cosci investigate run``."""

from __future__ import annotations

from pathlib import Path

import pytest

from cosci.cli import main
from cosci.sandbox.bwrap import probe
from flows.investigation_launch import run

pytestmark = [pytest.mark.slow, pytest.mark.skipif(probe() is None, reason="bubblewrap cannot build a sandbox here")]
BRIEF = ("# Line fit\n- Minimise the mean squared error `mse` of a straight line fitted to points by gradient "
         "descent.\n- The final score is measured on points the search never saw.\n")


def test_a_drafted_task_passes_check_and_runs_one_cycle(prefect_server: None, fake: object, tmp_path: Path,
                                                        monkeypatch: pytest.MonkeyPatch,
                                                        capsys: pytest.CaptureFixture[str]) -> None:
    from prefect.settings import PREFECT_API_URL

    monkeypatch.setenv("PREFECT_API_URL", str(PREFECT_API_URL.value()))
    (tmp_path / "brief.md").write_text(BRIEF)
    data, task = tmp_path / "data", tmp_path / "task"
    main(["--data-dir", str(data), "investigate", "draft", "--brief", str(tmp_path / "brief.md"), "--out", str(task),
          "models=fake"])
    assert "status       passes the check and the alignment judge" in capsys.readouterr().out
    main(["investigate", "check", str(task)])
    out = capsys.readouterr().out.strip()
    assert out == "check: task passes (contract, and both evaluators on the initial program)"
    summary = run(task, ["models=fake", f"paths.data_dir={data}", "investigation.cycles=1", "investigation.workers=1",
                         "evidence.seeds=2", "tracking.enabled=false"])
    assert summary["cycles_run"] == 1 and summary["selected"]["score"] is not None
