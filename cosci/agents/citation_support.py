"""The support check of a new hypothesis's verified quotes: does each bear on it?
(``docs/design.md#grounded-debate-hypotheses``)

A verified quote proves only that the words are in the source. A hypothesis is ``grounded`` when the support
check also judged one of its verified, not retracted quotes ``supported`` or ``partially_supported``
(:attr:`~cosci.domain.Hypothesis.grounding`). One ``record_claim_checks`` call per hypothesis on the agent's
``grounding`` mode (the cheap tier, like the quoting call), one verdict per quote, each judged against that quote
and its source's record text only; a verdict that needs a quote must rest on one of that source
(:func:`cosci.grounding.support.quote_support`). Where no tier can judge
(:func:`cosci.grounding.support.can_judge`: the embedded model, ``models=local``), no call is made and the quotes
stay unjudged: the hypothesis is ``quoted (relevance unchecked)``. A failed call leaves them ``unchecked``, never
fails the task.
"""

from __future__ import annotations

import logging
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from cosci.grounding import support
from cosci.literature import WITHDRAWN
from cosci.llm.errors import CALL_FAILED, HostUnreachable
from cosci.llm.port.structured import call_record
from cosci.prompts import render
from cosci.records import Citation, RecordHypothesis, claim_check_record
from cosci.safety.quoting import quote_untrusted

if TYPE_CHECKING:
    from cosci.agents.base import BaseAgent
    from cosci.domain import Task, TaskResult
    from cosci.tools.base import Source

log = logging.getLogger(__name__)
MODE = "grounding"
SOURCE_CHARS = 2500
"""Characters of a source's record text shown with its quote (an abstract; the quote is shown whole)."""


def quotes(citations: Sequence[Citation]) -> list[int]:
    """Indices of the verified, not retracted citations: the ones the support check judges."""
    return [i for i, c in enumerate(citations) if c.status == "verified" and c.retraction not in WITHDRAWN]


async def judge(agent: BaseAgent, task: Task, rec: RecordHypothesis,
                sources: Sequence[Source]) -> tuple[RecordHypothesis, dict[str, Any]]:
    """``rec`` with each verified quote's ``support`` set (see module docstring), and what was done
    (``{"quotes": n, "judged": bool, "model": str, "error"?: str, "why"?: str}``)."""
    todo = quotes(rec.citations)
    if not todo:
        return rec, {"quotes": 0, "judged": False}
    if MODE not in agent.config.agents[agent.name].modes:  # a frozen config from before this check
        return rec, {"quotes": len(todo), "judged": False, "why": f"agents.{agent.name}.modes.{MODE} is not set"}
    route = agent.deps.router.route(agent.name, MODE)
    info: dict[str, Any] = {"quotes": len(todo), "judged": False, "model": route.model}
    if not support.can_judge(route.constrained, agent.config.metareview.claim_check_constrained_verdicts):
        info["why"] = f"{route.model} cannot judge support (a schema-constrained embedded model)"
        return rec, info
    texts = {s.source_id: s.text for s in sources}
    blocks = [{"id": f"C{n}", "source": quote_untrusted(
        f"{rec.citations[i].title}\nURL: {rec.citations[i].url}\nVerified excerpt: {rec.citations[i].excerpt}\n"
        f"Text: {texts.get(rec.citations[i].source_id or '', '')[:SOURCE_CHARS]}", f"source-C{n}")}
        for n, i in enumerate(todo, 1)]
    prompt = render("_citation_support", objective=agent.deps.plan.objective, claims=blocks,
                    hypothesis=quote_untrusted(f"Title: {rec.title}\nStatement: {rec.statement}", "hypothesis"))
    spec = agent.spec(MODE, task, prompt, action=f"{task.action}/support", feedback=False)
    verdicts: dict[str, Any] = {}
    why_missing = ""
    try:
        record, _ = await call_record(agent.deps.llm, spec, claim_check_record(len(todo)))
        verdicts = {name: getattr(record, name) for name in type(record).model_fields}
        info["judged"] = True
    except HostUnreachable:  # every later call meets it: the session ends on its line, no fallback
        raise
    except CALL_FAILED as exc:  # BudgetBusy is not one: the task runner waits (design.md#budget)
        log.warning("citation support check failed (%s); its quotes stay unchecked", exc)
        info["error"] = f"{type(exc).__name__}: {exc}"[:300]
        why_missing = f"the support check call failed ({type(exc).__name__})"
    cited = list(rec.citations)
    for n, i in enumerate(todo, 1):
        c = cited[i]
        verdict, note = support.quote_support(verdicts.get(f"c{n}"), (c.excerpt or "",
                                                                      texts.get(c.source_id or "", "")), why_missing)
        cited[i] = c.model_copy(update={"support": verdict, "support_note": note[:300]})
    return rec.model_copy(update={"citations": cited}), info


async def judge_quotes(agent: BaseAgent, task: Task, result: TaskResult, rec: RecordHypothesis,
                       sources: Sequence[Source]) -> None:
    """A created hypothesis's verified quotes judged (:func:`judge`), its stored citations updated;
    ``result.detail["support"]`` says what was done. A duplicate (not created) is not judged."""
    if result.kind != "hypothesis_created":
        return
    judged, info = await judge(agent, task, rec, sources)
    if info.get("judged"):
        agent.store.hypotheses.set_citations(result.hypothesis_ids[0], [c.model_dump() for c in judged.citations])
    result.detail["support"] = info
