"""A finished fake-model session whose record also holds hostile text, shared by the report tests.

The session is a copy of the worker's finished one on the scripted fake (``finished_copy``, run in-process without
Prefect). Then, as a model or a web page could, the record gets a hypothesis titled with a script tag, a
``javascript:`` citation, a review with raw HTML, a debate whose turns carry HTML, a quarantined hypothesis, and an
overview paragraph citing the hostile hypothesis by id.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import pytest

from cosci.ids import hypothesis_id
from cosci.records import Citation, Evidence, RecordHypothesis, RecordReview
from cosci.report.render import write_report
from cosci.store import STORE_FILE, SessionStore
from tests.conftest import FinishedCopy
from tests.contract import CONTRACT

HOSTILE_TITLE = "<script>window.__pwned = 1</script> Metformin & AMPK"
HOSTILE_NOTE = '<img src="x" onerror="window.__pwned = 2"> reviewer notes'
HOSTILE_TURN = "</details><script>window.__pwned = 3</script>"
UNKNOWN_ID = "H-000000000000"


@dataclass(frozen=True)
class Session:
    data: Path
    sid: str
    hostile: str
    quarantined: str

    @property
    def folder(self) -> Path:
        return self.data / "sessions" / self.sid

    @property
    def report(self) -> Path:
        return self.folder / "final" / "report.html"

    def store(self) -> SessionStore:
        return SessionStore.open(self.folder / STORE_FILE, self.sid)


def _hypothesis(store: SessionStore, title: str, citations: list[Citation]) -> str:
    rec = RecordHypothesis(title=title, statement=f"{title} statement", mechanism="<b>bold?</b> mechanism",
                           entities=["AMPK"], anticipated_outcomes="", novelty_argument="", **CONTRACT,
                           citations=citations)
    hid = hypothesis_id(store.session_id, "literature", rec.statement)
    store.hypotheses.insert(hid, rec, elo=1200.0, task_id=None)
    return hid


def _set_state(store: SessionStore, hid: str, state: str) -> None:
    with store.db.tx() as c:  # directly: the test places rows, it does not exercise the state machine
        c.execute("UPDATE hypotheses SET state=? WHERE id=?", (state, hid))


def add_hostile_text(store: SessionStore) -> tuple[str, str]:
    """Write the hostile rows described in the module docstring; returns (hostile id, quarantined id)."""
    hostile = _hypothesis(store, HOSTILE_TITLE, [
        Citation(url="javascript:alert(1)", title="a javascript: link"),
        Citation(url="https://pubmed.ncbi.nlm.nih.gov/12345/", title="A real paper", year=2020)])
    _set_state(store, hostile, "in_tournament")
    quarantined = _hypothesis(store, "A quarantined hypothesis", [])
    _set_state(store, quarantined, "quarantined")
    review = RecordReview(verdict="neutral", novelty=0.5, correctness=0.25, testability=0.75, feasibility=1.0,
                          evidence=[Evidence(claim="claim", url="https://example.org/a", excerpt="<i>x</i>")],
                          notes=HOSTILE_NOTE)
    store.hypotheses.add_review(hostile, review, task_id="T-test")
    opponent = next(h.id for h in store.hypotheses.ranked() if h.id != hostile)
    store.matches.apply("M-hostile", hostile, opponent, mode="debate", winner=hostile,
                         rule=lambda _ea, _na, _eb, _nb, a_won: (16.0 if a_won else -16.0, 32.0),
                         rationale="<b>rationale</b>", transcript=[{"speaker": "expert 1", "text": HOSTILE_TURN}],
                         task_id="T-test")
    overview = store.sessions.get().final_overview or ""
    store.sessions.update(final_overview=overview + f"\n\nSee also [{hostile}] and [{UNKNOWN_ID}]. "
                           "<script>window.__pwned = 4</script> [a source](https://example.org/paper)\n")
    return hostile, quarantined


@pytest.fixture(scope="module")
def session(tmp_path_factory: pytest.TempPathFactory, finished_copy: FinishedCopy) -> Session:
    """A finished session on the fake (the worker's copy: :func:`tests.conftest.finished_copy`), with hostile text
    and its report page."""
    data = tmp_path_factory.mktemp("report") / "data"
    sid = finished_copy(data)
    folder = data / "sessions" / sid
    store = SessionStore.open(folder / STORE_FILE, sid)
    try:
        hostile, quarantined = add_hostile_text(store)
        write_report(store, folder)
    finally:
        store.close()
    return Session(data, sid, hostile, quarantined)
