"""A step down the degradation chain (design.md#routing): printed once per pair of models, recorded on every call,
shown by ``cosci status`` and ``cosci report``; a mode that may not degrade fails in one line.

Anthropic answers the Opus tier with its recorded error envelope as a 404 ``not_found_error`` (the status and type
Anthropic documents for an unknown model) and the other tiers with the recorded tool-use body.
"""

from __future__ import annotations

import copy
import json
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest
import respx

from cosci.domain import Call
from cosci.llm import errors as E
from cosci.session.status import report_lines
from cosci.store import SessionStore
from tests.llm.helpers import WHOLE, harness, make_config, recorded, replayed_wire, spec_for

ANTHROPIC = "https://api.anthropic.com/v1/messages"
TOOL_USE = recorded("anthropic/messages_thinking_text_tool_use.json")
ERROR = recorded("errors/anthropic_400_invalid_request.json")


def answer(request: httpx.Request) -> httpx.Response:
    body = json.loads(request.content)
    if body["model"] == "claude-opus-5":
        error = copy.deepcopy(ERROR)
        error["error"].update(type="not_found_error", message=f"model: {body['model']}")
        return httpx.Response(404, json=error)
    return httpx.Response(200, json=TOOL_USE)


@pytest.fixture
def wire(monkeypatch: pytest.MonkeyPatch) -> Iterator[respx.MockRouter]:
    with replayed_wire(monkeypatch, ("ANTHROPIC_API_KEY",)) as router:
        yield router


async def test_a_step_down_is_printed_once_and_recorded_on_every_call(wire: respx.MockRouter, tmp_path: Path,
                                                                       capsys: pytest.CaptureFixture[str]) -> None:
    wire.post(ANTHROPIC).mock(side_effect=answer)
    h = harness(make_config(tmp_path / "data", "models=opus", "run.budget_usd=50", *WHOLE))
    for _ in range(2):
        resp = await h.gateway.complete(spec_for(h.gateway, "generation", "literature", "Reply: ok"))
        assert resp.model.startswith("claude-sonnet")  # the cheap tier answered
    err = capsys.readouterr().err
    assert err.count("step down to anthropic/claude-sonnet-5") == 1 and err.count("\n") == 1
    steps = [r for r in h.records if r.outcome == "degraded"]
    assert [r.error for r in steps] == ["anthropic/claude-opus-5 -> anthropic/claude-sonnet-5"] * 2


async def test_a_mode_that_may_not_degrade_fails_in_one_line(wire: respx.MockRouter, tmp_path: Path) -> None:
    wire.post(ANTHROPIC).mock(side_effect=answer)
    h = harness(make_config(tmp_path / "data", "models=opus", "run.budget_usd=50", *WHOLE))
    with pytest.raises(E.ModelUnavailable) as info:
        await h.gateway.complete(spec_for(h.gateway, "metareview", "final", "Write the overview."))
    assert "\n" not in str(info.value) and "never degrades" in str(info.value)
    assert not any(r.outcome == "degraded" for r in h.records)


def test_the_report_and_status_show_the_steps(tmp_path: Path) -> None:
    store = SessionStore.open(tmp_path / "store.sqlite", "s-test")
    try:
        store.sessions.create(goal="g", config_snapshot={}, overrides=[], models_choice="opus", budget_usd=1.0,
                              budget_tokens=None, wall_clock_seconds=60)
        for _ in range(3):
            store.logs.add_call(Call(agent="generation", action="a", mode="literature", model="a/x", task_id=None,
                                     attempt=0, outcome="degraded", error="a/x -> a/y"))
        assert store.logs.degradations() == [("a/x -> a/y", 3)]
        text = "\n".join(report_lines(store))
        assert "# Models stepped down" in text and "- a/x -> a/y: 3 calls" in text
    finally:
        store.close()
