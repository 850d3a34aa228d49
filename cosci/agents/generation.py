"""Generation: new hypotheses from the literature or from a simulated expert debate (design.md#generation).

- ``literature`` — the tool loop over the agent's literature tools, ending in ``record_hypothesis``; citations
  are checked against the sources tools returned (design.md#grounding: a citation whose URL no tool returned is dropped;
  one whose excerpt is not found in its source's text is kept as ``unverified``).
- ``debate`` — a real multi-turn discourse: each turn is one call whose prompt carries the transcript so far;
  from ``debate.min_turns`` the panel may conclude by writing ``HYPOTHESIS``, and must at ``debate.max_turns``
  (design.md#generation: 3-5 turns, at most 10). The concluded idea is then recorded with a forced
  ``record_hypothesis``.

Prompt inputs (design.md#prompts): ``articles_with_reasoning`` (the loop instruction and, on a retry, the sources an
earlier attempt found), ``source_hypothesis`` (payload ``source_hypothesis_id``: the parent an
evolution-driven generation builds on; it becomes the record's parent), ``reviews_overview`` (a digest of
recent reviews, debate) and ``instructions`` (task instruction, researcher directives, meta-review focus
areas). Both modes inject the latest system feedback and go through the shared dedup (:meth:`persist`).
"""

from __future__ import annotations

import re

from cosci.agents.base import BaseAgent, tool_names
from cosci.domain import Hypothesis, Task, TaskResult
from cosci.grounding.evidence import EvidenceCounts, check_items
from cosci.llm.port.structured import call_record
from cosci.prompts import render
from cosci.records import RecordHypothesis
from cosci.safety.quoting import quote_untrusted

CONCLUSION = re.compile(r"\bHYPOTHESIS\b")
REVIEWS_IN_OVERVIEW = 8
"""Recent reviews digested into ``reviews_overview`` (600 characters each)."""


def concluded(text: str) -> bool:
    """A debate turn concludes when it writes ``HYPOTHESIS`` in capitals (design.md#prompts)."""
    return bool(CONCLUSION.search(text))


class GenerationAgent(BaseAgent):
    name = "generation"

    async def execute(self, task: Task) -> TaskResult:
        """``CreateInitialHypotheses`` / ``GenerateHypothesis``; payload ``mode``: literature | debate,
        optional ``source_hypothesis_id`` (literature) and ``instructions``."""
        mode = task.payload.get("mode", "literature")
        dropped: list[str] = []
        counts = EvidenceCounts()
        if mode == "debate":
            rec = await self._debate(task)
        else:
            rec, dropped, counts = await self._literature(task)
        result = await self.persist(rec, task)
        result.detail["dropped_citations"] = dropped
        result.detail["evidence"] = counts.to_dict()
        return result

    def existing(self, limit: int = 30) -> str:
        """Titles already in the pool (best first), quoted, so a new hypothesis differs from them."""
        hyps = sorted((h for h in self.store.hypotheses.all() if h.state != "quarantined"),  # design.md#safety
                      key=lambda h: (-h.elo, h.created_at))[:limit]
        return quote_untrusted("\n".join(f"- {h.title}" for h in hyps), "pool-titles") if hyps else ""

    def source_hypothesis(self, task: Task) -> Hypothesis | None:
        """The parent named by ``payload["source_hypothesis_id"]`` (None when absent or unknown)."""
        pid = task.payload.get("source_hypothesis_id")
        return self.store.hypotheses.get(str(pid)) if pid else None

    def reviews_overview(self) -> str:
        """The prompt input ``reviews_overview`` (design.md#prompts): the latest reviews, each quoted with its
        hypothesis's title."""
        quoted = []
        for r in self.store.hypotheses.reviews(limit=REVIEWS_IN_OVERVIEW):
            h = self.store.hypotheses.get(r.hypothesis_id)
            head = f"On \"{h.title}\" [{h.id}]:\n" if h else ""
            quoted.append(quote_untrusted((head + r.brief())[:600], f"review-{r.id}"))
        return render("_reviews_overview", reviews=quoted)

    async def _literature(self, task: Task) -> tuple[RecordHypothesis, list[str], EvidenceCounts]:
        tools = self.tools()
        plan = self.deps.plan
        parent = self.source_hypothesis(task)
        source = (f"{self.quoted(parent)}\nLatest review: {self.latest_review(parent)}" if parent else "")
        user = render("generation.literature", objective=plan.objective, preferences=plan.preferences,
                      idea_attributes=plan.idea_attributes, tool_names=tool_names(tools),
                      articles_with_reasoning=self.articles("generation", self.found_before(task)) if tools else "",
                      source_hypothesis=source, instructions=self.instructions(task), existing=self.existing())
        spec = self.spec("literature", task, user)
        loop = await self.tool_loop(spec, tools, RecordHypothesis, task)
        kept, dropped, counts = check_items(loop.record.citations, loop.sources)
        rec = loop.record.model_copy(update={"citations": kept, "mode": "literature",
                                             "parent_ids": [parent.id] if parent else []})
        return rec, dropped, counts

    async def _debate(self, task: Task) -> RecordHypothesis:
        plan, dcfg = self.deps.plan, self.config.debate
        max_turns = min(dcfg.max_turns, self.deps.router.route(self.name, "debate").max_iterations)
        transcript: list[dict[str, str]] = []
        instructions, reviews = self.instructions(task), self.reviews_overview()
        for turn in range(1, max_turns + 1):
            user = render("generation.debate", objective=plan.objective, preferences=plan.preferences,
                          idea_attributes=plan.idea_attributes, transcript=transcript, turn=turn,
                          min_turns=min(dcfg.min_turns, max_turns), max_turns=max_turns,
                          instructions=instructions, reviews_overview=reviews, existing=self.existing())
            resp = await self.deps.llm.complete(self.spec("debate", task, user, action=f"{task.action}/turn{turn}"))
            speaker = f"Expert {(turn - 1) % 3 + 1}"
            transcript.append({"speaker": speaker, "text": quote_untrusted(resp.text.strip() or "(no contribution)",
                                                                           f"debate-turn-{turn}")})
            if turn >= dcfg.min_turns and concluded(resp.text):
                break
        user = render("_debate_record", transcript=transcript, objective=plan.objective)
        rec, _ = await call_record(self.deps.llm, self.spec("debate", task, user, action=f"{task.action}/record"),
                                   RecordHypothesis)
        # a debate uses no literature tools, so no citation can have been seen (citation integrity, design.md#grounding)
        return rec.model_copy(update={"citations": [], "mode": "debate", "parent_ids": []})
