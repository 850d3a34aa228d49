"""`cosci eval moose-chem --items 2 --corpus 150 models=fake` end to end (issue 20 acceptance): two sessions
as MLflow children of one parent run, the baseline, every metric computed, the report as artifacts."""

from __future__ import annotations

import math
from pathlib import Path

import polars as pl
import pytest
from mlflow.tracking import MlflowClient

from cosci.cli import main
from cosci.llm.fake.provider import FakeBackend, FakeReply
from cosci.store import SessionStore

pytestmark = pytest.mark.slow
SMALL = ["run.max_hypotheses=3", "termination.min_hypotheses_before_stable=3"]
"""Each item's session of three hypotheses, not the eval's six: what is read is the pipeline's top-k judged and its
metrics, which the first three give (a metric at 5 over fewer is over what there is); docs/development.md, test
time, ninth pass."""


def test_eval_two_items_on_the_fake(prefect_server: None, fake: FakeBackend, tmp_path: Path, mlflow_uri: str,
                                    capsys: pytest.CaptureFixture[str]) -> None:
    data = tmp_path / "data"
    baseline = FakeReply.record("record_hypotheses", hypotheses=[
        {"title": f"Baseline {i}", "statement": f"Statement {i}.", "mechanism": f"BASELINE-MECHANISM-{i}",
         "anticipated_outcomes": f"Outcome {i}.", "citations": []} for i in range(5)])
    fake.script(baseline, agent="eval", mode="baseline", times=2)  # the baseline's answers, scripted here
    main(["eval", "moose-chem", "--items", "2", "--corpus", "150", "models=fake", f"paths.data_dir={data}",
          f"tracking.tracking_uri={mlflow_uri}", "retry.base_delay_seconds=0", "retry.max_delay_seconds=0", *SMALL])
    out = capsys.readouterr().out
    assert "| recall_any |" in out and "mlflow    parent run" in out
    assert "## Judge" in out and "`Title`, `Statement`, `Mechanism`, `Anticipated outcomes`" in out
    assert "> - 5: the proposed hypothesis states the same main idea" in out  # the rubric, quoted
    assert "- baseline missing on 0 of 2 observations" in out and "- pipeline missing on 0 of 2 observations" in out
    assert "1 call on 2 of 2 observations" in out
    judged = [c.prompt for c in fake.calls_for(agent="eval", mode="judge")]
    assert sum("Mechanism: BASELINE-MECHANISM-" in p for p in judged) == 10
    assert all("Mechanism: " in p and "Anticipated outcomes: " in p for p in judged)  # the pipeline's too
    parent_id = out.split("mlflow    parent run ")[1].split()[0]

    client = MlflowClient(tracking_uri=mlflow_uri)
    parent = client.get_run(parent_id)
    assert parent.info.status == "FINISHED" and parent.data.tags["cosci.eval"] == "true"
    children = client.search_runs([parent.info.experiment_id],
                                  filter_string=f"tags.mlflow.parentRunId = '{parent_id}'")
    assert len(children) == 2
    assert {c.data.tags["cosci.sweep_overrides"] for c in children} == {"item=moose-00 seed=1",
                                                                        "item=moose-01 seed=1"}
    assert all("eval_recall_any" in c.data.metrics for c in children)
    names = {a.path for a in client.list_artifacts(parent_id)}
    assert {"summary.md", "summary.parquet", "per_item.parquet", "observations.parquet",
            "metric_by_item.png"} <= names

    report = next((data / "eval").iterdir()) / "report"
    obs = pl.read_parquet(report / "observations.parquet")
    assert obs.height == 4 and sorted(obs["system"].unique().to_list()) == ["baseline", "pipeline"]
    assert obs.filter(pl.col("system") == "baseline")["retrieval_recall"].is_not_nan().all()
    for metric in ("recall_any", "recall_at_1", "recall_at_3", "recall_at_5", "match_best_at_5",
                   "match_best_rank", "cost_usd", "tokens", "wall_seconds"):
        assert all(v is not None and not math.isnan(v) for v in obs[metric].to_list()), metric
    assert (obs.filter(pl.col("system") == "pipeline")["cost_usd"] > 0).all()
    summary = pl.read_parquet(report / "summary.parquet")
    row = summary.filter(pl.col("metric") == "match_best_at_5").row(0, named=True)
    assert row["pipeline_n"] == 2 and row["baseline_n"] == 2 and row["difference_n"] == 2
    assert row["pipeline_low"] <= row["pipeline_mean"] <= row["pipeline_high"]

    # the background survey reached the agents' prompts, quoted; the corpus was the only literature
    sid = obs.filter(pl.col("system") == "pipeline")["session_id"][0]
    generation = [c for c in fake.calls_for(agent="generation") if "Background" in c.prompt]
    assert generation and all("session-background" in c.prompt for c in generation)
    tools = {t for c in fake.calls_for(agent="generation") for t in c.tools if not t.startswith("record_")}
    assert tools <= {"local_corpus_search"}  # record tools: record_hypothesis, a debate's record_citations
    store = SessionStore.open(data / "sessions" / sid / "store.sqlite", sid)
    assert "flexible thermogalvanic" in store.sessions.get().research_goal
    store.close()
