"""The session's token budget: admit with an estimate, settle with the actual (seed 001 "Token Budget
System").

One :class:`TokenBudget` per session, shared by every concurrent call. Admission and settlement run under one
lock with no await inside, so concurrent callers (coroutines or threads) can never together reserve more than
the cap. The estimate is an upper bound (input characters / 3 plus the full ``max_output_tokens``), so settled
actual spending stays within what was admitted.

Shares (seed 001 "Per-Agent Shares"): each agent may spend ``share x cap``; the ``reserve`` (8 %) is drawn on
by the calls that must not starve — goal parsing (share 0) and the final overview — and absorbs overages.
"""

from __future__ import annotations

import threading
from dataclasses import dataclass, field

from cosci.llm.errors import BudgetExceeded


@dataclass
class Reservation:
    agent: str
    usd: float
    tokens: int
    from_reserve_usd: float = 0.0


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
        with self._lock:
            return self.cap_usd - self.total_spent_usd - sum(self._reserved_usd.values())

    def working_budget_spent(self) -> bool:
        """True once spending has reached the cap minus the reserve: time to stop and write the overview."""
        return self.total_spent_usd >= self.cap_usd - self.reserve_usd - 1e-12 or (
            self.cap_tokens is not None and self.spent_tokens >= self.cap_tokens)

    # --- admission -----------------------------------------------------------------------------------------
    def admit(self, agent: str, usd: float, tokens: int, *, use_reserve: bool = False) -> Reservation:
        """Reserve an estimated call.

        Args:
            usd: upper-bound estimate of the call's cost, USD.
            tokens: upper-bound estimate of its tokens (input + output).
            use_reserve: may draw on the reserve once the agent's share is used.

        Raises:
            BudgetExceeded: ``scope="session"`` when the cap would be passed, ``"agent"`` for the agent's
                share.
        """
        with self._lock:
            total = self.total_spent_usd + sum(self._reserved_usd.values())
            if total + usd > self.cap_usd + 1e-12:
                raise BudgetExceeded(f"session budget: ${total:.4f} used or reserved, this call needs"
                                     f" ~${usd:.4f} of ${self.cap_usd:.2f}", scope="session", agent=agent)
            tokens_after = self.spent_tokens + self._reserved_tokens + tokens
            if self.cap_tokens is not None and tokens_after > self.cap_tokens:
                raise BudgetExceeded(f"session token budget of {self.cap_tokens} tokens would be passed",
                                     scope="session", agent=agent)
            used = self.spent_usd.get(agent, 0.0) + self._reserved_usd.get(agent, 0.0)
            own_room = max(self.agent_limit_usd(agent) - used, 0.0)
            overflow = max(usd - own_room, 0.0)
            if overflow > 1e-12:
                reserve_room = self.reserve_usd - self.reserve_used_usd - self._reserve_reserved_usd
                if not use_reserve or overflow > reserve_room + 1e-12:
                    raise BudgetExceeded(f"{agent} share: ${used:.4f} of ${self.agent_limit_usd(agent):.4f}"
                                         f" used, this call needs ~${usd:.4f}", scope="agent", agent=agent)
            self._reserved_usd[agent] = self._reserved_usd.get(agent, 0.0) + usd
            self._reserved_tokens += tokens
            self._reserve_reserved_usd += overflow
            return Reservation(agent, usd, tokens, overflow)

    def settle(self, res: Reservation, actual_usd: float, actual_tokens: int) -> None:
        """Release a reservation and book the actual cost (USD) and tokens of the call."""
        with self._lock:
            self._reserved_usd[res.agent] = max(self._reserved_usd.get(res.agent, 0.0) - res.usd, 0.0)
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
        """Book what a resumed session already spent, from the record: ``{agent: {"usd": .., "tokens": ..}}``.

        Spending beyond an agent's share counts as reserve used.
        """
        with self._lock:
            for agent, s in spent.items():
                self._book(agent, s.get("usd", 0.0), int(s.get("tokens", 0)))
