"""Reflection: reviews of a hypothesis in three modes (design.md#reflection).

- ``full`` — novelty, correctness, testability, a verdict, with literature evidence (tool loop); the prompt's
  ``articles_block`` carries the loop instruction and, on a retry, the sources an earlier attempt found;
- ``verification`` — atomic assumptions with plausibility, the weakest assumption and a kill experiment;
- ``observation`` — does the hypothesis explain the observations of a specific article, chosen by
  :class:`~cosci.agents.article.ArticleFinder` (payload article, else a search built from its predictions
  that returns a source it does not cite, else — recorded as such — a source it cites). The article's text
  reaches the prompt quoted as untrusted; its source (with its ``source_id`` and ``how``) is stored on the
  review. With no article the task ends ``nothing_to_do`` with the reason.

A full review is prepared by the novelty step (:mod:`cosci.agents.novelty`, ``docs/design.md#prior-work``): the
hypothesis's nearest prior work is searched for, stored (``prior_work`` rows) and given to the review as required
reading; the review states whether the hypothesis differs from each record (``record_review.prior_work``, kept only
for the records listed) and may cite them as evidence. It also shows the deterministic check of the hypothesis's
falsification contract (:mod:`cosci.grounding.falsification`, ``docs/design.md#falsification``), and when the refuting
result is not concrete the review's testability is at most ``reflection.vague_refutation_testability``, its notes
saying why.

Evidence is checked against the sources tools returned (and, for observation, the article): an item whose URL
no tool returned is dropped as unseen; one whose excerpt is not a faithful quote of its source's text is kept
as ``misquoted`` (design.md#grounding). The review's ``mode`` is the task's, whatever the model wrote. A full
review moves the hypothesis ``draft -> reviewed`` only from draft (design.md#reflection: never regress a ranked
hypothesis).
"""

from __future__ import annotations

from typing import Any

from cosci.agents.article import Article, ArticleFinder
from cosci.agents.base import BaseAgent, task_mode, tool_names
from cosci.agents.novelty import PriorWorkFinder, as_source
from cosci.agents.tool_loop import normalise_url
from cosci.domain import Hypothesis, PriorWork, Task, TaskResult
from cosci.grounding.evidence import check_items
from cosci.grounding.falsification import ContractCheck, check_contract, load_terms
from cosci.prompts import render
from cosci.records import RecordReview
from cosci.safety.quoting import quote_untrusted

MODES = ("full", "verification", "observation")


class ReflectionAgent(BaseAgent):
    name = "reflection"

    async def execute(self, task: Task) -> TaskResult:
        """``ReviewHypothesis`` for ``task.target_id``; payload ``mode`` in full | verification | observation."""
        mode = task_mode(task, MODES, "review")
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
        prior: list[PriorWork] = []
        extra: dict[str, Any] = {}
        if mode == "full":  # the novelty step searches with every allowed tool, whatever the loop may call
            prior, extra["prior_work"] = await self._prior_work(h, self.tools(), task)
        contract = check_contract(h, load_terms(self.config.reflection.falsification_terms))
        user = self._prompt(mode, h, tools, article, task, prior, contract)
        spec = self.spec(mode, task, user, feedback=False)
        loop = await self.tool_loop(spec, tools, RecordReview, task)
        sources = [*loop.sources, *map(as_source, prior), *([article.source] if article else [])]
        evidence, dropped, counts = await self.checked(loop.record.evidence, sources)
        review = loop.record.model_copy(update={"evidence": evidence, "mode": mode})
        if mode == "full":
            review, extra["testability"] = self._testability(review, contract)
            review, extra["already_published"] = compared(review, prior)
        rid = self.store.hypotheses.add_review(h.id, review, task_id=task.id,
                                                article=article.to_json() if article else None)
        if mode == "full":
            self.store.hypotheses.set_state(h.id, "reviewed", only_from="draft")
        detail = {"mode": mode, "review_id": rid, "verdict": review.verdict, "dropped_evidence": dropped,
                  "evidence": counts.to_dict(), **extra}
        if article:
            detail.update({"article_source_id": article.source.source_id, "article_how": article.how})
        return TaskResult("review_completed", [h.id], detail=detail)

    async def _result_review(self, task: Task, h: Hypothesis, oid: str) -> TaskResult:
        """An observation review of ``h`` against the experimental result ``oid`` on a relative of it (the result
        is the observation; no tools, design.md#experimental-results)."""
        o = self.store.researcher.observation(oid)
        if o is None or o.withdrawn_at is not None:  # a review queued before the researcher withdrew the result
            return TaskResult("nothing_to_do", [h.id], detail={"mode": "observation", "reason": f"no result {oid}"
                              if o is None else f"result {oid} withdrawn"})
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

    async def _prior_work(self, h: Hypothesis, tools: dict[str, Any], task: Task) -> tuple[list[PriorWork],
                                                                                         dict[str, Any]]:
        """The novelty step (``docs/design.md#prior-work``): the nearest prior work, stored, and what was searched
        (event ``prior_work_searched``)."""
        cfg, embedder = self.config.reflection, self.deps.embedder
        finder = PriorWorkFinder(tools, embedder, queries=cfg.prior_work_queries,
                                 results=cfg.prior_work_search_results, kept=cfg.prior_work_kept,
                                 threshold=self.config.vectors.dedup_threshold(embedder.model))
        nearest, _, search = await finder.find(h, task.id)
        self.store.hypotheses.set_prior_work(h.id, nearest, task_id=task.id)
        info = {**search.to_json(), "kept": [p.source_id for p in nearest], "line": search.line()}
        self.store.logs.event("prior_work_searched", {"hypothesis_id": h.id, "task_id": task.id, **info},
                              agent=self.name)
        return nearest, info

    def _testability(self, review: RecordReview, contract: ContractCheck) -> tuple[RecordReview, dict[str, Any]]:
        """The review with its testability capped when the refuting result is not concrete (module docstring)."""
        cap = self.config.reflection.vague_refutation_testability
        info: dict[str, Any] = {"contract": contract.line(), "capped": False}
        if contract.refuting.concrete:
            return review, info
        before = review.testability
        after = cap if before is None else min(before, cap)
        info.update({"capped": True, "before": before, "after": after})
        why = (f"Testability {'lowered to' if before is None or before > cap else 'kept at'} {after:.2f} "
               f"(at most {cap:.2f}): the refuting result is not concrete ({contract.refuting.why}); a hypothesis "
               "must say which measured result would prove it wrong.")
        notes = f"{review.notes.rstrip()}\n{why}".strip()
        return review.model_copy(update={"testability": after, "notes": notes}), info

    def _prompt(self, mode: str, h: Hypothesis, tools: dict[str, Any], article: Article | None, task: Task,
                prior: list[PriorWork], contract: ContractCheck) -> str:
        plan = self.deps.plan
        if mode == "full":
            chars = self.config.reflection.prior_work_chars
            records = [{"url": p.url, "source_id": p.source_id, "reason": p.reason,
                        "text": quote_untrusted(f"{p.title}\nURL: {p.url}\n{p.text[:chars]}".strip(),
                                                f"prior-work-{p.rank}")} for p in prior]
            return render("reflection.full", hypothesis=self.quoted(h), objective=plan.objective,
                          preferences=plan.preferences, tool_names=tool_names(tools),
                          articles_block=self.articles("review", self.found_before(task)) if tools else "",
                          prior_work=records, contract=contract.line())
        if mode == "verification":
            return render("reflection.verification", hypothesis=self.quoted(h), objective=plan.objective,
                          tool_names=tool_names(tools))
        assert article is not None
        return render("reflection.observation", hypothesis=self.quoted(h), objective=plan.objective,
                      article=quote_untrusted(article.prompt_text(), f"article-{article.source.source_id}"))


def compared(review: RecordReview, prior: list[PriorWork]) -> tuple[RecordReview, list[str]]:
    """The review with its ``prior_work`` comparisons kept only for the records listed (matched by URL or source id,
    each once), and the source ids the review finds already published: with the verdict ``already_explained``, those
    it says the hypothesis does not differ from, else those its verified evidence cites."""
    keys: dict[str, PriorWork] = {}
    for p in prior:
        keys.setdefault(normalise_url(p.url), p)
        keys.setdefault(p.source_id, p)
    kept, same, seen = [], [], set()
    for item in review.prior_work:
        match = keys.get(item.source) or keys.get(normalise_url(item.source))
        if match is not None and match.source_id not in seen:
            seen.add(match.source_id)
            kept.append(item.model_copy(update={"source": match.url or match.source_id}))
            if not item.differs:
                same.append(match.source_id)
    review = review.model_copy(update={"prior_work": kept})
    if review.verdict != "already_explained":
        return review, []
    cited = [keys[normalise_url(e.url)].source_id for e in review.evidence
             if e.status == "verified" and normalise_url(e.url) in keys]
    return review, list(dict.fromkeys(same or cited))
