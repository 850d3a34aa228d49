"""Issue 14 end to end: a fake-model demo session over a local corpus ends with verified and unverified
evidence, ``final/claims.json``, an "Audit" section in ``overview.md`` and the grounding metrics in MLflow."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from mlflow.tracking import MlflowClient

from cosci.grounding.evidence import session_counts
from cosci.llm.fake.provider import FakeBackend
from cosci.store import SessionStore
from tests.conftest import make_config
from tests.flows.test_session_flow import _run

pytestmark = pytest.mark.slow

CORPUS = [
    {"id": f"c{i}", "title": f"{drug} and {target} in acute myeloid leukemia", "url": f"https://corpus.example.org/{i}",
     "abstract": f"{drug} perturbed {target} and reduced the colony formation of primary leukemia blasts in a "
                 f"dose-dependent manner, with little effect on normal progenitors (study {i})."}
    for i, (drug, target) in enumerate([("Metformin", "mitochondrial complex I"), ("Disulfiram", "ALDH1A1"),
                                        ("Itraconazole", "hedgehog signalling"), ("Auranofin",
                                                                                  "thioredoxin reductase")])
]


def test_demo_session_is_grounded_checked_and_audited(prefect_server: None, fake: FakeBackend, tmp_path: Path,
                                                      mlflow_uri: str) -> None:
    corpus = tmp_path / "corpus.jsonl"
    corpus.write_text("\n".join(json.dumps(r) for r in CORPUS), encoding="utf-8")
    config = make_config(tmp_path / "data", "tracking.enabled=true", f"tracking.tracking_uri={mlflow_uri}",
                         f"session.corpus_path={corpus}")
    summary = _run(config)
    store = SessionStore.open(Path(summary["store_path"]), summary["session_id"])
    counts = session_counts(store)
    assert counts.verified > 0 and counts.unverified > 0 and counts.dropped > 0
    assert counts.proposed == counts.verified + counts.unverified + counts.dropped

    final = Path(summary["overview_path"]).parent
    claims = json.loads((final / "claims.json").read_text())
    assert claims["claims_total"] == len(claims["claims"]) > 0
    assert {c["status"] for c in claims["claims"]} <= {"supported", "unsupported"}
    overview = Path(summary["overview_path"]).read_text()
    assert "\n# Audit\n" in overview and "Independent audit by cosci-fake/cheap" in overview
    assert summary["grounding"]["evidence_verified"] == counts.verified

    client = MlflowClient(mlflow_uri)
    run = client.get_run(summary["mlflow_run_id"])
    for metric in ("evidence_proposed", "evidence_verified", "evidence_unverified", "evidence_dropped",
                   "claims_total", "claims_supported", "claims_unsupported", "audit_score"):
        assert metric in run.data.metrics, metric
    assert run.data.metrics["evidence_verified"] == counts.verified
    assert "claims.json" in {a.path for a in client.list_artifacts(run.info.run_id)}
