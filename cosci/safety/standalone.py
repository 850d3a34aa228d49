"""Screening outside a running session's loop (design.md#safety): researcher feedback from ``cosci feedback``.

The text is screened in the CLI process, through a gateway over the session's frozen config and its store
(the call is booked in the store's transcripts, on the budget reserve), before the feedback is stored: a
blocked text is never stored, so it can reach no prompt. The gateway (LiteLLM) is imported only when a text is
screened.
"""

from __future__ import annotations

import asyncio

from cosci.config.schema import CosciConfig
from cosci.safety.classifier import Classifier, Screening
from cosci.store import SessionStore


def screen_feedback(store: SessionStore, config: CosciConfig, text: str, subject_id: str | None = None
                    ) -> Screening:
    """Screen one researcher feedback text the way a goal is screened (``safety.block_goal_on`` acts).
    ``subject_id``: the hypothesis id(s) the text is about (a rating's, a result's, ``--hypothesis``; two joined by
    ``,``), kept on the verdict row, which is the audit trail of a refused text (nothing else is stored of it).

    Returns:
        The recorded :class:`~cosci.safety.classifier.Screening` (``acted``: refuse the feedback).
    """
    from cosci.llm.budget.token_budget import TokenBudget
    from cosci.llm.gateway.adapter import Gateway

    budget = TokenBudget(cap_usd=config.run.budget_usd,
                         shares={a: c.budget_share for a, c in config.agents.items()},
                         reserve_share=config.budget.reserve_share, cap_tokens=config.run.budget_tokens)
    budget.restore(store.logs.spend())
    gateway = Gateway(config, budget, store.logs.add_call)
    classifier = Classifier(config, gateway, gateway.router, store)
    return asyncio.run(classifier.screen("feedback", text, subject_id=subject_id, action="ScreenFeedback"))
