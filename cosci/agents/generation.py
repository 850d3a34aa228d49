"""Generation: new hypotheses from the literature or from a simulated expert debate (seed 000 §2).

- ``literature`` — the tool loop over the agent's literature tools, ending in ``record_hypothesis``; citations
  are filtered to URLs seen in tool results (fabricated ones are dropped and reported in the result).
- ``debate`` — a real multi-turn discourse: each turn is one call whose prompt carries the transcript so far;
  from ``debate.min_turns`` the panel may conclude by writing ``HYPOTHESIS``, and must at ``debate.max_turns``
  (seed 003: 3-5 turns, at most 10). The concluded idea is then recorded with a forced ``record_hypothesis``.

Both inject the latest system feedback (system prompt) and go through the shared dedup (:meth:`persist`).
"""

from __future__ import annotations

import re

from cosci.agents.base import BaseAgent, filter_urls, tool_names
from cosci.domain import Task, TaskResult
from cosci.llm.structured import call_record
from cosci.prompts import render
from cosci.records import RecordHypothesis
from cosci.safety.quoting import quote_untrusted

CONCLUSION = re.compile(r"\bHYPOTHESIS\b")


def concluded(text: str) -> bool:
    """A debate turn concludes when it writes ``HYPOTHESIS`` in capitals (seed 003 prompt 3)."""
    return bool(CONCLUSION.search(text))


class GenerationAgent(BaseAgent):
    name = "generation"

    async def execute(self, task: Task) -> TaskResult:
        """``CreateInitialHypotheses`` / ``GenerateHypothesis``; payload ``strategy``: literature | debate."""
        strategy = task.payload.get("strategy", "literature")
        dropped: list[str] = []
        if strategy == "debate":
            rec = await self._debate(task)
        else:
            rec, dropped = await self._literature(task)
        result = await self.persist(rec, task)
        result.detail["dropped_citations"] = dropped
        return result

    def existing(self, limit: int = 30) -> str:
        """Titles already in the pool (best first), quoted, so a new hypothesis differs from them."""
        hyps = sorted((h for h in self.record.hypotheses.all() if h.state != "quarantined"),  # issue 15
                      key=lambda h: (-h.elo, h.created_at))[:limit]
        return quote_untrusted("\n".join(f"- {h.title}" for h in hyps), "pool-titles") if hyps else ""

    async def _literature(self, task: Task) -> tuple[RecordHypothesis, list[str]]:
        tools = self.tools()
        plan = self.deps.plan
        user = render("generation.literature", objective=plan.objective, preferences=plan.preferences,
                      idea_attributes=plan.idea_attributes, tool_names=tool_names(tools),
                      instructions=task.payload.get("instructions", ""), existing=self.existing())
        spec = self.spec("literature", task, user)
        loop = await self.tool_loop(spec, tools, RecordHypothesis)
        kept, dropped = filter_urls(loop.record.citations, loop.seen_urls)
        rec = loop.record.model_copy(update={"citations": kept, "strategy": "literature", "parent_ids": []})
        return rec, dropped

    async def _debate(self, task: Task) -> RecordHypothesis:
        plan, dcfg = self.deps.plan, self.config.debate
        max_turns = min(dcfg.max_turns, self.deps.router.route(self.name, "debate").max_iterations)
        transcript: list[dict[str, str]] = []
        for turn in range(1, max_turns + 1):
            user = render("generation.debate", objective=plan.objective, preferences=plan.preferences,
                          idea_attributes=plan.idea_attributes, transcript=transcript, turn=turn,
                          min_turns=min(dcfg.min_turns, max_turns), max_turns=max_turns,
                          instructions=task.payload.get("instructions", ""), existing=self.existing())
            resp = await self.deps.llm.complete(self.spec("debate", task, user, action=f"{task.action}/turn{turn}"))
            speaker = f"Expert {(turn - 1) % 3 + 1}"
            transcript.append({"speaker": speaker, "text": quote_untrusted(resp.text.strip() or "(no contribution)",
                                                                           f"debate-turn-{turn}")})
            if turn >= dcfg.min_turns and concluded(resp.text):
                break
        user = render("_debate_record", transcript=transcript, objective=plan.objective)
        rec, _ = await call_record(self.deps.llm, self.spec("debate", task, user, action=f"{task.action}/record"),
                                   RecordHypothesis)
        # a debate uses no literature tools, so no citation can have been seen (seed 000 citation integrity)
        return rec.model_copy(update={"citations": [], "strategy": "debate", "parent_ids": []})
