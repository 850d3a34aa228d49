"""Researcher commands import what they use (issue 46): ``cosci rate`` and ``cosci result`` on a stopped session
in no project load neither the session runtime nor LiteLLM, Prefect, MLflow or scikit-learn (the project sync
imported the runtime, and with it the gateway and the batch gateway: 10.7 s of a 12.8 s ``cosci rate``), nor Hydra
and OmegaConf (a stopped session's frozen config is plain data), faiss (the agents' base) or httpx (the MLflow
server probe); ``status`` and ``list`` neither (design.md#startup)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from tests.store.rows import session_with

ROOT = Path(__file__).resolve().parents[2]
HEAVY = ("cosci.session.runtime", "cosci.llm.gateway.adapter", "litellm", "prefect", "mlflow", "sklearn", "hydra",
         "omegaconf", "faiss", "httpx")


def loaded_after(*argv: str) -> tuple[int, set[str]]:
    """Run ``cosci <argv>`` in a new process; returns its exit status and which of :data:`HEAVY` it loaded."""
    code = ("import json, sys\nfrom cosci.cli import main\nstatus = 0\ntry:\n    main(sys.argv[1:])\n"
            "except SystemExit as exc:\n    status = exc.code or 0\n"
            f"print(json.dumps([status, [m for m in {HEAVY!r} if m in sys.modules]]))")
    out = subprocess.run([sys.executable, "-c", code, *argv], cwd=ROOT, capture_output=True, text=True, timeout=300,
                         env={**os.environ, "PYTHONPATH": str(ROOT)})
    status, loaded = json.loads(out.stdout.strip().splitlines()[-1])
    return status, set(loaded)


@pytest.mark.parametrize("command", ["rate", "result"])
def test_a_rating_or_result_on_a_session_in_no_project_loads_no_framework(tmp_path: Path, command: str) -> None:
    data = tmp_path / "data"
    sid, (a, b) = session_with(data, ("Metformin depletes leukemic stem cells", "Itraconazole blocks SMO"))
    args = [a, b, "--prefer", "a"] if command == "rate" else [a, "--outcome", "inconclusive"]
    status, loaded = loaded_after("--data-dir", str(data), command, sid, *args)
    assert status == 0
    assert loaded == set()


@pytest.mark.parametrize("command", ["status", "list"])
def test_status_and_list_on_a_stopped_session_load_no_framework(tmp_path: Path, command: str) -> None:
    data = tmp_path / "data"
    sid, _ = session_with(data, ("Metformin depletes leukemic stem cells", "Itraconazole blocks SMO"))
    status, loaded = loaded_after("--data-dir", str(data), command, *([sid] if command == "status" else []))
    assert status == 0
    assert loaded == set()
