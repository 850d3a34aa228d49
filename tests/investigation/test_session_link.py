"""What an investigation writes back to a session (docs/design.md#evidence): every outcome is an event; only a
supported or refuted one (replicated evidence) becomes a review. The attempts and their gains are written here."""

from __future__ import annotations

from pathlib import Path
from types import SimpleNamespace
from typing import Any

from cosci.investigation.evidence import Interval
from cosci.investigation.session_link import write_outcome
from cosci.session.folder import SessionFolder
from flows.investigation_steps import outcomes
from tests.investigation.session_fixture import make_session


class _Run:
    """The two things ``outcomes`` reads of a run folder: its id and its manifest."""

    def __init__(self, session_id: str, seeded: list[str]) -> None:
        self.run_id = "I-test"
        self._manifest = {"from_session": session_id, "seeded": [{"id": h, "text": h} for h in seeded]}

    def manifest(self) -> dict[str, Any]:
        return self._manifest


def _cfg(data: Path) -> Any:
    return SimpleNamespace(evidence=SimpleNamespace(equivalence_margin=0.01, confidence=0.95),
                           base=SimpleNamespace(paths=SimpleNamespace(data_dir=data)))


def _written(data: Path, session_id: str, hid: str) -> tuple[list[str], list[dict[str, Any]]]:
    with SessionFolder.existing(data, session_id).store() as store:
        reviews = [r.verdict for r in store.hypotheses.reviews(hid) if r.mode == "observation"]
        events = [e["payload"] for e in store.logs.events("investigation_result")
                  if e["payload"]["hypothesis_id"] == hid]
    return reviews, events


def _attempt(hid: str, cycle: int, gate_a: bool, gate_b: bool) -> dict[str, Any]:
    return {"worker": 1, "cycle": cycle, "gate_a": gate_a, "gate_b": gate_b, "idea": {"hypothesis_id": hid}}


def test_a_single_gate_b_miss_is_inconclusive_and_writes_no_review(tmp_path: Path) -> None:
    data = tmp_path / "data"
    session_id, (hid,) = make_session(data, 1)
    verdicts = outcomes(_cfg(data), _Run(session_id, [hid]), [_attempt(hid, 1, True, False)], {})  # type: ignore[arg-type]
    assert verdicts == {hid: "inconclusive"}
    reviews, events = _written(data, session_id, hid)
    assert reviews == []  # no disproved (nor any) review: the hypothesis keeps its place
    assert [(e["outcome"], e["review_id"]) for e in events] == [("inconclusive", None)]


def test_an_improving_idea_then_a_non_improving_retry_writes_no_review(tmp_path: Path) -> None:
    data = tmp_path / "data"
    session_id, (hid,) = make_session(data, 1)
    gains = {"w1c1": Interval(0.1, -0.05, 0.25, 5, 0.95, baseline=2.2)}
    tried = [_attempt(hid, 1, True, True), _attempt(hid, 2, True, False)]
    assert outcomes(_cfg(data), _Run(session_id, [hid]), tried, gains) == {hid: "inconclusive"}  # type: ignore[arg-type]
    assert _written(data, session_id, hid)[0] == []


def test_a_replicated_refutation_writes_a_disproved_review(tmp_path: Path) -> None:
    data = tmp_path / "data"
    session_id, (hid, other) = make_session(data, 2)
    gains = {"w1c1": Interval(-0.05, -0.08, -0.02, 5, 0.95, baseline=2.2),
             "w1c2": Interval(0.05, 0.02, 0.08, 5, 0.95, baseline=2.2)}
    tried = [_attempt(hid, 1, True, False), _attempt(other, 2, True, True)]
    verdicts = outcomes(_cfg(data), _Run(session_id, [hid, other]), tried, gains)  # type: ignore[arg-type]
    assert verdicts == {hid: "refuted", other: "supported"}
    assert _written(data, session_id, hid)[0] == ["disproved"]
    assert _written(data, session_id, other)[0] == ["missing_piece"]
    detail = _written(data, session_id, hid)[1][0]["detail"]  # the gains it quotes carry their interval's name
    assert ("final-evaluator gains (95 % Student t interval over the evidence seeds (a gain's is paired: the same "
            "seeds with and without the change); coverage nominal under normal, independent seed noise, not "
            "measured): w1 cycle 1: -0.0500 [-0.08, -0.02]") in detail, detail


def test_write_outcome_writes_a_review_only_for_a_decided_outcome(tmp_path: Path) -> None:
    data = tmp_path / "data"
    session_id, (hid,) = make_session(data, 1)
    assert write_outcome(data, session_id, "I-1", hid, "inconclusive", "not decided") is None
    rid = write_outcome(data, session_id, "I-2", hid, "refuted", "measured worse")
    assert rid is not None
    reviews, events = _written(data, session_id, hid)
    assert reviews == ["disproved"] and [e["review_id"] for e in events] == [None, rid]
