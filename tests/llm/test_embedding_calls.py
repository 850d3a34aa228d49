"""Hosted embeddings through the gateway (issue 16): proximity's budget share, transcripts, one retry owner.

The scripted fake serves ``cosci-fake/embedding`` through LiteLLM's ``aembedding`` (priced in the config), so
these run LiteLLM's real embedding path, the gateway's budget and its retry policy, offline.
"""

from __future__ import annotations

import pytest

from cosci.config.schema import CosciConfig, EmbeddingsCfg
from cosci.llm.budget.token_budget import SHARE_FLOOR
from cosci.llm.errors import BudgetExceeded
from cosci.llm.fake.provider import FakeBackend
from cosci.llm.gateway.embedding_calls import EmbeddingCalls
from cosci.supervisor.loop import Supervisor
from tests.llm.helpers import harness

MODEL = "cosci-fake/embedding"
TEXTS = ["Metformin inhibits mitochondrial complex I in AML stem cells.", "Statins deplete isoprenoids."]


def hosted_config(config: CosciConfig, usd_per_mtok: float, **run: float) -> CosciConfig:
    models = config.models.model_copy(update={"embeddings": EmbeddingsCfg(chain=[MODEL, "hash"],
                                                                          prices={MODEL: usd_per_mtok})})
    return config.model_copy(update={"models": models, "run": config.run.model_copy(update=run)})


async def test_an_embedding_call_is_admitted_settled_and_recorded(config: CosciConfig, fake: FakeBackend) -> None:
    h = harness(hosted_config(config, 2.0))
    x = await EmbeddingCalls(h.gateway).embed(MODEL, TEXTS, action="dedup", task_id="T-1")

    assert x.shape == (2, 1024) and fake.embedded == [TEXTS]
    [row] = h.records
    tokens = sum(len(t) for t in TEXTS) // 4 + 1  # the fake's usage
    assert (row.agent, row.mode, row.action, row.task_id, row.outcome) == ("proximity", "embedding", "dedup",
                                                                            "T-1", "ok")
    assert row.input_tokens == tokens
    assert row.cost_usd == pytest.approx(tokens * 2.0 / 1e6)  # LiteLLM's cost over the registered price
    assert h.budget.spent_usd["proximity"] == pytest.approx(row.cost_usd)


async def test_a_call_past_proximitys_share_is_refused_before_sending(config: CosciConfig,
                                                                       fake: FakeBackend) -> None:
    cfg = hosted_config(config, 1e5, budget_usd=1.0)  # 2 % of 1 USD = 0.02 USD; one call costs ~0.5 USD
    h = harness(cfg)
    with pytest.raises(BudgetExceeded) as err:
        await EmbeddingCalls(h.gateway).embed(MODEL, TEXTS)
    assert err.value.agent == "proximity"
    assert fake.embedded == []  # nothing was sent
    assert [r.outcome for r in h.records] == ["error:budget"]


async def test_transient_faults_are_retried_by_the_gateway_only(config: CosciConfig, fake: FakeBackend) -> None:
    h = harness(hosted_config(config, 2.0))
    fake.embedding_faults = ["rate_limit", "overloaded"]
    x = await EmbeddingCalls(h.gateway).embed(MODEL, TEXTS)
    assert x.shape == (2, 1024)
    assert len(fake.embedded) == 3  # two faults, then the answer: LiteLLM itself did not retry
    assert h.outcomes == ["retry:rate_limit", "retry:overloaded", "ok"]


async def test_a_session_with_a_hosted_embedder_never_takes_more_than_proximity_may(config: CosciConfig,
                                                                                    fake: FakeBackend) -> None:
    """Proximity spends its share, then may borrow working money the other agents' floors leave
    (design.md#budget)."""
    from cosci.session.runtime import SessionRuntime

    # share: 0.04 USD; a dedup call embeds a hypothesis of ~200 characters: ~0.015 USD at 300 USD per 1M tokens
    cfg = hosted_config(config, 300.0, budget_usd=2.0, wall_clock_seconds=60)
    rt = await SessionRuntime.open(cfg, models_choice="fake")
    try:
        assert rt.deps.embedder.model == MODEL
        reason = await Supervisor(cfg, rt.store, rt.budget, rt.execute).run()
        rows = rt.store.db.query("SELECT outcome, cost_usd, action FROM transcripts WHERE agent='proximity'")
        spent = sum(r["cost_usd"] for r in rows)
        share = cfg.agents["proximity"].budget_share * cfg.run.budget_usd
        may = rt.budget.working_usd * (1 - SHARE_FLOOR) + share  # its share, then half of what is free at most
        assert spent <= may + 1e-12, f"proximity spent {spent:.4f} of the {may:.4f} USD it may ({reason})"
        assert rt.budget.total_spent_usd <= cfg.run.budget_usd
        outcomes = [r["outcome"] for r in rows]
        assert outcomes.count("ok") >= 2  # it embedded
        assert {r["action"] for r in rows if r["outcome"] == "ok"} >= {"probe", "dedup"}
        assert rt.store.logs.spend()["proximity"]["usd"] == pytest.approx(spent)
        assert [e["payload"]["model"] for e in rt.store.logs.events("embedding_model")] == [MODEL]
    finally:
        await rt.close()
