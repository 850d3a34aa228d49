"""Fresh-user trial: the page, `cosci report`, `cosci status`, the md / jsonl / html exports and the MLflow
artifacts printed a quarantined hypothesis's text (mechanism, outcomes, novelty, entities, contract; `cosci report`
its title too). Every reader now shows only its id, its category and the command that releases it
(design.md#safety)."""

from __future__ import annotations

import json
import shutil
from dataclasses import asdict
from pathlib import Path

import pytest

from cosci.ids import hypothesis_id
from cosci.records import Citation, RecordHypothesis, RecordReview
from cosci.report.export import jsonl, markdown
from cosci.report.render import write_report
from cosci.store import SessionStore
from cosci.store.standing import shown_verdict
from cosci.tracking.artifacts import leaderboard_frame
from tests.report.conftest import Session
from tests.test_cli import _cli

SECRET = "ZQXSECRET"
"""Marks every text of the quarantined hypothesis, of its review, its debate and its verdict."""


def _quarantine(store: SessionStore) -> str:
    rec = RecordHypothesis(title=f"{SECRET} title", statement=f"{SECRET} statement", mechanism=f"{SECRET} mechanism",
                           entities=[f"{SECRET}-entity"], anticipated_outcomes=f"{SECRET} outcomes",
                           novelty_argument=f"{SECRET} novelty", decisive_experiment=f"{SECRET} experiment",
                           predicted_result=f"{SECRET} predicted", refuting_result=f"{SECRET} refuting",
                           citations=[Citation(url="https://example.org/q", title=f"{SECRET} cited paper")])
    hid = hypothesis_id(store.session_id, "literature", rec.statement)
    store.hypotheses.insert(hid, rec, elo=1200.0, task_id=None)
    review = RecordReview(verdict="neutral", novelty=0.5, correctness=0.5, testability=0.5, feasibility=0.5,
                          evidence=[], notes=f"{SECRET} review notes")
    store.hypotheses.add_review(hid, review, task_id="T-q")
    opponent = next(h.id for h in store.hypotheses.ranked() if h.id != hid)
    store.matches.apply("M-q", hid, opponent, mode="debate", winner=opponent,
                        rule=lambda _ea, _na, _eb, _nb, a_won: (16.0 if a_won else -16.0, 32.0),
                        rationale=f"{SECRET} rationale", transcript=[{"speaker": "expert 1", "text": SECRET}],
                        task_id="T-q")
    store.safety.add("V-q", "hypothesis", hid, decision="block", categories=["biological"],
                     rationale=f"the text ({SECRET}) describes culturing spores", prescreen=[f"{SECRET}-term"],
                     acted=True, model="fake", task_id=None, screen={"line": f"{SECRET}-term (biological)",
                                                                     "hits": [f"{SECRET}-term"], "decision": "block"})
    with store.db.tx() as c:  # directly: the test places rows, it does not exercise the state machine
        c.execute("UPDATE hypotheses SET state='quarantined' WHERE id=?", (hid,))
    return hid


@pytest.fixture(scope="module")
def held(session: Session, tmp_path_factory: pytest.TempPathFactory) -> tuple[Session, str]:
    data = tmp_path_factory.mktemp("withheld") / "data"
    shutil.copytree(session.data, data)
    copy = Session(data, session.sid, session.hostile, session.quarantined)
    store = copy.store()
    try:
        hid = _quarantine(store)
        write_report(store, copy.folder)
    finally:
        store.close()
    return copy, hid


def test_no_reader_prints_a_quarantined_hypothesis_text(held: tuple[Session, str], tmp_path: Path,
                                                        capsys: pytest.CaptureFixture[str]) -> None:
    s, hid = held
    release = f'cosci release {s.sid} {hid} --why "..."'
    page = s.report.read_text(encoding="utf-8")
    assert SECRET not in page and hid in page and "biological" in page
    assert release.replace('"', "&#34;") in page  # escaped as the page escapes every text
    # the Safety section offers the command; it never says the still-quarantined hypothesis was released
    escaped = release.replace('"', "&#34;")
    assert f"release with <code>{escaped}</code>" in page
    assert "released by <code>" not in page
    args = ("--data-dir", str(s.data))
    for command in (("report", s.sid), ("status", s.sid)):
        code, out, err = _cli(capsys, *args, *command)
        assert code == 0, err
        assert SECRET not in out and f"[{hid}] block (biological)" in out and release in out, out
    for fmt in ("md", "jsonl", "html"):
        out_file = tmp_path / f"export.{fmt}"
        code, _, err = _cli(capsys, *args, "export", s.sid, "--format", fmt, "--out", str(out_file))
        assert code == 0, err
        assert SECRET not in out_file.read_text(encoding="utf-8") and hid in out_file.read_text(encoding="utf-8")
    store = s.store()
    try:
        lines = [json.loads(line) for line in jsonl(store).splitlines()]
        match = next(x for x in lines if x["type"] == "match" and x["id"] == "M-q")
        assert match["winner"] != hid and match["transcript"] == []  # the outcome kept, the debate withheld
        assert SECRET not in markdown(store)
        assert SECRET not in json.dumps(leaderboard_frame(store).to_dicts())  # leaderboard.parquet of the MLflow run
        held_ids = {hid}
        verdicts = [asdict(shown_verdict(v, held_ids)) for v in store.safety.all()]  # safety/verdicts.json
        assert SECRET not in json.dumps(verdicts)
        assert next(v for v in verdicts if v["id"] == "V-q")["categories"] == ["biological"]
    finally:
        store.close()


def test_a_hypothesis_not_quarantined_keeps_its_text(held: tuple[Session, str]) -> None:
    s, _ = held
    page = s.report.read_text(encoding="utf-8")
    assert "<b>bold?</b> mechanism" not in page and "&lt;b&gt;bold?&lt;/b&gt; mechanism" in page  # escaped, shown
