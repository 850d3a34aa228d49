"""A library call prints nothing unless asked (fresh-user report: ``cosci.api.run(..., ui=False)`` printed the
terminal summary): ``ui=False`` returns the summary with nothing on stdout or stderr, and ``ui=True`` (the command
line's) prints it. The engine's flow is replaced by one returning a summary: what is checked is what the service and
the launcher print around it, offline, without a Prefect server (design.md#service)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

import flows.launch as launch
import flows.session
from cosci import api
from cosci.config.schema import CosciConfig
from cosci.llm.fake.provider import FakeBackend
from tests.conftest import FAST
from tests.test_cli import open_only

GOAL = "Which repurposed drugs could restore cytarabine sensitivity in acute myeloid leukaemia blasts?"


@pytest.fixture
def engine(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> dict[str, Any]:
    """The launcher with no Prefect server and a flow that returns a finished summary; what the flow was given."""
    given: dict[str, Any] = {}
    monkeypatch.setattr(launch, "prepare", lambda data_dir: tmp_path)
    monkeypatch.setattr(launch, "ensure_server", lambda home, **kw: None)
    monkeypatch.setattr(launch, "server_ready", lambda: None)
    monkeypatch.setattr(launch, "load_screen", lambda config: None)
    monkeypatch.setattr(launch.warm, "start", lambda: None)

    async def flow(config_data: dict[str, Any], overrides: list[str], models_choice: str,
                   resume_id: str | None = None, ui: bool = False, estimate: str | None = None) -> dict[str, Any]:
        given.update(ui=ui, estimate=estimate, resume_id=resume_id)
        return {"session_id": resume_id or "s-20261206-000000-abcdef", "stop_reason": "idle", "spent_usd": 0.01,
                "tokens": 100, "hypotheses": 2, "matches": 1, "top_elo": 1210.0, "elapsed_seconds": 3.0,
                "overview_path": str(tmp_path / "overview.md"), "store_path": str(tmp_path / "store.sqlite"),
                "mlflow_run_id": None}

    monkeypatch.setattr(flows.session, "session_flow", flow)
    return given


@pytest.mark.parametrize("ui", [False, True])
def test_run_prints_its_summary_only_when_asked(engine: dict[str, Any], fake: FakeBackend, tmp_path: Path,
                                                capsys: pytest.CaptureFixture[str], ui: bool) -> None:
    checked = api.preflight(api.prepare(GOAL, FAST, data_dir=tmp_path / "data"))
    capsys.readouterr()
    summary = api.run(checked, ui=ui)
    out, err = capsys.readouterr()
    assert summary.session_id == "s-20261206-000000-abcdef" and summary.hypotheses == 2
    if ui:
        assert out.startswith("session   s-20261206-000000-abcdef\n") and engine["estimate"].startswith("estimated")
    else:
        assert (out, err) == ("", "") and engine == {"ui": False, "estimate": None, "resume_id": None}


async def test_resume_passes_ui_on(config: CosciConfig, fake: FakeBackend, monkeypatch: pytest.MonkeyPatch) -> None:
    """``Session.resume(ui=False)`` runs the session as :func:`cosci.api.run` with ``ui=False`` does."""
    sid = await open_only(config)
    started: list[dict[str, Any]] = []
    monkeypatch.setattr("flows.launch.run_session", lambda *a, **kw: started.append(kw))
    api.open(sid, config.paths.data_dir).resume(ui=False)
    api.open(sid, config.paths.data_dir).resume()
    assert [kw["ui"] for kw in started] == [False, True]
