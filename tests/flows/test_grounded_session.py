"""End to end on the fake: a demo session over a local corpus ends with verified, misquoted and unseen evidence,
grounded or ``ungrounded`` debate hypotheses, ``final/claims.json`` with the statuses that say what was checked,
a blind audit, and the grounding metrics in MLflow. The fake's autopilot fails the way models do (a changed
word in a quote, a paper it never saw, an overclaim, random support verdicts); this test checks that cosci
marks what it fails, not which answers the fake gave."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from mlflow.tracking import MlflowClient

from cosci.grounding.claims import STATUSES
from cosci.grounding.evidence import session_counts
from cosci.llm.fake.provider import FakeBackend
from cosci.session.summary import SessionSummary
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
] + [{"id": "goal", "title": "Repurposing approved drugs for acute myeloid leukemia", "url": "https://corpus.example.org/goal",
      "abstract": "Approved drugs could be repurposed for acute myeloid leukemia, with the target they act on and a "
                  "first cell-line experiment to test each idea; drugs with a known safety profile, testable in AML "
                  "cell lines within weeks."}]
"""The demo's goal as a record too, so every hypothesis the fake composes from the goal's words has prior work."""
MARK = re.compile(rf"\[({'|'.join(STATUSES)})\]")


def test_demo_session_is_grounded_checked_and_audited(prefect_server: None, fake: FakeBackend, tmp_path: Path,
                                                      mlflow_uri: str) -> None:
    corpus = tmp_path / "corpus.jsonl"
    corpus.write_text("\n".join(json.dumps(r) for r in CORPUS), encoding="utf-8")
    config = make_config(tmp_path / "data", "tracking.enabled=true", f"tracking.tracking_uri={mlflow_uri}",
                         f"session.corpus_path={corpus}", "generation.debate_share=0.5")
    summary = _run(config)
    store = SessionStore.open(Path(summary["store_path"]), summary["session_id"])
    counts = session_counts(store)
    assert counts.verified > 0 and counts.misquoted > 0 and counts.unseen > 0
    assert counts.proposed == counts.verified + counts.misquoted + counts.unseen
    evidence_line = next(line for line in SessionSummary(**summary).lines() if line.startswith("evidence"))
    assert re.fullmatch(r"evidence  \d+ proposed: \d+ verified, \d+ misquoted, \d+ unseen", evidence_line)

    debates = [h for h in store.hypotheses.all() if h.mode == "debate"]
    assert debates and all(h.grounding == "ungrounded" or any(c["status"] == "verified" for c in h.citations)
                           for h in debates)
    final = Path(summary["overview_path"]).parent
    overview = Path(summary["overview_path"]).read_text()
    for h in debates:  # the leaderboard of the overview says which debate hypotheses are ungrounded
        if h.id in overview:
            assert re.search(rf"\[{h.id}\] \| [^|]+ \| [^|]+ \| \d+ \| debate \| {h.grounding} \|", overview)

    claims = json.loads((final / "claims.json").read_text())
    assert claims["claims_total"] == len(claims["claims"]) > 0
    assert {c["status"] for c in claims["claims"]} <= set(STATUSES)
    overclaimed = [c for c in claims["claims"] if c["overclaim"]]  # the fake's overclaim, found by the guards
    assert overclaimed and all(c["status"] in ("overclaim", "contradicted", "not_supported", "untraceable")
                               for c in overclaimed)
    assert len(MARK.findall(overview.split("# Appendix")[0])) == claims["claims_total"]
    assert claims["support_check"]["calls"] >= 1 and claims["audit"]["status"] == "done"
    assert "Independent audit by cosci-fake/cheap" in overview and claims["agreement"]["compared"] >= 0

    (audit_request,) = store.db.query("SELECT request FROM transcripts WHERE session_id=? AND mode='audit' "
                                       "AND outcome='ok'", (store.session_id,))
    sent = json.dumps(json.loads(audit_request["request"])["messages"])
    assert "# Main research directions" in sent
    assert MARK.search(sent) is None and "UNSUPPORTED" not in sent and "Claim map" not in sent

    assert summary["grounding"]["evidence_misquoted"] == counts.misquoted
    client = MlflowClient(mlflow_uri)
    run = client.get_run(summary["mlflow_run_id"])
    for metric in ("evidence_proposed", "evidence_verified", "evidence_misquoted", "evidence_unseen",
                   "claims_total", "claims_overclaim", "claims_hypothesis_only", "claims_supported",
                   "claims_untraceable", "audit_score"):
        assert metric in run.data.metrics, metric
    assert run.data.metrics["evidence_unseen"] == counts.unseen
    assert "claims.json" in {a.path for a in client.list_artifacts(run.info.run_id)}

    # docs/design.md#falsification, docs/design.md#prior-work: every hypothesis has its contract and its nearest
    # prior work, and the report shows both
    hyps = store.hypotheses.all()
    assert hyps and all(all(text for _, text in h.contract()) for h in hyps)
    prior = store.hypotheses.prior_work()
    assert {p.hypothesis_id for p in prior} == {h.id for h in hyps}
    page = (final / "report.html").read_text()
    for h in hyps:
        section = re.split(rf'<section class="hypothesis[^"]*" id="{h.id}">', page)[1].split("</section>", 1)[0]
        nearest = next(p for p in prior if p.hypothesis_id == h.id and p.rank == 1)
        assert "Nearest prior work" in section and nearest.url in section and "Refuted if" in section
