"""Generation: new hypotheses from the literature or from a simulated expert debate (design.md#generation).

- ``literature`` — the tool loop over the agent's literature tools, ending in ``record_hypothesis``; citations
  are checked against the sources tools returned (a citation whose URL no tool returned is dropped as unseen;
  one whose excerpt is not a faithful quote of its source's text is kept as ``misquoted``).
- ``debate`` — a real multi-turn discourse: each turn is one call whose prompt carries the transcript so far;
  from ``debate.min_turns`` the panel may conclude by writing ``HYPOTHESIS``, and must at ``debate.max_turns``
  (design.md#generation: 3-5 turns, at most 10). The concluded idea is then recorded with a forced
  ``record_hypothesis``. A debate reads no literature, so its hypothesis, once stored (a duplicate is not), is
  grounded (``docs/design.md#grounded-debate-hypotheses``): ``generation.debate_grounding_searches`` searches built
  from the statement and entities, through the agent's article searches (in
  :func:`cosci.literature.search_order`, one per query, in turn), and one forced ``record_citations`` call
  (``agents.generation.modes.grounding``) that picks citations from what they returned; the citations go through
  the same check as literature mode. A debate hypothesis with no verified citation after that is ``ungrounded``
  (:attr:`~cosci.domain.Hypothesis.grounding`).

Prompt inputs (design.md#prompts): ``articles_with_reasoning`` (the loop instruction and, on a retry, the sources an
earlier attempt found), ``source_hypothesis`` (payload ``source_hypothesis_id``: the parent an
evolution-driven generation builds on; it becomes the record's parent), ``reviews_overview`` (a digest of
recent reviews, debate) and ``instructions`` (task instruction, researcher directives, meta-review focus
areas). Both modes inject the latest system feedback and go through the shared dedup (:meth:`persist`).
"""

from __future__ import annotations

import hashlib
import re
from typing import Any

from cosci.agents import citation_support
from cosci.agents.base import BaseAgent, tool_names
from cosci.agents.tool_loop import result_sources
from cosci.domain import Hypothesis, Task, TaskResult
from cosci.grounding.evidence import EvidenceCounts
from cosci.literature import search_order
from cosci.llm.errors import CALL_FAILED, HostUnreachable
from cosci.llm.port.structured import call_record
from cosci.prompts import render
from cosci.records import RecordCitations, RecordHypothesis
from cosci.safety.quoting import quote_untrusted
from cosci.tools.base import Source
from cosci.tools.sources import merge_records

CONCLUSION = re.compile(r"\bHYPOTHESIS\b")
GROUNDING_CHARS = 1500
"""Characters of each found record shown to the grounding call."""
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
        if task.action == "CarryOver":
            return await self._carry_over(task)
        mode = task.payload.get("mode", "literature")
        if mode == "debate":
            return await self._debate_grounded(task)
        rec, dropped, counts, sources = await self._literature(task)
        result = await self.persist(rec, task)
        result.detail["dropped_citations"] = dropped
        result.detail["evidence"] = counts.to_dict()
        await citation_support.judge_quotes(self, task, result, rec, sources)
        return result

    async def _carry_over(self, task: Task) -> TaskResult:
        """The project's best prior hypotheses as drafts of this session (design.md#projects), embedded so later
        hypotheses are deduplicated against them."""
        from cosci.agents.project_context import carry_over

        ids = carry_over(self.config, self.store, self.config.ranking.elo_initial)
        vectors = self.deps.vectors
        async with vectors.lock:
            for hid in ids:
                h = self.store.hypotheses.get(hid)
                if h is None or hid in vectors:
                    continue
                vec = await self._dedup_vector(h.embedding_text(), task)
                if vec is not None:
                    self.store.hypotheses.add_embedding(hid, self.deps.embedder.model, vec,
                                                         hashlib.sha256(h.embedding_text().encode()).hexdigest()[:16],
                                                         len(vectors))
                    vectors.add(hid, vec)
        self.store.logs.event("project_carry_over", {"ids": ids, "project": self.config.session.project},
                              agent=self.name)
        return TaskResult("hypothesis_created" if ids else "nothing_to_do", ids, detail={"carried_over": len(ids)})

    async def _debate_grounded(self, task: Task) -> TaskResult:
        """A debate hypothesis, persisted, then grounded (see module docstring); a duplicate is not searched for."""
        rec = await self._debate(task)
        result = await self.persist(rec, task)
        dropped: list[str] = []
        counts = EvidenceCounts()
        grounding: dict[str, Any] = {"queries": [], "records": 0, "error": "", "skipped": "duplicate"}
        if result.kind == "hypothesis_created":
            cited, dropped, counts, grounding = await self._ground(task, rec)
            self.store.hypotheses.set_citations(result.hypothesis_ids[0], [c.model_dump() for c in cited.citations])
            await citation_support.judge_quotes(self, task, result, cited, grounding.pop("found", []))
        result.detail.update({"dropped_citations": dropped, "evidence": counts.to_dict(), "grounding": grounding})
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

    async def _literature(self, task: Task) -> tuple[RecordHypothesis, list[str], EvidenceCounts, list[Source]]:
        tools = self.tools("literature")
        plan = self.deps.plan
        parent = self.source_hypothesis(task)
        source = (f"{self.quoted(parent)}\nLatest review: {self.latest_review(parent)}" if parent else "")
        user = render("generation.literature", objective=plan.objective, preferences=plan.preferences,
                      idea_attributes=plan.idea_attributes, tool_names=tool_names(tools),
                      articles_with_reasoning=self.articles("generation", self.found_before(task)) if tools else "",
                      source_hypothesis=source, instructions=self.instructions(task), existing=self.existing())
        spec = self.spec("literature", task, user)
        loop = await self.tool_loop(spec, tools, RecordHypothesis, task)
        kept, dropped, counts = await self.checked(loop.record.citations, loop.sources)
        rec = loop.record.model_copy(update={"citations": kept, "mode": "literature",
                                             "parent_ids": [parent.id] if parent else []})
        return rec, dropped, counts, list(loop.sources)

    async def _debate(self, task: Task) -> RecordHypothesis:
        plan, dcfg = self.deps.plan, self.config.debate
        max_turns = dcfg.max_turns
        transcript: list[dict[str, str]] = []
        # the pool as the debate opens: every turn shows the same, so each turn's prompt begins with the last one's
        instructions, reviews, existing = self.instructions(task), self.reviews_overview(), self.existing()
        for turn in range(1, max_turns + 1):
            user = render("generation.debate", objective=plan.objective, preferences=plan.preferences,
                          idea_attributes=plan.idea_attributes, transcript=transcript, turn=turn,
                          min_turns=min(dcfg.min_turns, max_turns), max_turns=max_turns,
                          instructions=instructions, reviews_overview=reviews, existing=existing)
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

    async def _search(self, task: Task, rec: RecordHypothesis) -> tuple[list[str], list[Source]]:
        """The grounding searches of a debate hypothesis: ``(queries, sources found)``, kept for the record."""
        g, tools = self.config.generation, self.tools()
        names = [n for n in search_order(articles=True) if n in tools]
        queries = grounding_queries(rec, g.debate_grounding_searches) if names else []
        found: dict[str, Source] = {}
        for i, query in enumerate(queries):
            name = names[i % len(names)]
            result = await tools[name]({"query": query, "max_results": g.debate_grounding_results})
            for r in result_sources(result, name):
                found.setdefault(r.source_id, r)
        if found:
            self.keep_sources(task)(list(found.values()))
        return queries, merge_records(list(found.values()))  # the same paper from two searches is one record

    async def _ground(self, task: Task, rec: RecordHypothesis) -> tuple[RecordHypothesis, list[str], EvidenceCounts,
                                                                         dict[str, Any]]:
        """Attach verified citations to a debate hypothesis (see module docstring): ``(record, unseen URLs,
        counts, what was done)``; a failed call leaves it without citations, never fails the task."""
        queries, found = await self._search(task, rec)
        info: dict[str, Any] = {"queries": queries, "records": len(found), "error": ""}
        if not found:
            return rec, [], EvidenceCounts(), info
        records = [quote_untrusted(f"{r.title}\nURL: {r.url}\n{r.text[:GROUNDING_CHARS]}", f"found-{r.source_id}")
                   for r in found]
        user = render("_debate_grounding", objective=self.deps.plan.objective, records=records,
                      hypothesis=quote_untrusted(f"Title: {rec.title}\nStatement: {rec.statement}\n"
                                                 f"Mechanism: {rec.mechanism}", "debate-hypothesis"))
        spec = self.spec("grounding", task, user, action=f"{task.action}/grounding", feedback=False)
        try:
            cited, _ = await call_record(self.deps.llm, spec, RecordCitations)
        except HostUnreachable:  # every later call meets it: the session ends on its line, no fallback
            raise
        except CALL_FAILED as exc:  # BudgetBusy is not one: the task runner waits (design.md#budget)
            info["error"] = f"{type(exc).__name__}: {exc}"[:300]
            return rec, [], EvidenceCounts(), info
        kept, dropped, counts = await self.checked(cited.citations, found)
        return rec.model_copy(update={"citations": kept}), dropped, counts, {**info, "found": found}


def grounding_queries(rec: RecordHypothesis, n: int) -> list[str]:
    """Up to ``n`` distinct search queries for a debate hypothesis: its entities with its title, its statement,
    then its mechanism (each at most 200 characters)."""
    options = [" ".join([*rec.entities[:3], rec.title]), rec.statement, rec.mechanism]
    queries = [" ".join(q.split())[:200] for q in options if q.strip()]
    return list(dict.fromkeys(queries))[:n]
