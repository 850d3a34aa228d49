"""Issue 16 end to end on the fake, through the Prefect flow: the bundled offline embedder recorded on the
session and the MLflow run; a session whose low-stakes matches go through the fake's batch endpoint."""

from __future__ import annotations

from pathlib import Path

import pytest
from mlflow.tracking import MlflowClient

from cosci.llm.embeddings.wordllama import WORDLLAMA_MODEL
from cosci.llm.fake.provider import FakeBackend
from cosci.store import SessionStore
from tests.conftest import make_config
from tests.flows.test_session_flow import _run, check_invariants

pytestmark = pytest.mark.slow


def test_a_demo_run_records_the_bundled_embedding_model(prefect_server: None, fake: FakeBackend, tmp_path: Path,
                                                        mlflow_uri: str) -> None:
    # a session of two hypotheses, the smallest that embeds (6 before): the embedder is chosen and
    # recorded at the start, whatever the session's length (docs/development.md, test time)
    config = make_config(tmp_path / "data", "tracking.enabled=true", f"tracking.tracking_uri={mlflow_uri}",
                         f"models.embeddings.chain=[{WORDLLAMA_MODEL},hash]", "run.max_hypotheses=2",
                         "run.n_initial=2")
    summary = _run(config)
    store = SessionStore.open(Path(summary["store_path"]), summary["session_id"])
    try:
        assert [e["payload"]["model"] for e in store.logs.events("embedding_model")] == [WORDLLAMA_MODEL]
        models = {r["model"] for r in store.db.query("SELECT model FROM embeddings_meta")}
        assert models == {WORDLLAMA_MODEL}
        assert {r["dim"] for r in store.db.query("SELECT dim FROM embeddings_meta")} == {256}
    finally:
        store.close()
    run = MlflowClient(mlflow_uri).get_run(summary["mlflow_run_id"])
    assert run.data.tags["cosci.embedding_model"] == WORDLLAMA_MODEL
    assert run.data.metrics["cache_read_share"] == 0.0  # logged; the fake reports no cache reads


@pytest.mark.parametrize("concurrency", [1, 8])  # 1: no bottom-half pair came up; 8: a poll the tally missed
def test_a_session_with_batched_matches_runs_to_the_end(prefect_server: None, fake: FakeBackend,
                                                        tmp_path: Path, concurrency: int) -> None:
    # batch_top_chance=1: every pairwise match is batched, so the test does not hang on which pairs the scheduling
    # order happens to offer (at a bottom-half rule a concurrency-1 session reached max_hypotheses without a
    # low-stakes pair; the low-stakes choice itself is tested in tests/agents/test_match_batches.py)
    config = make_config(tmp_path / "data", "+models.tiers.cheap.batch=true", "ranking.batch_top_chance=1.0",
                         "ranking.batch_size=2", "ranking.batch_poll_seconds=0",
                         "models.fake.batch_polls=2", f"run.concurrency={concurrency}")
    summary = _run(config)
    store = SessionStore.open(Path(summary["store_path"]), summary["session_id"])
    try:
        assert store.sessions.get().status == "done"
        counts = store.batches.counts()
        assert counts.get("applied", 0) >= 1, counts
        assert set(counts) <= {"applied", "direct"}, counts  # nothing paid for and left unapplied, nothing waiting
        batched = {m.match_id for m in store.batches._select("status='applied'", ())}
        assert batched <= {m.id for m in store.matches.all()}
        rows = store.db.query("SELECT request FROM transcripts WHERE request LIKE '%batch_id%' AND outcome='ok'")
        assert len(rows) == len(batched)
        check_invariants(store)
    finally:
        store.close()
