"""Reflection: reviews of a hypothesis in three modes (design.md#reflection).

- ``full`` — novelty, correctness, testability, a verdict, with literature evidence (tool loop); the prompt's
  ``articles_block`` carries the loop instruction and, on a retry, the sources an earlier attempt found;
- ``verification`` — atomic assumptions with plausibility, the weakest assumption and a kill experiment;
- ``observation`` — does the hypothesis explain the observations of a specific article, chosen by
  :class:`~cosci.agents.article.ArticleFinder` (payload article, else a search built from its predictions
  that returns a source it does not cite, else — recorded as such — a source it cites). The article's text
  reaches the prompt quoted as untrusted; its source (with its ``source_id`` and ``how``) is stored on the
  review. With no article the task ends ``nothing_to_do`` with the reason.

Evidence is checked against the sources tools returned (and, for observation, the article): an item whose URL
no tool returned is dropped as unseen; one whose excerpt is not a faithful quote of its source's text is kept
as ``misquoted`` (design.md#grounding). The review's ``mode`` is the task's, whatever the model wrote. A full
review moves the hypothesis ``draft -> reviewed`` only from draft (design.md#reflection: never regress a ranked
hypothesis).
"""

from __future__ import annotations

from typing import Any

from cosci.agents.article import Article, ArticleFinder
from cosci.agents.base import BaseAgent, tool_names
from cosci.domain import Hypothesis, Task, TaskResult
from cosci.grounding.evidence import check_items
from cosci.prompts import render
from cosci.records import RecordReview
from cosci.safety.quoting import quote_untrusted

MODES = ("full", "verification", "observation")


class ReflectionAgent(BaseAgent):
    name = "reflection"

    async def execute(self, task: Task) -> TaskResult:
        """``ReviewHypothesis`` for ``task.target_id``; payload ``mode`` in full | verification | observation."""
        mode = task.payload.get("mode", "full")
        if mode not in MODES:
            raise ValueError(f"unknown review mode {mode!r} (one of {', '.join(MODES)})")
        h = self.store.hypotheses.get(task.target_id or "")
        if h is None:
            raise KeyError(f"review task {task.id}: no hypothesis {task.target_id}")
        article: Article | None = None
        if mode == "observation" and task.payload.get("observation_id"):  # against a lab result
            return await self._result_review(task, h, str(task.payload["observation_id"]))
        if mode == "observation":
            finder = ArticleFinder(self.tools(), self.store, self.config.reflection.observation_search_results)
            article, why = await finder.find(h, task.payload.get("article"))
            if article is None:
                return TaskResult("nothing_to_do", [h.id], detail={"mode": mode, "reason": why})
        tools = self.tools(mode) if mode != "observation" else {}
        user = self._prompt(mode, h, tools, article, task)
        spec = self.spec(mode, task, user, feedback=False)
        loop = await self.tool_loop(spec, tools, RecordReview, task)
        sources = [*loop.sources, *([article.source] if article else [])]
        evidence, dropped, counts = check_items(loop.record.evidence, sources)
        evidence = await self.flag_retractions(evidence, sources)
        review = loop.record.model_copy(update={"evidence": evidence, "mode": mode})
        rid = self.store.hypotheses.add_review(h.id, review, task_id=task.id,
                                                article=article.to_json() if article else None)
        if mode == "full":
            self.store.hypotheses.set_state(h.id, "reviewed", only_from="draft")
        detail = {"mode": mode, "review_id": rid, "verdict": review.verdict, "dropped_evidence": dropped,
                  "evidence": counts.to_dict()}
        if article:
            detail.update({"article_source_id": article.source.source_id, "article_how": article.how})
        return TaskResult("review_completed", [h.id], detail=detail)

    async def _result_review(self, task: Task, h: Hypothesis, oid: str) -> TaskResult:
        """An observation review of ``h`` against the experimental result ``oid`` on a relative of it (the result
        is the observation; no tools, design.md#experimental-results)."""
        o = self.store.researcher.observation(oid)
        if o is None:
            return TaskResult("nothing_to_do", [h.id], detail={"mode": "observation", "reason": f"no result {oid}"})
        tested = self.store.hypotheses.get(o.hypothesis_id)
        text = (f"A laboratory experiment tested the related hypothesis [{o.hypothesis_id}]"
                + (f" \"{tested.title}\"" if tested else "") + f".\n{o.text()}")
        user = render("reflection.observation", hypothesis=self.quoted(h), objective=self.deps.plan.objective,
                      article=quote_untrusted(text, f"experimental-result-{o.id}"))
        loop = await self.tool_loop(self.spec("observation", task, user, feedback=False), {}, RecordReview, task)
        evidence, dropped, counts = check_items(loop.record.evidence, loop.sources)
        review = loop.record.model_copy(update={"evidence": evidence, "mode": "observation"})
        rid = self.store.hypotheses.add_review(h.id, review, task_id=task.id,
                                                article={"observation_id": o.id, "tested": o.hypothesis_id})
        return TaskResult("review_completed", [h.id], detail={
            "mode": "observation", "review_id": rid, "verdict": review.verdict, "dropped_evidence": dropped,
            "evidence": counts.to_dict(), "observation_id": o.id})

    def _prompt(self, mode: str, h: Hypothesis, tools: dict[str, Any], article: Article | None, task: Task) -> str:
        plan = self.deps.plan
        if mode == "full":
            return render("reflection.full", hypothesis=self.quoted(h), objective=plan.objective,
                          preferences=plan.preferences, tool_names=tool_names(tools),
                          articles_block=self.articles("review", self.found_before(task)) if tools else "")
        if mode == "verification":
            return render("reflection.verification", hypothesis=self.quoted(h), objective=plan.objective,
                          tool_names=tool_names(tools))
        assert article is not None
        return render("reflection.observation", hypothesis=self.quoted(h), objective=plan.objective,
                      article=quote_untrusted(article.prompt_text(), f"article-{article.source.source_id}"))
