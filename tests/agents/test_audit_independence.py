"""The overview's audit runs only on a model other than the writer's (docs/design.md#claim-statuses): on a models
config with one model (``models=local``'s shape), no audit call is made and no score exists anywhere (the overview,
``claims.json``, ``cosci status``, the report, the stdout summary, MLflow's metrics); each says "not audited: no
independent model". A scripted fake with two models still audits (test_overview_grounding.py)."""

from __future__ import annotations

import asyncio
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest

from cosci.agents.audit import OverviewAuditor
from cosci.grounding.report import NOT_AUDITED, claims_document, grounding_metrics, status_lines
from cosci.llm.fake.provider import FakeBackend
from cosci.llm.gateway.routing import Router
from cosci.session.runtime import SessionRuntime
from cosci.session.summary import SessionSummary
from tests.agents.test_overview_grounding import STATEMENTS, review
from tests.conftest import make_config

ONE_MODEL = ("models.tiers.cheap.model=cosci-fake/strong", "models.tiers.mini.model=cosci-fake/strong")
"""The fake with every tier on one model: the shape of ``models=local`` (every tier the embedded 135M model)."""


class _NoCalls:
    """An LLM port that fails the test if the auditor calls it."""

    async def complete(self, *args: Any, **kwargs: Any) -> Any:
        raise AssertionError("the audit called a model although no independent model exists")


def test_the_local_models_config_has_no_independent_auditor(tmp_path: Path) -> None:
    """On ``models=local``'s own configuration the auditor finds no model other than the writer's and makes no
    call (no 135M model is loaded: the decision is the config's)."""
    cfg = make_config(tmp_path / "data", "models=local")
    agent = SimpleNamespace(config=cfg, deps=SimpleNamespace(router=Router(cfg), llm=_NoCalls()))
    task = SimpleNamespace(action="GenerateFinalResearchOverview")
    audit = asyncio.run(OverviewAuditor(agent, task).run("# Executive summary\nA claim.\n", None))  # type: ignore[arg-type]
    assert audit.model == audit.writer_model == "cosci-local/smollm2-135m-instruct"
    assert (audit.status, audit.score, audit.error) == ("not audited", None, NOT_AUDITED)
    section = audit.section()
    assert "Not audited: no independent model" in section and "Independent audit" not in section
    assert "score" not in section.lower()


@pytest.fixture
def players(planned: SessionRuntime, add_player) -> list[str]:
    ids = [add_player(s, elo=1300.0 - 40 * i, matches=4) for i, s in enumerate(STATEMENTS)]
    for i, hid in enumerate(ids):
        planned.store.hypotheses.add_review(hid, review("missing_piece", hid, i), task_id=f"T-rev-{i}")
    return ids


@pytest.mark.overrides(*ONE_MODEL)
async def test_one_model_means_no_audit_and_no_score_anywhere(planned: SessionRuntime, fake: FakeBackend,
                                                              run_task, players: list[str]) -> None:
    _, result = await run_task("metareview", "GenerateFinalResearchOverview", "final")
    assert fake.calls_for("metareview", "audit") == []  # no call: the writer's model would grade itself
    assert result.detail["claims_total"] > 0, result.detail
    assert result.detail["audit_score"] is None and result.detail["audit_agreement"] is None
    overview = planned.store.sessions.get().final_overview or ""
    audit_section = overview[overview.index("# Audit"):]
    assert "Not audited: no independent model" in audit_section and "cosci-fake/strong" in audit_section
    assert "Independent audit" not in overview and "Overall score" not in overview
    store = planned.store
    metrics = grounding_metrics(store)
    assert "audit_score" not in metrics and "audit_agreement" not in metrics  # what MLflow logs
    assert status_lines(store)[-1].startswith(f"audit        {NOT_AUDITED} (the writer's model cosci-fake/strong")
    doc = claims_document(store)
    assert doc is not None and doc["audit"]["status"] == "not audited" and "overall_score" not in doc["audit"]
    assert doc["agreement"] is None
    summary = SessionSummary("S-1", "idle", 0.0, 0, 3, 0, 1200.0, 1.0, "o.md", "s.sqlite", None,
                             grounding=metrics, audit=f"{NOT_AUDITED} (the writer's model ...)")
    (claims_line,) = [line for line in summary.lines() if line.startswith("claims")]
    assert claims_line.endswith(f"; {NOT_AUDITED}") and "score" not in claims_line
    from cosci.report.data import collect
    from cosci.report.render import render_html

    page = render_html(collect(store))
    assert f"Blind audit: {NOT_AUDITED}" in page and "score 1.00" not in page


def test_an_audit_the_money_left_cannot_hold_whole_is_made_short(tmp_path: Path, monkeypatch: pytest.MonkeyPatch
                                                                  ) -> None:
    """The whole audit refused for the session's money (its bound is more than is left) is tried in the short form
    once; the section and ``cosci status`` say it is abridged (design.md#budget, "The short audit"). Refused
    for an agent's share, or refused short too, it is ``unchecked`` as before."""
    from cosci.agents import audit as audit_module
    from cosci.grounding.report import audit_words
    from cosci.llm.errors import BudgetExceeded
    from cosci.records import RecordAudit

    cfg = make_config(tmp_path / "data")
    agent = SimpleNamespace(config=cfg, deps=SimpleNamespace(router=Router(cfg), llm=_NoCalls()))
    task = SimpleNamespace(action="GenerateFinalResearchOverview")
    asked: list[bool] = []
    rec = RecordAudit(overclaims=[], missing_caveats=[], overall_score=0.7, summary="Claims hold.")

    def scripted(*refusals: BudgetExceeded) -> Any:
        async def call(self: Any, route: Any, overview: str, material: Any, small: bool) -> RecordAudit:
            asked.append(small)
            if len(asked) <= len(refusals):
                raise refusals[len(asked) - 1]
            return rec
        return call

    session = BudgetExceeded("this call may cost up to $0.5599 of $5.00", scope="session", agent="metareview")
    monkeypatch.setattr(audit_module.OverviewAuditor, "_call", scripted(session))
    audit = asyncio.run(OverviewAuditor(agent, task).run("# Executive summary\nA claim.\n", None))  # type: ignore[arg-type]
    assert asked == [False, True] and audit.status == "done" and audit.error == audit_module.ABRIDGED
    assert "It does not change the overview. Abridged: the money left held only the short audit" in audit.section()
    assert audit_words({"claims_total": 1, "audit": audit.to_dict()}) == "done (abridged), score 0.70"
    for refusals in [(session, session), (BudgetExceeded("share", scope="agent", agent="metareview"),)]:
        asked.clear()
        monkeypatch.setattr(audit_module.OverviewAuditor, "_call", scripted(*refusals))
        audit = asyncio.run(OverviewAuditor(agent, task).run("# Executive summary\nA claim.\n", None))  # type: ignore[arg-type]
        assert audit.status == "unchecked" and asked == [False, True][:len(refusals)]
