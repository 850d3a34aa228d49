"""The support check of the final overview's claims, for the meta-review agent (``docs/design.md#claim-statuses``).

Structured ``record_claim_checks`` calls on ``agents.metareview.modes.claim_check`` (the cheap tier; its cost
comes from the budget reserve like the rest of the overview), the checkable claims batched
``metareview.claim_check_batch`` per call (``claim_check_batch_constrained`` for a schema-constrained embedded
model, whose context is small), at most ``metareview.claim_check_max_calls`` calls per overview. Each claim goes
out quoted with only its cited sources. A schema-constrained embedded model's verdicts are kept as notes and the
claims left ``unchecked`` unless ``metareview.claim_check_constrained_verdicts`` (its judgments are near chance).
What becomes of the answers: :mod:`cosci.grounding.support`. A failed
call (budget, provider, an invalid record) leaves its claims ``unchecked`` and never stops the overview.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from cosci.domain import Task
from cosci.grounding import support
from cosci.grounding.claims import Claim, ClaimContext
from cosci.llm.errors import CALL_FAILED, HostUnreachable
from cosci.llm.port.structured import call_record
from cosci.prompts import render
from cosci.records import ClaimVerdict, claim_check_record
from cosci.safety.quoting import quote_untrusted

if TYPE_CHECKING:
    from cosci.agents.base import BaseAgent

log = logging.getLogger(__name__)


@dataclass
class SupportRun:
    """What the support check cost and did: its model, calls made, USD spent, claims answered, errors."""

    model: str
    calls: int = 0
    cost_usd: float = 0.0
    checked: int = 0
    errors: list[str] = field(default_factory=list)
    limits: dict[str, int] = field(default_factory=dict)

    def to_dict(self) -> dict[str, Any]:
        return {"model": self.model, "calls": self.calls, "cost_usd": round(self.cost_usd, 6), "checked": self.checked,
                "errors": self.errors, **self.limits}


def claim_check_prompt(objective: str, batch: list[support.SupportItem], chars: int) -> str:
    """The support check's prompt for one batch: each claim (``C1``...) and its cited sources, quoted as untrusted
    (``chars`` characters of each source's record text)."""
    claims = [{"id": f"C{n}", "text": quote_untrusted(item.claim, f"claim-C{n}"), "overclaim": list(item.overclaim),
               "sources": [quote_untrusted(support.source_block(s, chars), f"source-{s.label}") for s in item.sources]}
              for n, item in enumerate(batch, 1)]
    return render("_claim_check", objective=objective, claims=claims)


def verdicts_of(record: Any) -> dict[str, ClaimVerdict]:
    """``{"c1": verdict, ...}`` of a ``record_claim_checks`` record."""
    return {name: getattr(record, name) for name in type(record).model_fields}


class ClaimChecker:
    """Runs the support check for an agent (the meta-review agent) and a task."""

    def __init__(self, agent: BaseAgent, task: Task) -> None:
        self.agent, self.task = agent, task
        self.cfg = agent.config.metareview


    async def run(self, claims: list[Claim], ctx: ClaimContext) -> SupportRun:
        """Check every checkable claim (see module docstring); the claims are updated in place."""
        route = self.agent.deps.router.route("metareview", "claim_check")
        size = self.cfg.claim_check_batch_constrained if route.constrained else self.cfg.claim_check_batch
        chars = self.cfg.claim_check_source_chars // (4 if route.constrained else 1)
        run = SupportRun(route.model, limits={"batch": size, "max_calls": self.cfg.claim_check_max_calls})
        for k, batch in enumerate(support.batches(support.items(claims, ctx), size)):
            if k >= self.cfg.claim_check_max_calls:
                for item in batch:
                    support.apply(claims[item.index], item, None,
                                  "over the support check's call budget (metareview.claim_check_max_calls)")
                continue
            verdicts, why = await self._call(batch, chars, k, run)
            for n, item in enumerate(batch, 1):
                support.apply(claims[item.index], item, verdicts.get(f"c{n}"), why)
                if not support.can_judge(route.constrained, self.cfg.claim_check_constrained_verdicts):
                    support.distrust(claims[item.index], route.model)
        run.checked = sum(c.support in ("supported", "partially_supported", "not_supported", "contradicted")
                          for c in claims)
        return run

    async def _call(self, batch: list[support.SupportItem], chars: int, k: int,
                    run: SupportRun) -> tuple[dict[str, ClaimVerdict], str]:
        prompt = claim_check_prompt(self.agent.deps.plan.objective, batch, chars)
        spec = self.agent.spec("claim_check", self.task, prompt,
                               action=f"{self.task.action}/claim_check{k + 1}", feedback=False)
        run.calls += 1
        try:
            rec, resp = await call_record(self.agent.deps.llm, spec, claim_check_record(len(batch)))
        except HostUnreachable:  # every later call meets it: the session ends on its line, no fallback
            raise
        except CALL_FAILED as exc:  # BudgetBusy is not one: the task runner waits (design.md#budget)
            log.warning("support check call failed (%s); its claims stay unchecked", exc)
            run.errors.append(f"{type(exc).__name__}: {exc}"[:300])
            return {}, f"the support check call failed ({type(exc).__name__})"
        run.cost_usd += resp.cost_usd
        return verdicts_of(rec), ""
