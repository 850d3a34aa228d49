"""The one admission path into the session's budget (design.md#budget): completions, provider batches and hosted
embeddings are admitted and settled here; nothing else calls :meth:`TokenBudget.admit`.

A call is admitted with :func:`admit_call` and holds an :class:`Admission` until it is settled with its actual
cost or refunded::

    admission = await admit_call(budget, agent, usd, tokens, bound_usd=bound, wait_seconds=120.0)
    with admission:  # left unsettled (an error, a cancellation): refunded, so no reservation is held for good
        answer = await provider_call()
        admission.settle(answer.cost_usd, answer.tokens)

A provider batch holds its admissions from submission to its results (a scope of its own): it settles or refunds
each one itself.
"""

from __future__ import annotations

import asyncio
import time
from dataclasses import dataclass

from cosci.llm.budget.token_budget import OutputRoom, Reservation, TokenBudget
from cosci.llm.errors import BudgetBusy

ADMISSION_POLL_SECONDS = 0.05
"""How often a call waiting for in-flight reservations to settle tries again, seconds."""


@dataclass
class Admission:
    """One admitted call's hold on the budget, until :meth:`settle` books its actual cost or :meth:`refund` books
    nothing. As a context manager it refunds on leaving when neither happened.

    Attributes:
        budget: the session's budget.
        reservation: what the call holds (USD: expected against its agent's share, expected plus tail reserve against
            the working money, upper bound in the worst case against the cap; design.md#tail-reserve).
        settled: the reservation has been released (settled or refunded).
    """

    budget: TokenBudget
    reservation: Reservation
    settled: bool = False

    @classmethod
    def unreserved(cls, budget: TokenBudget, agent: str) -> Admission:
        """A call admitted by an earlier process (a resumed session's provider batch): it holds nothing, and its
        settlement books the actual cost against ``agent``."""
        return cls(budget, Reservation(agent, 0.0, 0))

    @property
    def max_output_tokens(self) -> int | None:
        """The output cap the call must be sent with, when admission lowered it to fit (None: the call's own)."""
        return self.reservation.max_output_tokens

    @property
    def usd(self) -> float:
        """USD held against the agent's share until settlement (0 once settled)."""
        return 0.0 if self.settled else self.reservation.usd

    def settle(self, usd: float, tokens: int) -> None:
        """Release the reservation and book the call's actual cost, ``usd`` (USD) and ``tokens`` (input + output).

        Raises:
            RuntimeError: the admission was already settled or refunded (its cost would be booked twice).
        """
        if self.settled:
            raise RuntimeError(f"the admission of a {self.reservation.agent} call is already settled")
        self.settled = True
        self.budget.settle(self.reservation, usd, tokens)

    def refund(self) -> None:
        """Release the reservation, booking nothing (the call failed or was never sent); no-op once settled."""
        if not self.settled:
            self.settled = True
            self.budget.refund(self.reservation)

    def __enter__(self) -> Admission:
        return self

    def __exit__(self, *_exc_info: object) -> None:
        self.refund()


async def admit_call(budget: TokenBudget, agent: str, usd: float, tokens: int, *, bound_usd: float | None = None,
                     use_reserve: bool = False, wait_seconds: float = 0.0, room: OutputRoom | None = None) -> Admission:
    """Admit one call of ``agent`` (arguments as :meth:`TokenBudget.admit`: ``usd`` expected, ``bound_usd`` upper
    bound, USD; ``tokens`` upper bound). It holds its expected cost plus the tail reserve against the working money
    and its bound only in the worst-case check (design.md#tail-reserve). A call that fits only once the calls in
    flight settle tries again every ``ADMISSION_POLL_SECONDS`` for up to ``wait_seconds`` (0: once, no wait). With
    ``room``, a call the money left cannot hold at its own cap may be admitted with its output capped
    (:attr:`Admission.max_output_tokens`; design.md#budget, "The last call, capped").

    Raises:
        BudgetExceeded: it cannot fit even with nothing in flight (the money ran out).
        BudgetBusy: it still did not fit beside the calls in flight when the wait ran out.
    """
    deadline = time.monotonic() + wait_seconds
    while True:
        try:
            return Admission(budget, budget.admit(agent, usd, tokens, use_reserve=use_reserve,
                                                    bound_usd=bound_usd, room=room))
        except BudgetBusy:
            if time.monotonic() >= deadline:
                raise
            await asyncio.sleep(ADMISSION_POLL_SECONDS)
