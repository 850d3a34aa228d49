"""The one admission path (issue 28, design.md#budget): concurrent callers admitted, settled, failed and cancelled
through :mod:`cosci.llm.budget.admission` never pass the cap and lose nothing; no other module calls
``TokenBudget.admit``; the budget's errors are cosci's errors.
"""

from __future__ import annotations

import ast
import asyncio
import contextlib
from pathlib import Path
from unittest.mock import patch

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from cosci.errors import CosciError
from cosci.llm.batches import batch_gateway
from cosci.llm.batches.batch_gateway import BatchGateway
from cosci.llm.budget import admission as admission_module
from cosci.llm.budget.admission import Admission, admit_call
from cosci.llm.budget.tail import MIN_RATIOS, TailFactor
from cosci.llm.budget.token_budget import SHARE_FLOOR, OutputRoom, TokenBudget
from cosci.llm.errors import BudgetBusy, BudgetError, BudgetExceeded
from cosci.llm.port.types import BatchRequest
from tests.llm.helpers import harness, make_config, spec_for

ROOT = Path(__file__).resolve().parents[2]
SHARES = {"generation": 0.3, "reflection": 0.3, "ranking": 0.32, "goal_parsing": 0.0}
RESERVE = 0.08
EPS = 1e-9
OUTCOMES = ("settle", "fail", "cancel")


class ProviderDown(Exception):
    """A provider call that failed after admission (its reservation must be refunded)."""


call = st.tuples(st.sampled_from(sorted(SHARES)), st.floats(0.0, 0.3),
                 st.one_of(st.floats(1.0, 3.0), st.floats(3.0, 30.0)), st.one_of(st.floats(0.0, 1.0), st.just(1.0)),
                 st.sampled_from(OUTCOMES), st.integers(0, 3), st.booleans(), st.sampled_from([0.0, 0.002]))
"""(agent, expected USD, upper bound as a multiple of it (up to 30x: an answer far longer than expected), actual as
a fraction of the bound (often exactly the bound: the adversarial case), outcome, awaits in flight, use_reserve,
admission wait in seconds)"""
ratios = st.lists(st.floats(0.1, 4.0), max_size=3 * MIN_RATIOS)
"""Ratios actual/expected the session measured before (fewer than ``MIN_RATIOS``: the prior, upper-bound holds)."""


Call = tuple[str, float, float, float, str, int, bool, float]


class Callers:
    """Concurrent callers on one budget, each making its calls one after another; what they settled and were refused."""

    def __init__(self, budget: TokenBudget) -> None:
        self.budget = budget
        self.settled: list[tuple[str, float, int]] = []  # (agent, USD, tokens) of every settled call
        self.refused: list[BudgetError] = []
        self.working_overrun = 0.0  # USD the working calls cost beyond what they held (expected + tail reserve)
        self.working_spent = 0.0

    def invariant(self) -> None:
        """Spending stays under the cap; with every call in flight at its upper bound (the worst case) too."""
        budget = self.budget
        _, held, bound = budget.held_usd()
        assert budget.total_spent_usd <= budget.cap_usd + EPS
        assert budget.total_spent_usd + bound <= budget.cap_usd + EPS  # whatever the calls in flight cost
        assert budget.remaining_usd() >= -EPS and held <= bound + EPS

    async def one(self, agent: str, usd: float, factor: float, fraction: float, outcome: str, awaits: int,
                  use_reserve: bool, wait: float) -> None:
        bound = usd * factor
        try:
            admission = await admit_call(self.budget, agent, usd, 500, bound_usd=bound, use_reserve=use_reserve,
                                         wait_seconds=wait)
        except BudgetError as exc:
            assert exc.agent == agent and exc.scope in ("session", "agent")
            self.refused.append(exc)
            return
        with admission:
            for _ in range(awaits):  # in flight: the other callers admit, settle and fail meanwhile
                self.invariant()
                await asyncio.sleep(0)
            if outcome == "fail":
                raise ProviderDown(agent)
            res = admission.reservation
            assert res.usd - EPS <= res.hold_usd <= res.bound_usd + EPS  # held: expected + tail, at most the bound
            admission.settle(bound * fraction, 300)
            self.settled.append((agent, bound * fraction, 300))
            if not use_reserve:
                self.working_spent += bound * fraction
                self.working_overrun += max(bound * fraction - res.hold_usd, 0.0)
        assert admission.usd == 0.0

    async def caller(self, calls: list[Call]) -> None:
        for args in calls:
            task = asyncio.create_task(self.one(*args))
            if args[4] == "cancel":  # e.g. the session's deadline: while waiting, in flight, or already done
                for _ in range(args[5]):
                    await asyncio.sleep(0)
                task.cancel()
            with contextlib.suppress(ProviderDown, asyncio.CancelledError):
                await task
            self.invariant()

    async def run(self, callers: list[list[Call]]) -> None:
        await asyncio.gather(*(self.caller(c) for c in callers))


@settings(max_examples=60, deadline=None)
@given(cap=st.floats(0.05, 2.0), callers=st.lists(st.lists(call, max_size=8), min_size=2, max_size=6),
       seen=ratios)
def test_interleaved_admissions_never_pass_the_cap_and_lose_nothing(cap: float, callers: list[list[Call]],
                                                                    seen: list[float]) -> None:
    """Calls held at expected cost plus the tail reserve, settled at up to their upper bounds (far above what they
    expected), never pass the cap; what working calls spend beyond the working money is only what they cost beyond
    their holds, so the reserve is kept for the final overview."""
    budget = TokenBudget(cap, dict(SHARES), RESERVE, cap_tokens=20_000)
    for r in seen:
        budget.tail.observe(1.0, r)
    run = Callers(budget)
    with patch.object(admission_module, "ADMISSION_POLL_SECONDS", 0.0):
        asyncio.run(run.run(callers))

    run.invariant()
    assert budget.remaining_usd() == pytest.approx(cap - budget.total_spent_usd, abs=EPS)  # nothing held
    assert budget._reserved_tokens == 0 and budget._reserve_reserved_usd == pytest.approx(0.0, abs=EPS)
    assert all(v == pytest.approx(0.0, abs=EPS) for v in budget._reserved_usd.values())
    assert budget.total_spent_usd == pytest.approx(sum(u for _, u, _ in run.settled), abs=EPS)  # nothing lost
    assert budget.spent_tokens == sum(t for _, _, t in run.settled)
    assert run.working_spent <= budget.working_usd + run.working_overrun + EPS  # the reserve stays for the overview
    for agent in SHARES:
        assert budget.spent_usd.get(agent, 0.0) == pytest.approx(sum(u for a, u, _ in run.settled if a == agent),
                                                                 abs=EPS)


def test_an_admission_settles_once_and_refunds_only_what_it_holds() -> None:
    budget = TokenBudget(1.0, dict(SHARES), RESERVE)
    admission = asyncio.run(admit_call(budget, "generation", 0.1, 100, bound_usd=0.2))
    assert admission.usd == 0.1 and budget.remaining_usd() == pytest.approx(0.8)
    admission.settle(0.05, 80)
    admission.refund()  # already settled: nothing more happens
    with pytest.raises(RuntimeError, match="already settled"):
        admission.settle(0.05, 80)
    assert (budget.total_spent_usd, budget.spent_tokens) == (pytest.approx(0.05), 80)
    Admission.unreserved(budget, "ranking").settle(0.02, 10)  # a resumed session's batch result: booked as it is
    assert budget.spent_usd["ranking"] == pytest.approx(0.02)
    assert budget.remaining_usd() == pytest.approx(1.0 - 0.07)


def test_a_busy_admission_waits_then_is_busy() -> None:
    budget = TokenBudget(1.0, dict(SHARES), RESERVE)
    # the most generation may take: its share and what the others' floors leave of the working money (0.61 USD)
    most = budget.working_usd - SHARE_FLOOR * sum(s for a, s in SHARES.items() if a != "generation")
    held = asyncio.run(admit_call(budget, "generation", most, 10))  # in flight
    # beside it, generation may borrow 0.31 free x (1 - floors 0.31 / 0.92) = 0.21
    with pytest.raises(BudgetBusy):
        asyncio.run(admit_call(budget, "generation", 0.25, 10, wait_seconds=0.06))
    held.refund()
    with pytest.raises(BudgetExceeded):
        asyncio.run(admit_call(budget, "generation", most + 0.01, 10, wait_seconds=5.0))  # never fits: no wait


async def test_a_batch_busy_halfway_refunds_the_requests_admitted_before(tmp_path: Path,
                                                                       monkeypatch: pytest.MonkeyPatch) -> None:
    """Before the one path, a batch whose second request was busy kept the first one's reservation for good (no
    batch was created, so no result ever settled it)."""
    h = harness(make_config(tmp_path / "data", "models=opus", "run.budget_usd=25"))
    admitted: list[Admission] = []

    async def busy_second(*args: object, **kwargs: object) -> Admission:
        if admitted:
            raise BudgetBusy("ranking share: in flight", scope="agent", agent="ranking")
        admitted.append(await admit_call(*args, **kwargs))  # type: ignore[arg-type]
        return admitted[0]

    monkeypatch.setattr(batch_gateway, "admit_call", busy_second)
    batches = BatchGateway(h.gateway)
    reqs = [BatchRequest(f"M-{i}", spec_for(h.gateway, "ranking", "pairwise", f"Compare pair {i}."))
            for i in range(2)]
    with pytest.raises(BudgetBusy):
        await batches.submit(reqs)
    assert admitted[0].reservation.usd > 0 and admitted[0].settled
    assert h.budget.remaining_usd() == h.budget.cap_usd and h.budget.total_spent_usd == 0.0
    assert batches.reserved_usd("M-0") == 0.0


def test_calls_costing_their_upper_bound_never_pass_the_cap() -> None:
    """The adversarial case of the tail reserve: the session measured actual = expected, so calls are held at their
    expected cost, then every call costs its upper bound, 10x that. The worst-case rule admitted only as many as
    fit the cap at their bounds; their overrun went into the reserve, not past the cap."""
    budget = TokenBudget(1.0, {"ranking": 0.92}, RESERVE)
    for _ in range(MIN_RATIOS):  # 0.70 USD spent, each call at exactly its expected cost
        budget.settle(budget.admit("ranking", 0.07, 1, bound_usd=0.14), 0.07, 1)
    assert budget.tail.factor == 1.0
    held = []
    with contextlib.suppress(BudgetBusy):
        while True:
            held.append(budget.admit("ranking", 0.01, 1, bound_usd=0.1))
    assert [r.hold_usd for r in held] == [0.01] * len(held)  # held at expected: no tail measured
    assert len(held) == 3  # 0.30 USD left in the cap: the worst case bounds what is in flight, not the holds
    for r in held:
        budget.settle(r, r.bound_usd, 1)  # each costs its upper bound, 10x its hold
    assert budget.total_spent_usd <= budget.cap_usd + EPS
    assert budget.total_spent_usd > budget.working_usd  # the overrun reached the reserve, and stopped at the cap


async def test_a_call_the_money_left_cannot_hold_is_admitted_with_its_output_capped() -> None:
    """Scripted prices (design.md#budget, "The last call, capped"): a call's prompt is 0.20 USD at its bound, its
    output 0.0001 USD a token, up to 4000 tokens (upper bound 0.60 USD), its useful minimum 500 tokens."""
    budget = TokenBudget(5.0, {"generation": 1.0 - RESERVE, "metareview": 0.0}, RESERVE)  # working 4.60, reserve 0.40
    room = OutputRoom(0.20, 0.0001, 500, 4000)
    budget.restore({"generation": {"usd": 4.30}})  # 0.30 USD of working money left: its hold (0.60) does not fit
    capped = await admit_call(budget, "generation", 0.25, 5000, bound_usd=0.60, room=room)
    res = capped.reservation
    assert capped.max_output_tokens == 1000  # (0.30 - 0.20) / 0.0001: its upper bound fits exactly
    assert res.bound_usd == res.hold_usd == pytest.approx(0.30) and res.usd == 0.25 and res.tokens == 2000
    with pytest.raises(BudgetBusy):  # fits at its own cap once the call in flight settles: it waits, not capped
        await admit_call(budget, "metareview", 0.25, 5000, bound_usd=0.60, room=room, use_reserve=True)
    capped.settle(res.bound_usd, res.tokens)  # the provider stopped at max_tokens: it cost its bound, no more
    assert budget.total_spent_usd == pytest.approx(budget.working_usd)  # the working money, not the reserve

    with pytest.raises(BudgetExceeded) as info:  # nothing left of the working money: not even 500 tokens fit
        await admit_call(budget, "generation", 0.25, 5000, bound_usd=0.60, room=room)
    assert str(info.value).endswith("this call may cost up to $0.6000 of $5.00")  # the call at its own cap
    assert info.value.stop_line() == ("the next generation call would not fit in the $0.40 left; its upper bound was"
                                      " $0.60")
    audit = await admit_call(budget, "metareview", 0.25, 5000, bound_usd=0.60, room=room, use_reserve=True)
    assert audit.max_output_tokens == 2000  # the reserve modes: the cap's 0.40 left, the upper bound 0.60 does not
    busy = OutputRoom(0.10, 0.0001, 500, 4000)  # fits only once the audit in flight settles (0.40 left, 0.15 needed)
    with pytest.raises(BudgetBusy):
        await admit_call(budget, "metareview", 0.15, 5000, bound_usd=0.50, room=busy, use_reserve=True)
    audit.settle(0.35, 1000)
    assert budget.total_spent_usd <= budget.cap_usd + EPS


async def test_the_gateway_sends_a_capped_call_with_its_lowered_max_tokens(tmp_path: Path) -> None:
    """ranking.pairwise on the fake cheap tier: a prompt of ~0.00004 USD at its bound, 2.5 USD/Mtok of output, 6048
    tokens at most. With 0.002 USD of working money left it is sent with max_tokens ~780; the fake, like a provider,
    stops there (its scripted answer is 2000 tokens), so it costs no more than it held."""
    from cosci.llm.fake.provider import FAKE, FakeReply

    FAKE.reset()
    h = harness(make_config(tmp_path / "data", "run.budget_usd=1.0"))
    h.budget.restore({"ranking": {"usd": h.budget.working_usd - 0.002}})
    FAKE.script(FakeReply(text="x" * 8000), agent="ranking")
    resp = await h.gateway.complete(spec_for(h.gateway, "ranking", "pairwise"))
    sent = h.records[-1].request["max_tokens"]
    assert 150 < sent < 6048 and resp.output_tokens <= sent and resp.finish_reason == "length"
    assert h.budget.total_spent_usd <= h.budget.working_usd + EPS  # within its hold: the reserve untouched
    FAKE.reset()


@settings(max_examples=60, deadline=None)
@given(cap=st.floats(0.5, 2.0), calls=st.lists(st.tuples(
    st.floats(0.0, 0.2), st.floats(1e-5, 1e-3), st.integers(1, 400), st.integers(400, 4000), st.floats(0.0, 1.0),
    st.booleans()), max_size=40))
def test_calls_admitted_capped_never_pass_the_cap(cap: float, calls: list[tuple[float, float, int, int, float, bool]]
                                                  ) -> None:
    """However the prompts and output prices fall, calls admitted capped (each costing up to the bound of the cap it
    was sent with) keep spending within the cap, and the working calls within the working money."""
    budget = TokenBudget(cap, {"generation": 1.0 - RESERVE}, RESERVE)
    for input_usd, per_token, least, most, fraction, reserve in calls:
        room = OutputRoom(input_usd, per_token, least, most)
        try:
            res = budget.admit("generation", room.bound_usd(least), most, bound_usd=room.bound_usd(most), room=room,
                               use_reserve=reserve)
        except BudgetExceeded as exc:
            assert exc.scope == "session" and room.bound_usd(least) > 0
            continue
        sent = res.max_output_tokens or most
        assert least <= sent <= most and res.bound_usd == pytest.approx(room.bound_usd(sent))
        budget.settle(res, room.bound_usd(sent) * (1.0 if fraction > 0.5 else fraction), res.tokens)
        assert budget.total_spent_usd <= cap + EPS
        assert reserve or budget.spent_usd.get("generation", 0.0) <= cap + EPS


def test_the_tail_factor_is_the_measured_quantile_after_a_prior_at_the_bound() -> None:
    tail = TailFactor()
    assert tail.hold(1.0, 5.0) == 5.0  # nothing measured: the conservative prior holds the upper bound
    for r in [0.5] * (MIN_RATIOS - 1):
        tail.observe(2.0, 2.0 * r)
    assert tail.hold(1.0, 5.0) == 5.0
    tail.observe(2.0, 6.0)  # one call at 3x its expectation, in the top 5 %
    assert tail.factor == 3.0 and tail.hold(1.0, 5.0) == 3.0 and tail.hold(1.0, 2.0) == 2.0  # never above the bound
    for _ in range(100):
        tail.observe(1.0, 0.5)
    assert tail.factor == 1.0 and tail.hold(1.0, 5.0) == 1.0  # never below the expectation


def test_the_budget_errors_are_one_cosci_family() -> None:
    assert issubclass(BudgetBusy, BudgetError) and issubclass(BudgetExceeded, BudgetError)
    assert issubclass(BudgetError, CosciError)


def admit_calls(path: Path) -> list[int]:
    """Lines of ``path`` calling a method named ``admit`` (``budget.admit(...)``, however the call is spelled)."""
    tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
    return [node.lineno for node in ast.walk(tree) if isinstance(node, ast.Call)
            and isinstance(node.func, ast.Attribute) and node.func.attr == "admit"]


def test_only_the_admission_module_calls_token_budget_admit() -> None:
    """Completions, provider batches and embeddings are admitted through ``cosci/llm/budget/admission.py`` alone
    (docs/ARCHITECTURE.md "Budget"): a call site of its own would be a second path, with its own waits and refunds."""
    helper = ROOT / "cosci" / "llm" / "budget" / "admission.py"
    assert admit_calls(helper)  # the scan sees the one call there is
    sources = [p for part in ("cosci", "flows") for p in sorted((ROOT / part).rglob("*.py")) if p != helper]
    assert len(sources) > 100
    elsewhere = {str(p.relative_to(ROOT)): lines for p in sources if (lines := admit_calls(p))}
    assert elsewhere == {}


async def test_the_budget_binds_on_openrouter_before_any_request(tmp_path: Path,
                                                                 monkeypatch: pytest.MonkeyPatch) -> None:
    """An OpenRouter call is admitted at the catalogue's price: one whose upper bound exceeds the session's money is
    refused before a byte is sent (LiteLLM alone prices it at zero, so it would always pass)."""
    import httpx

    from cosci.llm import errors as E
    from tests.llm.helpers import WHOLE, harness, make_config, replayed_wire, spec_for

    with replayed_wire(monkeypatch, ("OPENROUTER_API_KEY",)) as wire:
        route = wire.post("https://openrouter.ai/api/v1/chat/completions").mock(
            return_value=httpx.Response(500))
        h = harness(make_config(tmp_path / "data", "models=openrouter", "run.budget_usd=0.05", *WHOLE))
        with pytest.raises(E.BudgetExceeded):
            await h.gateway.complete(spec_for(h.gateway, "generation", "literature", "Reply: ok"))
        assert route.call_count == 0 and h.outcomes == ["error:budget"]
