"""``cosci investigate run`` end to end on the scripted fake, on the worker's Prefect server
(docs/design.md#investigation): the acceptance run on circle packing, a scripted run in which all four gate
combinations occur and hostile candidates fail without stopping the run, and ``--from-session``."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from cosci.investigation.folder import RunFolder
from cosci.llm.fake.provider import FakeBackend, FakeReply
from cosci.sandbox.bwrap import probe
from flows.investigation_launch import run

pytestmark = [pytest.mark.slow, pytest.mark.skipif(probe() is None, reason="bubblewrap cannot build a sandbox here")]
ROOT = Path(__file__).resolve().parents[2]
CIRCLES = ROOT / "tasks" / "circle_packing"
FAST = ["models=fake", "retry.base_delay_seconds=0", "retry.max_delay_seconds=0"]


@pytest.fixture
def harness_api(prefect_server: None, monkeypatch: pytest.MonkeyPatch) -> None:
    """Point cosci at the worker's Prefect server (:func:`tests.conftest.prefect_server`; it starts none of its own)."""
    from prefect.settings import PREFECT_API_URL

    monkeypatch.setenv("PREFECT_API_URL", str(PREFECT_API_URL.value()))


def _ideation_prompt(fake: FakeBackend, worker: int, cycle: int) -> str:
    calls = [c for c in fake.calls_for(agent="ideation") if f"Worker {worker}, cycle {cycle}." in c.prompt]
    assert calls, (worker, cycle)
    return calls[0].prompt


@pytest.mark.usefixtures("harness_api")
def test_circle_packing_with_two_workers_on_the_fake(fake: FakeBackend, tmp_path: Path,
                                                     mlflow_uri: str) -> None:
    data = tmp_path / "data"
    summary = run(CIRCLES, [*FAST, f"paths.data_dir={data}", "investigation.workers=2", "investigation.cycles=3",
                            f"tracking.tracking_uri={mlflow_uri}"])
    folder = RunFolder.existing(data, summary["run_id"])
    assert summary["cycles_run"] == 6 and folder.manifest()["status"] == "done"
    assert summary["selected"]["score"] >= summary["initial_score"]
    for w in (1, 2):  # two workers' histories, each in its own folder
        history = (folder.worker(w) / "history.jsonl").read_text().splitlines()
        assert [json.loads(h)["cycle"] for h in history] == [1, 2, 3]
        assert (folder.worker(w) / "best" / "program.py").is_file()
    # conclusions cross workers only at boundaries: none in the first cycle, the other worker's in the second
    first, second = _ideation_prompt(fake, 1, 1), _ideation_prompt(fake, 1, 2)
    assert "conclusion-w2-c1" not in first and "# Conclusions published by the workers\n(none yet)" in first
    assert "conclusion-w2-c1" in second and "worker 2, cycle 1:" in second and "conclusion-w1-c2" not in second
    assert "conclusion-w2-c2" not in _ideation_prompt(fake, 2, 2)
    # the evidence table: the selected and the initial program over 5 seeds with the final evaluator
    rows = [r["text"] for r in summary["evidence"]]
    assert rows[0].startswith("selected") and "n = 5" in rows[0] and any(r.startswith("initial") for r in rows)
    report = (folder.root / "report.md").read_text()
    assert "## Evidence (final evaluator)" in report and "| 2 | 3 |" in report
    named = ("95 % Student t interval over the evidence seeds (a gain's is paired: the same seeds with and without "
             "the change); coverage nominal under normal, independent seed noise, not measured")
    assert f"## Evidence (final evaluator)\n\nIntervals: {named}.\n" in report and summary["intervals"] == named
    claims = json.loads((folder.root / "claims.json").read_text())
    assert claims["claims_total"] >= 2 and claims["claims_unsupported"] == 0
    from cosci.tracking.investigation_runs import child_count

    assert child_count(mlflow_uri, summary["mlflow_run_id"]) == 2


def _source(iterations: int) -> str:
    return (CIRCLES / "initial" / "program.py").read_text().replace("ITERATIONS = 60 ", f"ITERATIONS = {iterations} ")


def _script_cycle(fake: FakeBackend, rubrics: list[str], source: str) -> None:
    fake.script(FakeReply.record("record_idea", title=f"Try {rubrics[0]}", hypothesis="It changes the score.",
                                 plan=["write", "submit"], rubric_ids=rubrics), agent="ideation")
    fake.script(FakeReply.record("write_candidate", path="program.py", content=source), agent="execution")
    fake.script(FakeReply.record("record_attempt", candidate="c1", summary="scripted", conclusion="scripted"),
                agent="execution")


@pytest.mark.usefixtures("harness_api")
def test_all_four_gate_combinations_and_hostile_candidates(fake: FakeBackend,
                                                          tmp_path: Path) -> None:
    """Scripted answers (wrong ones included); the gates are decided by the harness, not by the fake."""
    _script_cycle(fake, ["beats_2_2"], _source(75))               # 2.2253 > 2.2133: A pass, B pass
    _script_cycle(fake, ["valid_packing"], "import socket\nsocket.create_connection(('1.1.1.1', 80), 2)\n")
    _script_cycle(fake, ["valid_packing"], "import os\nwhile True:\n    os.fork()\n")  # a fork bomb
    _script_cycle(fake, ["valid_packing"], _source(75))           # equal to the best: A pass, B fail
    _script_cycle(fake, ["near_record"], _source(90))             # 2.2285 is better, but < 2.6: A fail, B pass
    _script_cycle(fake, ["valid_packing"], "x = bytearray(4 << 30)\n")
    data = tmp_path / "data"
    summary = run(CIRCLES, [*FAST, f"paths.data_dir={data}", "investigation.workers=1", "investigation.cycles=6",
                            "evidence.seeds=2", "tracking.enabled=false"])
    cycles = RunFolder.existing(data, summary["run_id"]).worker(1) / "cycles"
    history = [json.loads((cycles / f"c{c:03d}" / "result.json").read_text()) for c in range(1, 7)]
    gates = [(h["gate_a"], h["gate_b"]) for h in history]
    assert gates == [(True, True), (False, False), (False, False), (True, False), (False, True), (False, False)]
    assert history[1]["evaluation"]["reason"].startswith("program: network")  # the run went on after it
    assert history[2]["evaluation"]["limit"] == "processes" and "process limit of 64" in history[2]["evaluation"][
        "reason"]
    assert history[5]["evaluation"]["limit"] == "memory" and "memory limit" in history[5]["evaluation"]["reason"]
    assert summary["gates"] == {"A pass B pass": 1, "A pass B fail": 1, "A fail B pass": 1, "A fail B fail": 3}
    assert summary["selected"]["cycle"] == 5  # gate B alone decides the best program
    # one ablation per idea that changed the selected program: cycle 5's runs; cycle 1's (ITERATIONS 60 -> 75) was
    # overwritten by cycle 5's (75 -> 90) on the same line, so it cannot be reverted alone and says so
    abl = [r["text"] for r in summary["evidence"] if r["text"].startswith("without")]
    assert len(abl) == 1 and "cycle 5" in abl[0]
    assert len(summary["ablation_notes"]) == 1 and "(cycle 1)" in summary["ablation_notes"][0]


@pytest.mark.usefixtures("harness_api")
def test_from_session_writes_an_outcome_back_to_each_seeded_hypothesis(fake: FakeBackend,
                                                                       tmp_path: Path) -> None:
    from cosci.investigation.session_link import VERDICTS
    from cosci.store import SessionStore
    from tests.investigation.session_fixture import make_session

    data = tmp_path / "data"
    session_id, hids = make_session(data, 3)
    summary = run(CIRCLES, [*FAST, f"paths.data_dir={data}", "investigation.workers=1", "investigation.cycles=2",
                            "evidence.seeds=2", "tracking.enabled=false"], from_session=session_id)
    assert set(summary["outcomes"]) == set(hids)
    from cosci.session.folder import SessionFolder

    with SessionFolder.existing(data, session_id).store() as store:
        assert isinstance(store, SessionStore)
        written = [r for r in store.hypotheses.reviews(hids[0]) if r.mode == "observation"]
        if summary["outcomes"][hids[0]] in VERDICTS:  # supported or refuted: replicated evidence, a review
            (review,) = written
            assert summary["run_id"] in review.notes and summary["outcomes"][hids[0]] in review.notes
            # the verdict follows the outcome (which depends on the constant the fake's edit happened to change)
            assert review.verdict == VERDICTS[summary["outcomes"][hids[0]]]
        else:  # inconclusive: nothing observed either way, no review (tests/investigation/test_session_link.py)
            assert written == []
        for hid in hids[1:]:  # never tried: nothing observed, no review written back
            assert not [r for r in store.hypotheses.reviews(hid) if r.mode == "observation"]
        events = store.logs.events("investigation_result")
    assert sorted(e["payload"]["hypothesis_id"] for e in events) == sorted(hids)  # a result for each
    assert [e["payload"]["review_id"] is None for e in events if e["payload"]["hypothesis_id"] != hids[0]] == [True] * 2
    # the fake's ideas tested the first seeded hypothesis (its review above); the two never tried are inconclusive.
    # Whether the first is decided depends on whether an edit of the fake passed gate A (tests/investigation/
    # test_evidence.py scripts each case of the outcome rule).
    assert summary["outcomes"][hids[1]] == summary["outcomes"][hids[2]] == "inconclusive"


def test_the_stdout_summary_names_the_evidence_intervals() -> None:
    """``cosci investigate``'s stdout names the evidence rows' intervals by method and coverage basis, once, above
    the rows (design.md#evidence)."""
    from cosci.domain import evidence_interval_label
    from flows.investigation_launch import summary_lines

    summary = {"run_id": "I-x", "task": "t", "workers": 1, "cycles_run": 1, "gates": {"A": 1},
               "selected": {"label": "the initial program", "score": 2.0}, "initial_score": 2.0,
               "intervals": evidence_interval_label(0.9), "outcomes": {}, "cost_usd": 0.0, "report": "r.md",
               "evidence": [{"label": "E1", "text": "initial: mean s 2.0000, 90 % interval [1.9, 2.1], n = 5"}]}
    lines = summary_lines(summary)
    assert lines[3] == ("intervals    90 % Student t interval over the evidence seeds (a gain's is paired: the same "
                        "seeds with and without the change); coverage nominal under normal, independent seed noise, "
                        "not measured")
    assert lines[4].startswith("evidence     [E1]")
