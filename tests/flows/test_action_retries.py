"""Prefect retries a whole action (flows/session.py), waiting from the gateway's base delay between attempts
(design.md#retries): 1 s then 2 s by default, nothing in the tests' config (base 0)."""

from __future__ import annotations

import asyncio
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest

from flows import session as session_module


class Recorded(Exception):
    """Raised by the stand-in ``with_options`` once it has recorded the action's options."""


@pytest.mark.parametrize(("base", "waits"), [(1.0, [1.0, 2.0]), (0.0, [0.0, 0.0])])
def test_an_actions_retries_wait_from_the_configured_base_delay(base: float, waits: list[float], tmp_path: Path,
                                                                monkeypatch: pytest.MonkeyPatch) -> None:
    seen: dict[str, Any] = {}

    def with_options(**options: Any) -> None:
        seen.update(options)
        raise Recorded

    monkeypatch.setattr(session_module.agent_action, "with_options", with_options)
    config = SimpleNamespace(lease=SimpleNamespace(max_attempts=3), retry=SimpleNamespace(base_delay_seconds=base))
    rt = SimpleNamespace(home=SimpleNamespace(results_dir=tmp_path), config=config)
    runner = session_module.make_runner(rt)  # type: ignore[arg-type]
    task = SimpleNamespace(attempts=0, agent="generation", action="GenerateHypothesis", target_id=None, id="T-1")
    with pytest.raises(Recorded):
        asyncio.run(runner(task))
    assert seen["retries"] == 2 and seen["retry_delay_seconds"](seen["retries"]) == waits
