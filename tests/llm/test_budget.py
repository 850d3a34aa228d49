"""The token budget (seed 001 "Token Budget System"): concurrent callers never push spending past the cap, the
reserve is drawn on only by the calls allowed to, refusals name their scope, and a resumed session restores
what it spent.
"""

from __future__ import annotations

import asyncio
import time
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from cosci.config.schema import CosciConfig
from cosci.llm.budget.token_budget import OutputRoom, Reservation, TokenBudget
from cosci.llm.errors import BudgetBusy, BudgetExceeded
from cosci.llm.fake.provider import FAKE, FakeBackend, FakeReply
from cosci.llm.gateway.adapter import RESERVE_MODES, estimate_call
from tests.llm.helpers import harness, make_config, spec_for

SHARES = {"generation": 0.3, "reflection": 0.3, "ranking": 0.34, "goal_parsing": 0.0}
RESERVE = 0.06
CALLERS = 8
EPS = 1e-9


# --- TokenBudget directly ---------------------------------------------------------------------------------
call = st.tuples(st.sampled_from(sorted(SHARES)), st.floats(0.0, 0.4), st.floats(0.0, 1.0), st.booleans())
"""(agent, estimate in USD, actual as a fraction of the estimate, use_reserve)"""


@settings(max_examples=150, deadline=None)
@given(cap=st.floats(0.05, 2.0), callers=st.lists(st.lists(call, max_size=12), min_size=CALLERS,
                                                   max_size=CALLERS))
def test_concurrent_callers_never_pass_the_cap(cap: float, callers: list[list[tuple[str, float, float, bool]]]
                                               ) -> None:
    budget = TokenBudget(cap, dict(SHARES), RESERVE)
    refusals: list[BudgetExceeded | BudgetBusy] = []
    drew_on_reserve: list[bool] = []

    async def caller(calls: list[tuple[str, float, float, bool]]) -> None:
        for agent, estimate, fraction, use_reserve in calls:
            try:
                res = budget.admit(agent, estimate, 100, use_reserve=use_reserve)
            except (BudgetExceeded, BudgetBusy) as exc:  # busy: it would fit once the calls in flight settle
                assert exc.agent == agent
                refusals.append(exc)
                await asyncio.sleep(0)
                continue
            assert res.from_reserve_usd <= EPS or use_reserve  # only use_reserve calls draw on the reserve
            drew_on_reserve.append(res.from_reserve_usd > EPS)
            await asyncio.sleep(0)  # other callers admit and settle while this call is "in flight"
            budget.settle(res, estimate * fraction, 50)
            assert budget.total_spent_usd <= cap + EPS

    async def run() -> None:
        await asyncio.gather(*(caller(c) for c in callers))

    asyncio.run(run())

    assert budget.total_spent_usd <= cap + EPS
    assert budget.reserve_used_usd <= budget.reserve_usd + EPS
    assert all(e.scope in ("session", "agent") for e in refusals)
    for agent, spent in budget.spent_usd.items():
        if not any(a == agent and r for c in callers for a, _, _, r in c):
            assert spent <= budget.working_usd + EPS  # beyond its share only what it borrowed of the working money
    if not any(drew_on_reserve):
        assert budget.reserve_used_usd <= EPS
    assert budget.remaining_usd() == pytest.approx(cap - budget.total_spent_usd)  # nothing left reserved


def test_refusals_name_their_scope() -> None:
    budget = TokenBudget(1.0, dict(SHARES), RESERVE)
    # generation's share is 0.30; beyond it, it may borrow what the others' floors (half their unspent shares:
    # 0.32) leave of the working money (0.94): 0.62 in all
    budget.refund(budget.admit("generation", 0.62, 10))
    with pytest.raises(BudgetExceeded) as info:
        budget.admit("generation", 0.63, 10)
    assert (info.value.scope, info.value.agent) == ("agent", "generation")

    held = budget.admit("goal_parsing", 0.05, 10, use_reserve=True)  # share 0: all from the reserve
    assert held.from_reserve_usd == pytest.approx(0.05)
    more = budget.admit("goal_parsing", 0.02, 10, use_reserve=True)  # the reserve's last 0.01, then money left
    assert more.from_reserve_usd == pytest.approx(0.01)
    budget.refund(held)
    budget.refund(more)

    for agent in ("generation", "reflection", "ranking"):
        limit = budget.agent_limit_usd(agent)
        budget.settle(budget.admit(agent, limit, 10), limit, 10)
    with pytest.raises(BudgetExceeded) as info:
        budget.admit("generation", 0.02, 10)  # 0.94 spent: the working money (cap - reserve) is spent
    assert (info.value.scope, info.value.agent) == ("session", "generation")
    budget.refund(budget.admit("generation", 0.06, 10, use_reserve=True))  # a reserve mode: the cap alone
    with pytest.raises(BudgetExceeded) as info:
        budget.admit("generation", 0.07, 10, use_reserve=True)  # 0.94 spent of 1.00
    assert (info.value.scope, info.value.agent) == ("session", "generation")


def test_the_token_cap_is_a_session_refusal() -> None:
    budget = TokenBudget(100.0, dict(SHARES), RESERVE, cap_tokens=1000)
    budget.settle(budget.admit("ranking", 0.01, 900), 0.01, 900)
    with pytest.raises(BudgetExceeded) as info:
        budget.admit("ranking", 0.01, 200)
    assert info.value.scope == "session"
    assert budget.working_budget_spent() is False
    budget.settle(budget.admit("ranking", 0.01, 100), 0.01, 100)
    assert budget.working_budget_spent() is True


def test_restore_books_what_a_resumed_session_spent() -> None:
    budget = TokenBudget(1.0, dict(SHARES), RESERVE)
    budget.restore({"generation": {"usd": 0.25, "tokens": 1000}, "goal_parsing": {"usd": 0.02, "tokens": 300}})

    assert budget.spent_usd == {"generation": 0.25, "goal_parsing": 0.02}
    assert budget.spent_tokens == 1300
    assert budget.reserve_used_usd == pytest.approx(0.02)  # the supervisor's share is 0: it used the reserve
    assert budget.remaining_usd() == pytest.approx(0.73)
    with pytest.raises(BudgetExceeded) as info:
        budget.admit("generation", 0.45, 10)  # 0.25 of 0.30 spent; free 0.67 x (1 - 0.32 / 0.94) = 0.44 to borrow
    assert info.value.scope == "agent"
    budget.admit("generation", 0.44, 10)


def test_working_budget_is_spent_at_cap_minus_reserve() -> None:
    budget = TokenBudget(1.0, dict(SHARES), RESERVE)
    budget.restore({"generation": {"usd": 0.3}, "reflection": {"usd": 0.3}, "ranking": {"usd": 0.33}})
    assert not budget.working_budget_spent()
    budget.restore({"ranking": {"usd": 0.01}})
    assert budget.working_budget_spent()  # 0.94 = cap - 6 % reserve: time for the final overview


# --- through the gateway, on the fake ---------------------------------------------------------------------
@pytest.fixture(scope="module")
def base(tmp_path_factory: pytest.TempPathFactory) -> CosciConfig:
    return make_config(tmp_path_factory.mktemp("budget") / "data")


MODES = [("ranking", "pairwise"), ("generation", "literature"), ("reflection", "full"),
         ("evolution", "simplify"), ("metareview", "system"), ("metareview", "final"),
         ("goal_parsing", "parse_goal"), ("ranking", "debate")]
"""One (agent, mode) per concurrent caller: the last-but-two and last-but-one may draw on the reserve."""


def priced(config: CosciConfig, usd_in: float, usd_out: float, cap: float) -> CosciConfig:
    """``config`` with all fake tiers at ``usd_in`` / ``usd_out`` USD per 1M tokens and a ``cap`` USD cap."""
    tiers = {name: entry.model_copy(update={"input_usd_per_mtok": usd_in, "output_usd_per_mtok": usd_out})
             for name, entry in config.models.tiers.items()}
    models = config.models.model_copy(update={"tiers": tiers})
    run = config.run.model_copy(update={"budget_usd": cap})
    return config.model_copy(update={"models": models, "run": run})


@settings(max_examples=15, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(usd_in=st.floats(0.1, 20.0), usd_out=st.floats(0.1, 40.0), cap=st.floats(0.05, 2.0),
       fill=st.lists(st.lists(st.floats(0.0, 1.0), min_size=1, max_size=4),
                     min_size=CALLERS, max_size=CALLERS))
def test_eight_concurrent_gateway_callers_never_pass_the_cap(base: CosciConfig, usd_in: float, usd_out: float,
                                                             cap: float, fill: list[list[float]]) -> None:
    """Each call's answer fills a random share of its ``max_output_tokens``, so actual spending comes close to
    the admitted estimates and the cap really binds."""
    FAKE.reset()
    h = harness(priced(base, usd_in, usd_out, cap))
    refused: list[BudgetExceeded] = []
    borrowed: dict[str, float] = {}  # USD: upper bounds of the calls admitted beyond the agent's own share
    admit = h.budget.admit

    def spy(agent: str, usd: float, tokens: int, *, use_reserve: bool = False,
            bound_usd: float | None = None, room: OutputRoom | None = None) -> Reservation:
        beyond = h.budget._overflow(agent, usd, h.budget._reserved_usd.get(agent, 0.0))
        res = admit(agent, usd, tokens, use_reserve=use_reserve, bound_usd=bound_usd, room=room)
        if beyond > EPS and not use_reserve:
            borrowed[agent] = borrowed.get(agent, 0.0) + res.bound_usd
        return res

    h.budget.admit = spy  # type: ignore[method-assign]

    async def caller(i: int) -> None:
        agent, mode = MODES[i]
        route = h.gateway.router.route(agent, mode)
        for j, share in enumerate(fill[i]):
            action = f"call-{i}-{j}"
            FAKE.script(FakeReply(text="x" * int(share * 4 * (route.max_output_tokens - 2))), action=action)
            try:
                await h.gateway.complete(spec_for(h.gateway, agent, mode, f"task {i}.{j}", action=action))
            except BudgetExceeded as exc:
                assert exc.agent == agent and exc.scope in ("session", "agent")
                refused.append(exc)

    async def run() -> None:
        await asyncio.gather(*(caller(i) for i in range(CALLERS)))

    asyncio.run(run())
    FAKE.reset()

    ok = [r for r in h.records if r.outcome == "ok"]
    budget = h.budget
    assert len(ok) + len(refused) == sum(len(f) for f in fill)
    assert budget.total_spent_usd == pytest.approx(sum(r.cost_usd for r in ok))
    assert budget.total_spent_usd <= cap + EPS  # the session cap holds at the calls' upper bounds
    for agent in ("ranking", "generation", "reflection", "evolution"):
        # admitted at their expected cost, the calls in flight (at most two per agent here) may overrun the share
        # by what they cost beyond that expectation, never by more than their upper bounds; beyond that an agent
        # spends only what it borrowed (design.md#budget: the others' floors bound each loan, token_budget tests)
        bounds = [estimate_call(r.model, 200_000, r.max_output_tokens)[0] for r in
                  (h.gateway.router.route(a, m) for a, m in MODES if a == agent)]
        limit = budget.agent_limit_usd(agent) + sum(bounds) + borrowed.get(agent, 0.0)
        assert budget.spent_usd.get(agent, 0.0) <= limit + EPS
    assert budget.remaining_usd() == pytest.approx(cap - budget.total_spent_usd)  # no reservation left
    assert sum(1 for r in h.records if r.outcome == "error:budget") == len(refused)


@pytest.mark.parametrize(("cap", "spent", "scope"), [(0.0004, 0.0, "session"), (1.0, 0.9197, "session")])
async def test_a_refused_call_is_never_sent(tmp_path: Path, fake: FakeBackend, cap: float, spent: float,
                                            scope: str) -> None:
    # ranking.pairwise on the fake cheap tier is bounded by ~0.015 USD (6048 output tokens at 2.5 USD/Mtok), and
    # ~0.00041 USD capped to its useful minimum (the tier's typical 150 output tokens; design.md#budget, "The last
    # call, capped"): more than a 0.0004 USD session's working money (0.00037). In a 1 USD session where ranking spent
    # its share (25 %) and borrowed all but 0.0003 of the working money (0.92), not even that fits: the money ran
    # out, nothing is sent
    h = harness(make_config(tmp_path / "data", f"run.budget_usd={cap}"))
    h.budget.restore({"ranking": {"usd": spent}})
    with pytest.raises(BudgetExceeded) as info:
        await h.gateway.complete(spec_for(h.gateway, "ranking", "pairwise"))
    assert (info.value.scope, info.value.agent) == (scope, "ranking")
    assert fake.calls == []  # refused before any request
    assert h.outcomes == ["error:budget"]


async def test_only_reserve_modes_draw_on_the_reserve(tmp_path: Path, fake: FakeBackend) -> None:
    assert {"goal_parsing.parse_goal", "metareview.final", "safety.classify", "metareview.audit",
            "metareview.claim_check"} == RESERVE_MODES
    h = harness(make_config(tmp_path / "data", "run.budget_usd=5"))
    await h.gateway.complete(spec_for(h.gateway, "goal_parsing", "parse_goal"))  # share 0: reserve only
    assert h.budget.spent_usd["goal_parsing"] > 0
    assert h.budget.reserve_used_usd == pytest.approx(h.budget.spent_usd["goal_parsing"])

    most = h.budget.working_usd - h.budget.total_spent_usd - 1e-4  # its share, and it borrowed the working money
    h.budget.restore({"metareview": {"usd": most}})
    await h.gateway.complete(spec_for(h.gateway, "metareview", "final"))  # may still run, on the reserve
    with pytest.raises(BudgetExceeded) as info:
        await h.gateway.complete(spec_for(h.gateway, "metareview", "system"))  # may not
    assert info.value.scope == "session"
    assert [c.mode for c in fake.calls] == ["parse_goal", "final"]


async def test_a_cancelled_call_releases_its_reservation(tmp_path: Path, fake: FakeBackend) -> None:
    h = harness(make_config(tmp_path / "data", "models.fake.latency_seconds=0.5"))
    call = asyncio.create_task(h.gateway.complete(spec_for(h.gateway, "ranking", "pairwise")))
    while not fake.calls:  # admitted and sent: the estimate is reserved
        await asyncio.sleep(0.01)
    assert h.budget.remaining_usd() < h.budget.cap_usd
    call.cancel()  # e.g. the session's deadline or an abort
    with pytest.raises(asyncio.CancelledError):
        await call
    assert h.budget.remaining_usd() == h.budget.cap_usd
    assert h.budget.total_spent_usd == 0.0


# --- admission that cannot starve (issue 11) ---------------------------------------------------------------
def test_a_call_that_fits_only_after_settlement_waits_instead_of_failing(tmp_path: Path, fake: FakeBackend) -> None:
    """The second concurrent call of an agent is held until the first settles, then admitted: reservations in
    flight are not money spent (before issue 11 it was refused and the agent never scheduled again)."""
    config = make_config(tmp_path / "data")
    h = harness(config)
    limit = h.budget.agent_limit_usd("generation")
    route = h.gateway.router.route("generation", "literature")
    expected = estimate_call(route.model, 400, h.gateway.sizer.expected(route.key, route.max_output_tokens,
                                                                        route.typical_output_tokens))[0]
    first = h.budget.admit("generation", limit - expected / 2, 10)  # another call of generation's, in flight

    async def settle_soon() -> None:
        await asyncio.sleep(0.2)
        h.budget.settle(first, 0.01 * limit, 10)

    async def run() -> float:
        t0 = time.monotonic()
        waiting = asyncio.create_task(h.gateway.complete(spec_for(h.gateway, "generation", "literature",
                                                                  action="second")))
        await settle_soon()
        await waiting
        return time.monotonic() - t0

    assert asyncio.run(run()) >= 0.19  # it waited for the settlement
    assert h.outcomes == ["ok"]


def test_a_call_still_waiting_when_the_wait_runs_out_is_busy_not_exhausted(tmp_path: Path,
                                                                            fake: FakeBackend) -> None:
    config = make_config(tmp_path / "data", "budget.admission_wait_seconds=0.2")
    h = harness(config)
    h.budget.admit("goal_parsing", h.budget.working_usd, 10, use_reserve=True)  # all the working money; never settles
    with pytest.raises(BudgetBusy) as info:
        asyncio.run(h.gateway.complete(spec_for(h.gateway, "generation", "literature")))
    assert (info.value.scope, info.value.agent) == ("session", "generation")
    assert fake.calls == [] and h.outcomes == ["error:budget"]


def test_admission_learns_the_answer_length_of_each_mode(tmp_path: Path, fake: FakeBackend) -> None:
    h = harness(make_config(tmp_path / "data"))
    route = h.gateway.router.route("ranking", "pairwise")
    prior = h.gateway.sizer.expected(route.key, route.max_output_tokens, route.typical_output_tokens)
    assert prior == route.typical_output_tokens == 150  # conf/models/fake.yaml
    fake.script(FakeReply(text="x" * 4000), agent="ranking")  # ~1000 tokens
    asyncio.run(h.gateway.complete(spec_for(h.gateway, "ranking", "pairwise")))
    learned = h.gateway.sizer.expected(route.key, route.max_output_tokens, route.typical_output_tokens)
    assert 1000 < learned <= route.max_output_tokens
