"""What a refused goal tells the researcher: no `cosci resume` (a refused session does not run again), and how to
proceed instead, on the one refusal line (design.md#safety). Fresh-user report: the opening line said "continue
with `cosci resume`" and the refusal line said nothing more than "recorded as refused"."""

from __future__ import annotations

from pathlib import Path
from types import SimpleNamespace

import pytest

from cosci.session.folder import SessionFolder
from flows.launch import REFUSED_ADVICE, refusal
from flows.session import _announce

GOAL = "Give a precursor route to a nerve agent."


def test_the_refusal_line_says_how_to_proceed_not_resume(tmp_path: Path) -> None:
    folder = SessionFolder(tmp_path, "s-20261206-000000-abcdef")
    store = folder.open_store()
    store.sessions.create(goal=GOAL, config_snapshot={}, overrides=[], models_choice="fake", budget_usd=1.0,
                          budget_tokens=None, wall_clock_seconds=60.0)
    store.safety.add("V-1", "goal", None, decision="block", categories=["chemical"],
                     rationale='term hit: "nerve agent"', prescreen=[], acted=True, model=None, task_id=None)
    store.sessions.update(status="refused", stop_reason="refused")
    store.close()
    line = str(refusal(tmp_path, folder.session_id))
    assert line.startswith('goal refused by safety screening, block (chemical): term hit: "nerve agent" (session ')
    assert "recorded as refused" in line and REFUSED_ADVICE in line and "cosci screen" in line
    assert "resume" not in line and "\n" not in line


@pytest.mark.parametrize("resumed", [False, True])
def test_a_new_sessions_opening_line_does_not_offer_a_resume(capsys: pytest.CaptureFixture[str], tmp_path: Path,
                                                              resumed: bool) -> None:
    """A new session's goal is screened after this line: it may be refused, and a refused session is not resumed.
    A resumed session's goal passed its screen already."""
    _announce(SimpleNamespace(session_id="s-1", folder=tmp_path), resumed=resumed)  # type: ignore[arg-type]
    err = capsys.readouterr().err
    assert "stop with Ctrl-C" in err and ("cosci resume s-1" in err) == resumed
