"""The session service (cosci.api) as plain Python: a whole session on the scripted fake, then the researcher's
rating and result through the same API, read back in the refreshed leaderboard (design.md#service)."""

from __future__ import annotations

from pathlib import Path

import pytest

import flows.launch
from cosci import api
from cosci.errors import CosciError
from cosci.llm.fake.provider import FakeBackend
from tests.conftest import FAST

pytestmark = pytest.mark.slow

GOAL = "Which repurposed drugs could restore cytarabine sensitivity in acute myeloid leukaemia blasts?"


@pytest.fixture
def in_process(prefect_server: None, monkeypatch: pytest.MonkeyPatch) -> None:
    """The engine on the test server: no temporary server of cosci's own is started."""
    monkeypatch.setattr(flows.launch, "ensure_server", lambda home, **kw: None)
    monkeypatch.setattr(flows.launch, "server_ready", lambda: None)


def gap(session: api.Session, a: str, b: str) -> float:
    """BT score of ``a`` minus that of ``b`` (logits) in the session's stored fit."""
    scores = {e.id: e.bt[0] for e in session.leaderboard().fitted() if e.bt is not None}
    return scores[a] - scores[b]


@pytest.mark.usefixtures("in_process")
def test_a_whole_session_rated_and_given_a_result_through_the_api(fake: FakeBackend, tmp_path: Path) -> None:
    data = tmp_path / "data"
    prepared = api.prepare(GOAL, FAST, data_dir=data)
    assert prepared.config.session.goal == GOAL and not data.exists()  # nothing written before run
    checked = api.preflight(prepared)
    summary = api.run(checked, ui=False)

    session = api.open(summary.session_id, data)
    status = session.status()
    assert status.status == "done" and status.hypotheses == summary.hypotheses >= 2
    assert status.matches == summary.matches > 0 and status.lines[0].startswith(f"session      {session.id}")
    board = session.leaderboard()
    fitted = board.fitted()
    assert len(fitted) >= 2, board
    top, second = fitted[0].id, fitted[1].id
    before = gap(session, top, second)

    # the researcher prefers the second over the top one, twice: the stored BT fit moves toward the second
    first = session.rate(top, second, prefer="b", why="its mechanism matches our own knockdown data")
    again = session.rate(top, second, prefer="b")
    assert first.id.startswith("RR-") and again.id != first.id and "Bradley–Terry fit" in first.line
    after = gap(session, top, second)
    assert after < before, (before, after)

    # a lab result refutes the top one: it leaves the ranking, named with the result that moved it
    recorded = session.result(top, "refuted", measures=["viability=0.93"], notes="no effect at 1 uM")
    assert recorded.id.startswith("O-") and f"result {recorded.id} on {top}" in recorded.line
    refreshed = session.leaderboard()
    assert top not in refreshed.ids()
    assert [e.why for e in refreshed.apart if e.id == top] == [f"refuted by result {recorded.id}"]
    researcher = [ln for ln in session.status().lines if ln.startswith("researcher")]
    assert researcher == ["researcher   2 ratings (2 preferences, 1 replaced by a later one of the same pair, "
                          "0 scores), 1 experimental result (refuted 1)"]  # the pair's second counts, once

    # lifecycle rules of a finished session, from the service's one definition
    with pytest.raises(CosciError, match=rf"session {session.id} is done; feedback would reach no prompt"):
        session.feedback("directive", "look at MCL-1")
    with pytest.raises(CosciError, match=rf"session {session.id} is done; nothing to pause"):
        session.pause()
    with pytest.raises(CosciError, match=rf"session {session.id} is done; `cosci report {session.id}`"):
        session.resume()
    report = session.report()
    assert "# Current leaderboard" in report and f"refuted by result {recorded.id}" in report
