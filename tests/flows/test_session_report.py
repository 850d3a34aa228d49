"""A fake demo session under Prefect logs report.html and its LLM calls as traces to its MLflow run (issue 17)."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest
from mlflow.tracking import MlflowClient

from cosci.llm.fake.provider import FakeBackend
from cosci.store import SessionStore
from flows.session import session_flow
from tests.conftest import make_config
from tests.flows.test_session_flow import SMALL
from tests.report.browser import chromium, console_errors

pytestmark = pytest.mark.slow


def _run(config) -> dict:
    return asyncio.run(session_flow(config.model_dump(mode="json"), ["experiment=demo", "models=fake"], "fake"))


def _spans(client: MlflowClient, run_id: str) -> tuple[list, list]:
    exp = client.get_run(run_id).info.experiment_id
    traces = client.search_traces(locations=[exp], run_id=run_id, max_results=1000)
    return [s for t in traces for s in t.data.spans if s.span_type == "CHAT_MODEL"], traces


def test_report_and_traces_in_the_mlflow_run(prefect_server: None, fake: FakeBackend, tmp_path: Path,
                                             mlflow_uri: str) -> None:
    # two hypotheses (SMALL): every transcript row's span and the report are checked whatever the session's length
    config = make_config(tmp_path / "data", "tracking.enabled=true", f"tracking.tracking_uri={mlflow_uri}", *SMALL)
    summary = _run(config)
    run_id = summary["mlflow_run_id"]
    store = SessionStore.open(Path(summary["store_path"]), summary["session_id"])
    on_disk = Path(summary["store_path"]).parent / "final" / "report.html"
    client = MlflowClient(mlflow_uri)
    assert "report.html" in {a.path for a in client.list_artifacts(run_id)}
    from_store = Path(client.download_artifacts(run_id, "report.html", str(tmp_path / "download")))
    assert from_store.read_bytes() == on_disk.read_bytes()
    # one CHAT_MODEL span per transcript row (every call attempt), grouped in one trace per task
    rows = store.db.query("SELECT seq, task_id, agent, mode, model, input_tokens, cost_usd FROM transcripts")
    spans, traces = _spans(client, run_id)
    assert len(spans) == len(rows) > 0
    assert len(traces) == len({r["task_id"] for r in rows})
    assert all(t.info.request_metadata.get("mlflow.sourceRun") == run_id for t in traces)
    by_seq = {int(s.attributes["cosci.seq"]): s for s in spans}
    assert set(by_seq) == {r["seq"] for r in rows}
    for r in rows:
        span = by_seq[r["seq"]]
        assert (span.attributes["cosci.agent"], span.attributes["cosci.mode"]) == (r["agent"], r["mode"])
        assert span.attributes["mlflow.llm.model"] == r["model"]
        assert span.attributes["mlflow.chat.tokenUsage"]["input_tokens"] == r["input_tokens"]
        assert span.attributes["cosci.cost_usd"] == pytest.approx(r["cost_usd"])
    store.close()
    # the page from the artifact store is the page on disk, in the browser too
    with chromium(tmp_path) as driver:
        texts = []
        for page in (on_disk, from_store):
            driver.get(page.as_uri())
            texts.append(driver.execute_script("return document.body.innerText"))
            assert console_errors(driver) == []
        assert texts[0] == texts[1] and summary["session_id"] in texts[0]


def test_traces_off(prefect_server: None, fake: FakeBackend, tmp_path: Path, mlflow_uri: str) -> None:
    config = make_config(tmp_path / "data", "tracking.enabled=true", f"tracking.tracking_uri={mlflow_uri}",
                         "tracking.traces=false", "run.max_hypotheses=3")
    summary = _run(config)
    spans, traces = _spans(MlflowClient(mlflow_uri), summary["mlflow_run_id"])
    assert traces == [] and spans == []
