"""Retries, error mapping and the degradation chain of the gateway (issue 3), on the scripted fake.

The gateway is the one owner of retries: transient faults are retried with backoff never shorter than the
provider's ``Retry-After`` (capped at ``retry.max_delay_seconds``), permanent ones are raised at once, and an
unavailable model steps down the degradation chain except for the never-degrade modes.
"""

from __future__ import annotations

import time
from pathlib import Path

import pytest

from cosci.config.schema import CosciConfig
from cosci.llm import errors as E
from cosci.llm.fake.provider import FakeBackend, FakeReply
from tests.llm.helpers import harness, make_config, spec_for


@pytest.fixture
def patient(tmp_path: Path) -> CosciConfig:
    """The fake with no backoff of its own (base delay 0) but room for a provider's Retry-After (cap 5 s)."""
    return make_config(tmp_path / "data", "retry.base_delay_seconds=0", "retry.max_delay_seconds=5")


async def test_rate_limit_then_success_honours_retry_after(patient: CosciConfig, fake: FakeBackend) -> None:
    h = harness(patient)
    fake.script(FakeReply(fault="rate_limit", retry_after=0.25))

    resp = await h.gateway.complete(spec_for(h.gateway, "ranking", "pairwise"))

    assert resp.text  # the autopilot's verdict, on the second attempt
    assert [c.fault for c in fake.calls] == ["rate_limit", None]
    assert fake.calls[0].messages == fake.calls[1].messages  # the same request, sent again
    assert h.waits == [0.25]  # exactly the provider's Retry-After (backoff alone would be 0)
    assert h.outcomes == ["retry:rate_limit", "ok"]
    assert [r.attempt for r in h.records] == [1, 2]
    assert h.records[0].cost_usd == 0.0 and h.records[1].cost_usd > 0
    assert h.budget.total_spent_usd == pytest.approx(h.records[1].cost_usd)  # the failed attempt cost nothing
    # nothing is left reserved
    assert h.budget.remaining_usd() == pytest.approx(h.budget.cap_usd - h.records[1].cost_usd)


async def test_retry_after_really_waits(patient: CosciConfig, fake: FakeBackend) -> None:
    h = harness(patient, real_sleep=True)
    fake.script(FakeReply(fault="rate_limit", retry_after=0.05))
    started = time.perf_counter()
    await h.gateway.complete(spec_for(h.gateway, "ranking", "pairwise"))
    assert time.perf_counter() - started >= 0.05
    assert h.outcomes == ["retry:rate_limit", "ok"]


async def test_retry_after_is_capped_at_the_max_delay(patient: CosciConfig, fake: FakeBackend) -> None:
    h = harness(patient)
    fake.script(FakeReply(fault="rate_limit", retry_after=3600))
    await h.gateway.complete(spec_for(h.gateway, "ranking", "pairwise"))
    assert h.waits == [5.0]


@pytest.mark.parametrize(("fault", "kind", "attempts_key"), [
    ("rate_limit", "rate_limit", "rate_limit_attempts"),
    ("overloaded", "overloaded", "overloaded_attempts"),
    ("server_error", "server_error", "server_error_attempts"),
    ("timeout", "timeout", "timeout_attempts"),
    ("connection", "connection", "timeout_attempts"),
])
async def test_transient_faults_are_retried_up_to_the_seed_table(config: CosciConfig, fake: FakeBackend,
                                                                  fault: str, kind: str,
                                                                  attempts_key: str) -> None:
    h = harness(config)
    attempts = getattr(config.retry, attempts_key)
    fake.script(FakeReply(fault=fault), times=attempts)

    with pytest.raises(E.TransientLLMError) as info:
        await h.gateway.complete(spec_for(h.gateway, "ranking", "pairwise"))

    assert info.value.kind == kind and info.value.model == "cosci-fake/cheap"
    assert len(fake.calls) == attempts  # 429: 6, 529: 8, 5xx: 5, timeout: 3 (seed 004)
    assert h.outcomes == [f"retry:{kind}"] * (attempts - 1) + [f"error:{kind}"]
    assert len(h.waits) == attempts - 1
    assert h.budget.total_spent_usd == 0.0 and h.budget.remaining_usd() == h.budget.cap_usd


async def test_one_transient_fault_then_success(config: CosciConfig, fake: FakeBackend) -> None:
    h = harness(config)
    fake.script(FakeReply(fault="overloaded"))
    fake.script(FakeReply(fault="server_error"))
    await h.gateway.complete(spec_for(h.gateway, "ranking", "pairwise"))
    assert h.outcomes == ["retry:overloaded", "retry:server_error", "ok"]


async def test_bad_request_is_not_retried(config: CosciConfig, fake: FakeBackend) -> None:
    h = harness(config)
    fake.script(FakeReply(fault="bad_request"))

    with pytest.raises(E.PermanentLLMError) as info:
        await h.gateway.complete(spec_for(h.gateway, "ranking", "pairwise"))

    assert not isinstance(info.value, E.TransientLLMError)
    assert len(fake.calls) == 1 and h.waits == []
    assert h.outcomes == ["error:bad_request"]


async def test_not_found_walks_the_degradation_chain(config: CosciConfig, fake: FakeBackend) -> None:
    h = harness(config)
    fake.script(FakeReply(fault="not_found"))

    resp = await h.gateway.complete(spec_for(h.gateway, "generation", "literature"))

    assert [c.model for c in fake.calls] == ["cosci-fake/strong", "cosci-fake/cheap"]
    assert fake.calls[0].thinking == {"type": "enabled", "budget_tokens": 4000}
    assert fake.calls[1].thinking is None  # the cheap tier takes no thinking
    assert resp.model == "cosci-fake/cheap"
    assert h.outcomes == ["error:model_unavailable", "degraded", "ok"]  # the step is recorded (design.md#routing)
    assert [r.model for r in h.records] == ["cosci-fake/strong", "cosci-fake/strong", "cosci-fake/cheap"]
    assert h.records[1].error == "cosci-fake/strong -> cosci-fake/cheap"


async def test_the_chain_ends_with_model_unavailable(config: CosciConfig, fake: FakeBackend) -> None:
    h = harness(config)
    fake.script(FakeReply(fault="not_found"), times=3)
    with pytest.raises(E.ModelUnavailable, match="no model left"):
        await h.gateway.complete(spec_for(h.gateway, "generation", "literature"))
    assert [c.model for c in fake.calls] == ["cosci-fake/strong", "cosci-fake/cheap", "cosci-fake/mini"]


@pytest.mark.parametrize(("agent", "mode"), [("reflection", "verification"), ("metareview", "final")])
async def test_never_degrade_modes_raise_model_unavailable(config: CosciConfig, fake: FakeBackend, agent: str,
                                                           mode: str) -> None:
    h = harness(config)
    fake.script(FakeReply(fault="not_found"))
    with pytest.raises(E.ModelUnavailable, match="never degrades"):
        await h.gateway.complete(spec_for(h.gateway, agent, mode))
    assert [c.model for c in fake.calls] == ["cosci-fake/strong"]  # one call, no weaker model tried
    assert h.outcomes == ["error:model_unavailable"]
