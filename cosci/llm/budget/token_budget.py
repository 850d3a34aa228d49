"""The session's token budget: admit with an estimate, settle with the actual (design.md#budget).

One :class:`TokenBudget` per session, shared by every concurrent call. Admission and settlement run under one
lock with no await inside, so concurrent callers (coroutines or threads) can never together reserve more than
the cap.

Each call is admitted with two figures, both USD: its **expected cost** (the realistic output length measured on
this session, :mod:`cosci.llm.budget.sizing`) and its **upper bound** (input characters / 3 plus the full
``max_output_tokens``). Admission checks, in order (design.md#budget, design.md#tail-reserve):

1. **worst case** — spending plus every call in flight *at its upper bound* fits the whole cap. This is what makes
   the cap a guarantee: a call can never cost more than its bound, so settled spending can never pass the cap
   whatever the calls in flight turn out to cost;
2. **holds** — spending plus every call in flight at its *hold* (expected cost x the session's measured tail factor,
   :mod:`cosci.llm.budget.tail`, at most its bound) fits the working money, the cap minus the reserve (reserve
   modes: the whole cap). The holds are what a session spends its money by: the reserve is left for the final
   overview, and it also absorbs the rare call that costs more than it held (the worst-case rule keeps that
   overrun inside the cap);
3. the optional token cap;
4. **the agent's share**, at expected cost: each agent may spend ``share x cap``. Beyond it, a reserve mode draws
   on the reserve first, then on any money left in the cap (check 2 bounds it): the final overview comes after
   every other agent's work. Any other agent may *borrow* working money, as long as every other agent keeps its
   floor: ``SHARE_FLOOR`` of the part of its share it has not spent, scaled by the share of the working money
   still free. Money an agent cannot use (a pool with nothing to rank, a mode that never runs) is thus spent by
   the agents that can, and a borrower always leaves the others their proportional claim on what is left.

A call that does not fit *now* but would fit once in-flight reservations settle raises
:class:`~cosci.llm.errors.BudgetBusy` (the caller waits and tries again); one that would not fit even with nothing in
flight raises :class:`~cosci.llm.errors.BudgetExceeded` — the money ran out — unless the caller gave its
:class:`OutputRoom` and the call still fits with its output capped (at least its useful minimum): it is then
admitted with ``max_tokens`` lowered so that its upper bound fits what is left, held at that bound (design.md#budget,
"The last call, capped"). Callers reach :meth:`TokenBudget.admit`
only through :mod:`cosci.llm.budget.admission`, the one admission path.
"""

from __future__ import annotations

import math
import threading
from dataclasses import dataclass, field

from cosci.llm.budget.tail import TailFactor
from cosci.llm.errors import BudgetBusy, BudgetExceeded
from cosci.text import dollars

EPS_USD = 1e-12
SHARE_FLOOR = 0.5
"""Share of an agent's unspent share no other agent may borrow (design.md#budget)."""


@dataclass
class Reservation:
    """One admitted call, USD: ``usd`` expected (agent share), ``hold_usd`` held against the working money (expected
    + tail reserve), ``bound_usd`` upper bound (worst case against the cap); ``from_reserve_usd`` of ``usd`` drawn
    on the reserve; ``tokens`` upper bound (input + output); ``max_output_tokens``: the output cap the call must be
    sent with when admission lowered it (None: its own)."""

    agent: str
    usd: float
    tokens: int
    from_reserve_usd: float = 0.0
    bound_usd: float = 0.0
    hold_usd: float = 0.0
    max_output_tokens: int | None = None


@dataclass(frozen=True)
class OutputRoom:
    """How a call's upper bound grows with its output cap, for admitting it capped (design.md#budget, "The last
    call, capped"): ``input_bound_usd`` its input at its bound (USD), ``usd_per_output_token``, ``min_tokens`` the
    fewest output tokens worth sending (the useful minimum: an answer cut shorter is retried, which wastes money),
    ``max_tokens`` its own cap."""

    input_bound_usd: float
    usd_per_output_token: float
    min_tokens: int
    max_tokens: int

    def bound_usd(self, tokens: int) -> float:
        """Upper bound of the call sent with ``max_tokens=tokens``, USD."""
        return self.input_bound_usd + tokens * self.usd_per_output_token

    def tokens_within(self, usd: float) -> int:
        """The largest output cap (at most ``max_tokens``) whose upper bound fits ``usd``; 0 if none does."""
        if self.usd_per_output_token <= 0:
            return self.max_tokens if self.input_bound_usd <= usd + EPS_USD else 0
        tokens = math.floor((usd - self.input_bound_usd + EPS_USD) / self.usd_per_output_token)
        return max(min(self.max_tokens, tokens), 0)


@dataclass
class TokenBudget:
    """USD (and optional token) caps with per-agent shares.

    Args:
        cap_usd: session cap in USD, reserve included (``run.budget_usd``).
        shares: agent -> share of the cap in [0, 1] (``agents.<name>.budget_share``).
        reserve_share: the reserve's share (``budget.reserve_share``).
        cap_tokens: optional session cap in tokens (input + output).
    """

    cap_usd: float
    shares: dict[str, float]
    reserve_share: float
    cap_tokens: int | None = None
    spent_usd: dict[str, float] = field(default_factory=dict)
    spent_tokens: int = 0
    reserve_used_usd: float = 0.0
    tail: TailFactor = field(default_factory=TailFactor, repr=False)
    _reserved_usd: dict[str, float] = field(default_factory=dict)
    _reserved_bound_usd: float = 0.0
    _held_usd: float = 0.0
    _reserved_tokens: int = 0
    _reserve_reserved_usd: float = 0.0
    _lock: threading.Lock = field(default_factory=threading.Lock, repr=False)

    # --- queries -----------------------------------------------------------------------------------------
    @property
    def total_spent_usd(self) -> float:
        return sum(self.spent_usd.values())

    def agent_limit_usd(self, agent: str) -> float:
        """The agent's share of the cap, USD (what it may spend without borrowing)."""
        return self.shares.get(agent, 0.0) * self.cap_usd

    @property
    def reserve_usd(self) -> float:
        """The reserve, USD: kept from the working money for the reserve modes (the final overview)."""
        return self.reserve_share * self.cap_usd

    @property
    def working_usd(self) -> float:
        """The working money, USD: the cap minus the reserve."""
        return self.cap_usd - self.reserve_usd

    def remaining_usd(self) -> float:
        """USD neither spent nor held by a call in flight (at its hold: expected cost plus tail reserve)."""
        with self._lock:
            return self.cap_usd - self.total_spent_usd - self._held_usd

    def held_usd(self) -> tuple[float, float, float]:
        """What the calls in flight hold, USD: ``(expected, hold, upper bound)`` summed; hold - expected is the tail
        reserve."""
        with self._lock:
            return sum(self._reserved_usd.values()), self._held_usd, self._reserved_bound_usd

    def working_budget_spent(self) -> bool:
        """True once spending has reached the cap minus the reserve: time to stop and write the overview."""
        return self.total_spent_usd >= self.working_usd - EPS_USD or (
            self.cap_tokens is not None and self.spent_tokens >= self.cap_tokens)

    # --- admission -----------------------------------------------------------------------------------------
    def admit(self, agent: str, usd: float, tokens: int, *, use_reserve: bool = False,
              bound_usd: float | None = None, room: OutputRoom | None = None) -> Reservation:
        """Reserve a call (the four checks of the module docstring).

        Args:
            usd: expected cost of the call, USD (held against the agent's share; times the tail factor against the
                working money).
            tokens: upper-bound estimate of its tokens (input + output), held against the token cap.
            use_reserve: a reserve mode: may spend the reserve (the whole cap) and draw on it once its share is used.
            bound_usd: upper bound of its cost, USD (the worst case against the cap); defaults to ``usd``.
            room: how its bound shrinks with its output cap: a call that does not fit the session's money is then
                admitted capped if at least ``room.min_tokens`` of output fit (``Reservation.max_output_tokens``).

        Raises:
            BudgetExceeded: the call cannot fit even with nothing else in flight, not even capped to its useful
                minimum — ``scope="session"`` for the cap or the working money (the message names this call at its
                own cap), ``"agent"`` for the agent's share (with the reserve or borrowing).
            BudgetBusy: it would fit once calls in flight settle.
        """
        bound = max(usd, bound_usd if bound_usd is not None else usd)
        capped: int | None = None
        with self._lock:
            hold = self.tail.hold(usd, bound)
            try:
                self._check_cap(agent, usd, hold, bound, use_reserve)
            except BudgetExceeded:
                if room is None or (capped := self._capped(agent, room, use_reserve)) is None:
                    raise
                bound = hold = room.bound_usd(capped)  # held at its true bound: the tail reserve is not touched
                usd, tokens = min(usd, bound), tokens - (room.max_tokens - capped)
            if self.cap_tokens is not None and self.spent_tokens + self._reserved_tokens + tokens > self.cap_tokens:
                msg = f"session token budget of {self.cap_tokens} tokens would be passed"
                if self.spent_tokens + tokens <= self.cap_tokens:
                    raise BudgetBusy(msg, scope="session", agent=agent)
                raise BudgetExceeded(msg, scope="session", agent=agent)
            from_reserve = self._check_share(agent, usd, use_reserve)
            self._reserved_usd[agent] = self._reserved_usd.get(agent, 0.0) + usd
            self._reserved_bound_usd += bound
            self._held_usd += hold
            self._reserved_tokens += tokens
            self._reserve_reserved_usd += from_reserve
            return Reservation(agent, usd, tokens, from_reserve, bound, hold, capped)

    def _capped(self, agent: str, room: OutputRoom, use_reserve: bool) -> int | None:
        """The output cap a call refused at its own cap may be admitted with: the largest whose bound fits both the
        cap beside the calls in flight at their bounds and the working money (reserve modes: the cap) beside their
        holds; None when not even ``room.min_tokens`` would fit with nothing in flight (the money ran out).

        Raises:
            BudgetBusy: the useful minimum fits only once the calls in flight settle."""
        spent = self.total_spent_usd
        limit = self.cap_usd if use_reserve else self.working_usd
        now = room.tokens_within(min(self.cap_usd - spent - self._reserved_bound_usd, limit - spent - self._held_usd))
        if now >= room.min_tokens:
            return now
        if room.tokens_within(min(self.cap_usd, limit) - spent) >= room.min_tokens:
            raise BudgetBusy(f"session budget: ${spent:.4f} spent, this call fits capped to {room.min_tokens} output"
                             " tokens only once the calls in flight settle", scope="session", agent=agent)
        return None

    def _check_cap(self, agent: str, usd: float, hold: float, bound: float, use_reserve: bool) -> None:
        """Checks 1 (worst case against the cap) and 2 (holds against the working money)."""
        spent = self.total_spent_usd
        if spent + self._reserved_bound_usd + bound > self.cap_usd + EPS_USD:
            msg = (f"session budget: ${spent:.4f} spent and up to ${self._reserved_bound_usd:.4f} owed by calls in"
                   f" flight, this call may cost up to ${bound:.4f} of ${dollars(self.cap_usd)}")
            if spent + bound <= self.cap_usd + EPS_USD:
                raise BudgetBusy(msg, scope="session", agent=agent)
            raise BudgetExceeded(msg, scope="session", agent=agent, left_usd=self.cap_usd - spent, cost_usd=bound,
                                 measure="upper bound")
        limit = self.cap_usd if use_reserve else self.working_usd
        if spent + self._held_usd + hold > limit + EPS_USD:
            msg = (f"session budget: ${spent:.4f} spent and ${self._held_usd:.4f} held by calls in flight, this call"
                   f" holds ${hold:.4f} (expected ${usd:.4f}) of ${limit:.4f}"
                   f"{'' if use_reserve else ' (the cap minus the reserve)'}")
            if spent + hold <= limit + EPS_USD:
                raise BudgetBusy(msg, scope="session", agent=agent)
            raise BudgetExceeded(msg, scope="session", agent=agent, left_usd=limit - spent, cost_usd=hold,
                                 measure="hold")

    def _check_share(self, agent: str, usd: float, use_reserve: bool) -> float:
        """Check 4: the agent's share, the reserve or borrowing; returns the USD drawn on the reserve."""
        reserved = self._reserved_usd.get(agent, 0.0)
        overflow = self._overflow(agent, usd, reserved)
        if overflow <= EPS_USD:
            return 0.0
        if use_reserve:  # a reserve mode is bounded by the cap alone (check 2): the reserve first, then any money left
            return min(overflow, max(self.reserve_usd - self.reserve_used_usd - self._reserve_reserved_usd, 0.0))
        if usd <= self._lendable(agent, in_flight=True) + EPS_USD:
            return 0.0  # borrowed
        alone = usd <= self._lendable(agent, in_flight=False) + EPS_USD
        source = "what the other agents' floors leave of the working money"
        msg = (f"{agent} share: ${self.spent_usd.get(agent, 0.0):.4f} spent and ${reserved:.4f} in flight of"
               f" ${self.agent_limit_usd(agent):.4f}, this call needs ~${usd:.4f}, more than {source}")
        if alone or self._overflow(agent, usd, 0.0) <= EPS_USD:
            raise BudgetBusy(msg, scope="agent", agent=agent)
        raise BudgetExceeded(msg, scope="agent", agent=agent)

    def _overflow(self, agent: str, usd: float, reserved: float) -> float:
        """USD of a call of ``usd`` that would not fit in the agent's share beside ``reserved`` in flight."""
        own_room = max(self.agent_limit_usd(agent) - self.spent_usd.get(agent, 0.0) - reserved, 0.0)
        return max(usd - own_room, 0.0)

    def _lendable(self, agent: str, *, in_flight: bool) -> float:
        """Working money ``agent`` may spend beyond its share, USD: what is neither spent nor held (with
        ``in_flight``) minus the other agents' floors. A floor is ``SHARE_FLOOR`` of the agent's unspent share, scaled
        by the share of the working money still free: the others keep their claim on what is left, and money no
        one else uses is not stranded at the session's end (design.md#budget)."""
        free = self.working_usd - self.total_spent_usd - (self._held_usd if in_flight else 0.0)
        if free <= 0 or self.working_usd <= 0:
            return 0.0
        unspent = sum(max(self.agent_limit_usd(b) - self.spent_usd.get(b, 0.0)
                          - (self._reserved_usd.get(b, 0.0) if in_flight else 0.0), 0.0)
                      for b in self.shares if b != agent)
        return free * (1.0 - SHARE_FLOOR * min(unspent / self.working_usd, 1.0))

    # --- settlement --------------------------------------------------------------------------------------
    def settle(self, res: Reservation, actual_usd: float, actual_tokens: int) -> None:
        """Release a reservation and book the actual cost (USD) and tokens of the call; the ratio actual/expected
        feeds the tail factor (:mod:`cosci.llm.budget.tail`)."""
        with self._lock:
            self._release(res)
            self._book(res.agent, actual_usd, actual_tokens, from_reserve=res.from_reserve_usd)
        if res.bound_usd > res.usd:  # admitted with an expectation below its bound: a measure of the spread
            self.tail.observe(res.usd, actual_usd)

    def refund(self, res: Reservation) -> None:
        """Release a reservation, booking nothing (the call failed or was never sent)."""
        with self._lock:
            self._release(res)

    def _release(self, res: Reservation) -> None:
        self._reserved_usd[res.agent] = max(self._reserved_usd.get(res.agent, 0.0) - res.usd, 0.0)
        self._reserved_bound_usd = max(self._reserved_bound_usd - max(res.bound_usd, res.usd), 0.0)
        self._held_usd = max(self._held_usd - max(res.hold_usd, res.usd), 0.0)
        self._reserved_tokens = max(self._reserved_tokens - res.tokens, 0)
        self._reserve_reserved_usd = max(self._reserve_reserved_usd - res.from_reserve_usd, 0.0)

    def _book(self, agent: str, usd: float, tokens: int, *, from_reserve: float) -> None:
        """Book spending; what the agent spends beyond its share counts as reserve used up to ``from_reserve`` (USD,
        what its admission drew on the reserve) and the reserve's size, the rest as money left in the cap."""
        before = self.spent_usd.get(agent, 0.0)
        self.spent_usd[agent] = before + usd
        self.spent_tokens += tokens
        limit = self.agent_limit_usd(agent)
        over = max(self.spent_usd[agent] - limit - max(before - limit, 0.0), 0.0)
        self.reserve_used_usd += min(over, from_reserve, max(self.reserve_usd - self.reserve_used_usd, 0.0))

    def restore(self, spent: dict[str, dict[str, float]]) -> None:
        """Book what a resumed session already spent, from the store's transcripts:
        ``{agent: {"usd": .., "tokens": ..}}``.

        Spending of an agent with no share (goal parsing, safety) counts as reserve used.
        """
        with self._lock:
            for agent, s in spent.items():
                self._book(agent, s.get("usd", 0.0), int(s.get("tokens", 0)),
                           from_reserve=math.inf if self.shares.get(agent, 0.0) <= 0.0 else 0.0)
