"""The session's token budget: admit with an estimate, settle with the actual (design.md#budget).

One :class:`TokenBudget` per session, shared by every concurrent call. Admission and settlement run under one
lock with no await inside, so concurrent callers (coroutines or threads) can never together reserve more than
the cap.

Each call is admitted with two figures (design.md#budget):

- an **upper bound** (input characters / 3 plus the full ``max_output_tokens``), held against the *session cap*:
  settled actual spending can never pass the cap, because every admitted call fits under it at its bound;
- an **expected cost** (the realistic output length measured on this session, :mod:`cosci.llm.budget.sizing`), held
  against the *agent's share*: reservations of calls still in flight no longer count as spent at 20x their
  real cost, which starved the second concurrent call of an agent. The difference between expected and actual
  is corrected at settlement (an overrun past the share is booked as reserve used).

A call that does not fit *now* but would fit once in-flight reservations settle raises
:class:`~cosci.llm.errors.BudgetBusy` (the caller waits and tries again); one that would not fit even with nothing in
flight raises :class:`~cosci.llm.errors.BudgetExceeded` — the money ran out. Callers reach :meth:`TokenBudget.admit`
only through :mod:`cosci.llm.budget.admission`, the one admission path.

Shares (design.md#budget): each agent may spend ``share x cap``; the ``reserve`` (8 %) is drawn on
by the calls that must not starve — goal parsing (share 0) and the final overview — and absorbs overages.
"""

from __future__ import annotations

import threading
from dataclasses import dataclass, field

from cosci.llm.errors import BudgetBusy, BudgetExceeded


@dataclass
class Reservation:
    """One admitted call: ``usd`` expected (agent share), ``bound_usd`` upper bound (session cap), USD."""

    agent: str
    usd: float
    tokens: int
    from_reserve_usd: float = 0.0
    bound_usd: float = 0.0


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
    _reserved_usd: dict[str, float] = field(default_factory=dict)
    _reserved_bound_usd: float = 0.0
    _reserved_tokens: int = 0
    _reserve_reserved_usd: float = 0.0
    _lock: threading.Lock = field(default_factory=threading.Lock, repr=False)

    # --- queries -----------------------------------------------------------------------------------------
    @property
    def total_spent_usd(self) -> float:
        return sum(self.spent_usd.values())

    def agent_limit_usd(self, agent: str) -> float:
        return self.shares.get(agent, 0.0) * self.cap_usd

    @property
    def reserve_usd(self) -> float:
        return self.reserve_share * self.cap_usd

    def remaining_usd(self) -> float:
        """USD neither spent nor held by a call in flight (at its upper bound)."""
        with self._lock:
            return self.cap_usd - self.total_spent_usd - self._reserved_bound_usd

    def working_budget_spent(self) -> bool:
        """True once spending has reached the cap minus the reserve: time to stop and write the overview."""
        return self.total_spent_usd >= self.cap_usd - self.reserve_usd - 1e-12 or (
            self.cap_tokens is not None and self.spent_tokens >= self.cap_tokens)

    # --- admission -----------------------------------------------------------------------------------------
    def admit(self, agent: str, usd: float, tokens: int, *, use_reserve: bool = False,
              bound_usd: float | None = None) -> Reservation:
        """Reserve a call.

        Args:
            usd: expected cost of the call, USD (held against the agent's share).
            tokens: upper-bound estimate of its tokens (input + output), held against the token cap.
            use_reserve: may draw on the reserve once the agent's share is used.
            bound_usd: upper bound of its cost, USD (held against the session cap); defaults to ``usd``.

        Raises:
            BudgetExceeded: the call cannot fit even with nothing else in flight — ``scope="session"`` for the
                cap, ``"agent"`` for the agent's share (with the reserve, if allowed).
            BudgetBusy: it would fit once calls in flight settle.
        """
        bound = max(usd, bound_usd if bound_usd is not None else usd)
        with self._lock:
            spent = self.total_spent_usd
            if spent + self._reserved_bound_usd + bound > self.cap_usd + 1e-12:
                msg = (f"session budget: ${spent:.4f} spent and ${self._reserved_bound_usd:.4f} held by calls in"
                       f" flight, this call may need up to ${bound:.4f} of ${self.cap_usd:.2f}")
                if spent + bound <= self.cap_usd + 1e-12:
                    raise BudgetBusy(msg, scope="session", agent=agent)
                raise BudgetExceeded(msg, scope="session", agent=agent)
            if self.cap_tokens is not None and self.spent_tokens + self._reserved_tokens + tokens > self.cap_tokens:
                msg = f"session token budget of {self.cap_tokens} tokens would be passed"
                if self.spent_tokens + tokens <= self.cap_tokens:
                    raise BudgetBusy(msg, scope="session", agent=agent)
                raise BudgetExceeded(msg, scope="session", agent=agent)
            overflow = self._overflow(agent, usd, self._reserved_usd.get(agent, 0.0))
            reserve_room = self.reserve_usd - self.reserve_used_usd - self._reserve_reserved_usd
            if overflow > 1e-12 and (not use_reserve or overflow > reserve_room + 1e-12):
                limit = self.agent_limit_usd(agent)
                msg = (f"{agent} share: ${self.spent_usd.get(agent, 0.0):.4f} spent and"
                       f" ${self._reserved_usd.get(agent, 0.0):.4f} in flight of ${limit:.4f}, this call needs"
                       f" ~${usd:.4f}")
                alone = self._overflow(agent, usd, 0.0)
                free_reserve = self.reserve_usd - self.reserve_used_usd
                if alone <= 1e-12 or (use_reserve and alone <= free_reserve + 1e-12):
                    raise BudgetBusy(msg, scope="agent", agent=agent)
                raise BudgetExceeded(msg, scope="agent", agent=agent)
            self._reserved_usd[agent] = self._reserved_usd.get(agent, 0.0) + usd
            self._reserved_bound_usd += bound
            self._reserved_tokens += tokens
            self._reserve_reserved_usd += overflow
            return Reservation(agent, usd, tokens, overflow, bound)

    def _overflow(self, agent: str, usd: float, reserved: float) -> float:
        """USD of a call of ``usd`` that would not fit in the agent's share beside ``reserved`` in flight."""
        own_room = max(self.agent_limit_usd(agent) - self.spent_usd.get(agent, 0.0) - reserved, 0.0)
        return max(usd - own_room, 0.0)

    def settle(self, res: Reservation, actual_usd: float, actual_tokens: int) -> None:
        """Release a reservation and book the actual cost (USD) and tokens of the call."""
        with self._lock:
            self._reserved_usd[res.agent] = max(self._reserved_usd.get(res.agent, 0.0) - res.usd, 0.0)
            self._reserved_bound_usd = max(self._reserved_bound_usd - max(res.bound_usd, res.usd), 0.0)
            self._reserved_tokens = max(self._reserved_tokens - res.tokens, 0)
            self._reserve_reserved_usd = max(self._reserve_reserved_usd - res.from_reserve_usd, 0.0)
            self._book(res.agent, actual_usd, actual_tokens)

    def _book(self, agent: str, usd: float, tokens: int) -> None:
        before = self.spent_usd.get(agent, 0.0)
        self.spent_usd[agent] = before + usd
        self.spent_tokens += tokens
        limit = self.agent_limit_usd(agent)
        over = self.spent_usd[agent] - limit - max(before - limit, 0.0)
        if over > 0:
            self.reserve_used_usd += over

    def restore(self, spent: dict[str, dict[str, float]]) -> None:
        """Book what a resumed session already spent, from the store's transcripts:
        ``{agent: {"usd": .., "tokens": ..}}``.

        Spending beyond an agent's share counts as reserve used.
        """
        with self._lock:
            for agent, s in spent.items():
                self._book(agent, s.get("usd", 0.0), int(s.get("tokens", 0)))
