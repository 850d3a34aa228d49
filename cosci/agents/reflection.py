"""Reflection: reviews of a hypothesis in three modes (seed 000 §3, seed 003 prompts 4-6).

- ``full`` — novelty, correctness, testability, a verdict, with literature evidence (tool loop);
- ``verification`` — atomic assumptions with plausibility, the weakest assumption and a kill experiment;
- ``observation`` — does the hypothesis explain the observations of a given article (payload ``article``:
  title / abstract / url; else the best match from the agent's corpus or search tools).

Evidence is filtered to URLs seen in tool results (for observation, the article's own URL counts as seen).
The review's ``kind`` is the mode, whatever the model wrote. A full review moves the hypothesis
``draft -> reviewed`` only from draft (seed 001 Phase 3: never regress a ranked hypothesis).
"""

from __future__ import annotations

from typing import Any

from cosci.agents.base import BaseAgent, filter_urls, tool_names
from cosci.domain import Hypothesis, Task, TaskResult
from cosci.prompts import render
from cosci.records import RecordReview
from cosci.safety.quoting import quote_untrusted

MODES = ("full", "verification", "observation")


class ReflectionAgent(BaseAgent):
    name = "reflection"

    async def execute(self, task: Task) -> TaskResult:
        """``ReviewHypothesis`` for ``task.target_id``; payload ``kind`` in full | verification | observation."""
        kind = task.payload.get("kind", "full")
        if kind not in MODES:
            raise ValueError(f"unknown review kind {kind!r} (one of {', '.join(MODES)})")
        h = self.record.hypotheses.get(task.target_id or "")
        if h is None:
            raise KeyError(f"review task {task.id}: no hypothesis {task.target_id}")
        article = await self._article(task, h) if kind == "observation" else None
        if kind == "observation" and article is None:
            return TaskResult("nothing_to_do", [h.id], detail={"kind": kind, "reason": "no article available"})
        tools = self.tools() if kind != "observation" else {}
        user = self._prompt(kind, h, tools, article)
        spec = self.spec(kind, task, user, feedback=False)
        loop = await self.tool_loop(spec, tools, RecordReview)
        seen = set(loop.seen_urls) | ({article["url"]} if article and article.get("url") else set())
        evidence, dropped = filter_urls(loop.record.evidence, seen)
        review = loop.record.model_copy(update={"evidence": evidence, "kind": kind})
        rid = self.record.hypotheses.add_review(h.id, review, task_id=task.id, article=article)
        if kind == "full":
            self.record.hypotheses.set_state(h.id, "reviewed", only_from="draft")
        return TaskResult("review_completed", [h.id], detail={"kind": kind, "review_id": rid,
                                                             "verdict": review.verdict, "dropped_evidence": dropped})

    def _prompt(self, kind: str, h: Hypothesis, tools: dict[str, Any], article: dict[str, Any] | None) -> str:
        plan = self.deps.plan
        if kind == "full":
            return render("reflection.full", hypothesis=self.quoted(h), objective=plan.objective,
                          preferences=plan.preferences, tool_names=tool_names(tools))
        if kind == "verification":
            return render("reflection.verification", hypothesis=self.quoted(h), objective=plan.objective,
                          tool_names=tool_names(tools))
        assert article is not None
        text = "\n".join(f"{k.capitalize()}: {article[k]}" for k in ("title", "abstract", "url") if article.get(k))
        return render("reflection.observation", hypothesis=self.quoted(h), objective=plan.objective,
                      article=quote_untrusted(text, f"article-{article.get('url', 'given')}"))

    async def _article(self, task: Task, h: Hypothesis) -> dict[str, Any] | None:
        """The article to review against: the payload's, else the top hit of the corpus or a literature search."""
        given = task.payload.get("article")
        if isinstance(given, dict) and (given.get("abstract") or given.get("title")):
            return {k: str(given.get(k, "")) for k in ("title", "abstract", "url")}
        tools = self.tools()
        for name in ("local_corpus_search", "europe_pmc_search", "pubmed_search"):
            if name not in tools:
                continue
            result = await tools[name]({"query": f"{h.title} {' '.join(h.entities[:3])}", "max_results": 1})
            if not result.is_error and result.urls:
                return {"title": f"Top {name} result for {h.title}", "abstract": result.text[:4000],
                        "url": result.urls[0]}
        return None

