"""LLM calls as MLflow traces (cosci.tracking.traces): one span per transcript row, written once, across resumes."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import mlflow
import pytest
from mlflow.tracking import MlflowClient

from cosci.store import STORE_FILE, SessionStore
from cosci.store.standing import QUARANTINED
from cosci.tracking.traces import TraceLogger
from tests.report.conftest import Session, session  # noqa: F401  (the shared finished session)


def _chat_spans(client: MlflowClient, exp: str, run_id: str) -> list:
    mlflow.flush_trace_async_logging()  # a non-final flush leaves the export to MLflow's background threads
    traces = client.search_traces(locations=[exp], run_id=run_id, max_results=1000)
    return [s for t in traces for s in t.data.spans if s.span_type == "CHAT_MODEL"]


def test_flush_is_incremental_and_survives_a_resume(session: Session, tmp_path: Path,  # noqa: F811
                                                    monkeypatch: pytest.MonkeyPatch) -> None:
    copy = tmp_path / STORE_FILE
    shutil.copy(session.folder / STORE_FILE, copy)
    store = SessionStore.open(copy, session.sid)
    uri = f"sqlite:///{tmp_path / 'mlflow.db'}"
    client = MlflowClient(uri)
    exp = client.create_experiment("traces", artifact_location=(tmp_path / "artifacts").as_uri())
    run_id = client.create_run(exp).info.run_id
    total = int(store.db.scalar("SELECT COUNT(*) FROM transcripts"))
    busy = store.db.query("SELECT task_id, COUNT(*) n FROM transcripts WHERE task_id IS NOT NULL GROUP BY task_id"
                           " ORDER BY MIN(seq) LIMIT 1")[0]
    with store.db.tx() as c:  # this task is still running: its calls wait
        c.execute("UPDATE tasks SET status='in_progress' WHERE id=?", (busy["task_id"],))
    assert TraceLogger(client, uri, run_id).flush(store) == total - busy["n"]
    assert len(_chat_spans(client, exp, run_id)) == total - busy["n"]
    with store.db.tx() as c:
        c.execute("UPDATE tasks SET status='done' WHERE id=?", (busy["task_id"],))
    resumed = TraceLogger(client, uri, run_id)  # a new process: progress comes from the run's tag
    assert resumed.flush(store) == busy["n"]
    waits: list[bool] = []
    monkeypatch.setattr(mlflow, "flush_trace_async_logging", lambda: waits.append(True))
    assert resumed.flush(store, final=True) == 0
    assert waits == [True], "the final flush must wait for exports still running in the background"
    monkeypatch.undo()
    spans = _chat_spans(client, exp, run_id)
    assert len(spans) == total
    assert sorted(int(s.attributes["cosci.seq"]) for s in spans) == [
        r["seq"] for r in store.db.query("SELECT seq FROM transcripts ORDER BY seq")]
    store.close()


def test_a_failed_flush_is_logged_and_not_fatal(caplog) -> None:
    from cosci.tracking.mlflow_run import SessionTracker

    class Broken:
        def flush(self, record: object, final: bool = False) -> int:
            raise ConnectionError("store\ngone")

    tracker = SessionTracker(client=None, run_id="r", uri="sqlite:///x.db")  # type: ignore[arg-type]
    tracker.traces, tracker.store = Broken(), object()  # type: ignore[assignment]
    assert tracker.flush_traces(final=True) == 0
    assert "MLflow traces not written now: ConnectionError: store gone" in caplog.text


def test_a_quarantined_hypothesis_text_reaches_no_span(session: Session, tmp_path: Path) -> None:  # noqa: F811
    """Fresh-user trial (MLflow shows no quarantined text): the calls of the task that made a hypothesis wait until
    safety screening judged it, and once it is quarantined its text is withheld from every span."""
    copy = tmp_path / STORE_FILE
    shutil.copy(session.folder / STORE_FILE, copy)
    store = SessionStore.open(copy, session.sid)
    uri = f"sqlite:///{tmp_path / 'mlflow.db'}"
    client = MlflowClient(uri)
    exp = client.create_experiment("traces", artifact_location=(tmp_path / "artifacts").as_uri())
    run_id = client.create_run(exp).info.run_id
    made = store.db.query("SELECT h.id, h.statement, h.created_by_task FROM hypotheses h WHERE h.created_by_task IN"
                          " (SELECT task_id FROM transcripts) AND h.state != 'quarantined' ORDER BY h.created_at")
    hid, statement, task = next((r[0], r[1], r[2]) for r in made
                                if store.db.scalar("SELECT COUNT(*) FROM transcripts WHERE task_id=? AND response"
                                                   " LIKE ?", (r[2], f"%{r[1][:40]}%")))
    with store.db.tx() as c:  # as just made: a draft safety screening has not judged yet
        c.execute("UPDATE hypotheses SET state='draft' WHERE id=?", (hid,))
        c.execute("DELETE FROM safety_verdicts WHERE subject='hypothesis' AND subject_id=?", (hid,))
    n_task = int(store.db.scalar("SELECT COUNT(*) FROM transcripts WHERE task_id=?", (task,)))
    total = int(store.db.scalar("SELECT COUNT(*) FROM transcripts"))
    logger = TraceLogger(client, uri, run_id)
    assert logger.flush(store) == total - n_task  # the task's calls wait for the screen
    with store.db.tx() as c:
        c.execute("UPDATE hypotheses SET state='quarantined' WHERE id=?", (hid,))
    assert logger.flush(store) == n_task
    spans = _chat_spans(client, exp, run_id)
    assert len(spans) == total
    seqs = {r[0] for r in store.db.query("SELECT seq FROM transcripts WHERE task_id=?", (task,))}
    # the spans written after it was quarantined (those written before read it as a live hypothesis of this copy)
    shown = [json.dumps([s.inputs, s.outputs], ensure_ascii=False) for s in spans
             if int(s.attributes["cosci.seq"]) in seqs]
    assert len(shown) == n_task
    assert not [s for s in shown if statement in s or json.dumps(statement)[1:-1] in s]
    assert any(QUARANTINED in s for s in shown)
    store.close()
