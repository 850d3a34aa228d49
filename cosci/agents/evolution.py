"""Evolution: new hypotheses from the best ones (design.md#evolution, design.md#prompts).

Modes (payload ``mode``):

- ``combine`` — the most idea-distant pair within the top-K (lowest cosine similarity of their embeddings);
- ``simplify`` and ``feasibility`` — the best-ranked hypothesis not yet evolved by that mode;
- ``out_of_box`` — the top 5 as inspiration.

Each runs the tool loop ending in ``record_hypothesis``; the record gets the mode and ``parent_ids``
(lineage) whatever the model wrote, citations checked against the sources tools returned (design.md#grounding: unknown
source dropped, excerpt not found -> ``unverified``), and goes through the shared dedup.
"""

from __future__ import annotations

from itertools import combinations

from cosci.agents import citation_support
from cosci.agents.base import BaseAgent, task_mode, tool_names
from cosci.domain import Hypothesis, Task, TaskResult
from cosci.prompts import render
from cosci.records import RecordHypothesis

MODES = ("combine", "simplify", "feasibility", "out_of_box")


class EvolutionAgent(BaseAgent):
    name = "evolution"

    async def execute(self, task: Task) -> TaskResult:
        """``EvolveHypotheses``; payload ``mode`` in combine | simplify | feasibility | out_of_box."""
        mode = task_mode(task, MODES, "evolution")
        top = self.store.hypotheses.ranked()[: max(self.config.evolution.top_k, 5 if mode == "out_of_box" else 0)]
        parents = self._parents(mode, top)
        if not parents:
            return TaskResult("nothing_to_do", detail={"mode": mode, "reason": "not enough ranked hypotheses"})
        tools = self.tools(mode)
        user = self._prompt(mode, parents, tool_names(tools))
        spec = self.spec(mode, task, user)
        loop = await self.tool_loop(spec, tools, RecordHypothesis, task)
        kept, dropped, counts = await self.checked(loop.record.citations, loop.sources)
        rec = loop.record.model_copy(update={"citations": kept, "mode": mode,
                                             "parent_ids": [p.id for p in parents]})
        result = await self.persist(rec, task)
        result.detail.update({"parent_ids": [p.id for p in parents], "dropped_citations": dropped,
                              "evidence": counts.to_dict()})
        await citation_support.judge_quotes(self, task, result, rec, list(loop.sources))
        return result

    def _parents(self, mode: str, top: list[Hypothesis]) -> list[Hypothesis]:
        if mode == "combine":
            pool = top[: self.config.evolution.top_k]
            if len(pool) < 2:
                return []
            sim = self.deps.vectors.similarity
            a, b = min(combinations(pool, 2), key=lambda p: (sim(p[0].id, p[1].id), p[0].id, p[1].id))
            return [a, b]
        if mode == "out_of_box":
            return top[:5] if len(top) >= 2 else []
        used = {pid for h in self.store.hypotheses.all() if h.mode == mode for pid in h.parent_ids}
        fresh = [h for h in top if h.id not in used]
        return [(fresh or top)[0]] if top else []

    def _prompt(self, mode: str, parents: list[Hypothesis], tools: list[str]) -> str:
        plan = self.deps.plan
        common = {"objective": plan.objective, "tool_names": tools}
        if mode == "combine":
            a, b = parents
            return render("evolution.combine", **common, preferences=plan.preferences, hypothesis_a=self.quoted(a),
                          hypothesis_b=self.quoted(b), review_a=self.latest_review(a), review_b=self.latest_review(b))
        if mode == "out_of_box":
            return render("evolution.out_of_box", **common, preferences=plan.preferences,
                          hypotheses=[{"id": h.id, "text": self.quoted(h)} for h in parents])
        h = parents[0]
        extra = {"preferences": plan.preferences} if mode == "feasibility" else {}
        return render(f"evolution.{mode}", **common, **extra, hypothesis=self.quoted(h),
                      review=self.latest_review(h))
