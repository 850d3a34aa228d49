"""What every agent shares: its dependencies, the system prompt blocks, and the hypothesis persistence path.

Agents receive an ``AgentDeps`` bundle (config, store, LLM port, tools) and
implement ``execute(task) -> TaskResult``. cosci adds the embedder and the vector store, and keeps here the
steps Generation and Evolution share: citation filtering to seen URLs and dedup-then-insert (design.md#dedup
"Dedup Mechanism": cosine >= threshold returns the existing id; the FAISS commit follows the row insert).
No framework imports: agents get a gateway, the session store and typed config.
"""

from __future__ import annotations

import hashlib
import json
import random
from collections.abc import Awaitable, Callable, Mapping, Sequence
from dataclasses import asdict, dataclass, field, replace
from typing import TYPE_CHECKING, Any, Protocol, TypeVar

import numpy as np
from pydantic import BaseModel

from cosci.agents.tool_loop import ToolLoopResult, normalise_url, run_tool_loop
from cosci.config.schema import CosciConfig
from cosci.domain import Hypothesis, Task, TaskResult
from cosci.grounding.evidence import EvidenceCounts, check_items, flag_retractions
from cosci.ids import hypothesis_id
from cosci.llm.embeddings.embedder import Embedder
from cosci.llm.errors import BudgetExceeded
from cosci.llm.gateway.routing import Router
from cosci.llm.port.types import BatchPort, CallSpec, LLMPort, Route, TextBlock
from cosci.prompts import render
from cosci.records import Record, RecordHypothesis, RecordResearchPlan
from cosci.safety.quoting import quote_hypothesis, quote_untrusted
from cosci.store import SessionStore
from cosci.tools.base import Source, Tool
from cosci.vectors.store import VectorStore

if TYPE_CHECKING:  # the screen's modules load at its first use (design.md#startup)
    from cosci.safety.screen import ScreenResult
    from cosci.store.safety import Subject

R = TypeVar("R", bound=Record)
M = TypeVar("M", bound=BaseModel)
CHARS_PER_TOKEN = 4
"""Characters per token of English prompt text (the providers' published rule of thumb, ~3.5-4): a length estimate
for :meth:`BaseAgent.padded`, never a price."""


class ToolSource(Protocol):
    def for_agent(self, agent: str) -> dict[str, Tool]: ...


@dataclass
class AgentDeps:
    """Everything an agent may use. ``tools.for_agent(name)`` applies the allowlist (design.md#tools)."""

    config: CosciConfig
    store: SessionStore
    llm: LLMPort
    router: Router
    tools: ToolSource
    embedder: Embedder
    vectors: VectorStore
    batches: BatchPort | None = None  # provider message batches for low-stakes matches (design.md#batches)
    screen: Callable[[str, Subject], Awaitable[ScreenResult]] | None = None
    """The offline screen's check of a hypothesis, when not in a worker thread (the session's screen process:
    design.md#supervisor, "The offline screen in a process")."""
    _plan: RecordResearchPlan | None = field(default=None, repr=False)

    @property
    def plan(self) -> RecordResearchPlan:
        """The session's research plan (from the store; a plan built from the goal if none was parsed)."""
        if self._plan is None:
            row = self.store.sessions.get()
            self._plan = (RecordResearchPlan.model_validate(row.research_plan) if row.research_plan
                          else fallback_plan(row.research_goal, list(self.config.session.preferences)))
        return self._plan

    def forget_plan(self) -> None:
        self._plan = None


def fallback_plan(goal: str, preferences: list[str]) -> RecordResearchPlan:
    """A research plan made from the goal text when goal parsing fails (design.md#supervisor: parse_goal fallback)."""
    return RecordResearchPlan(objective=" ".join(goal.split()), preferences=preferences, constraints=[],
                              idea_attributes=["novel", "testable", "specific", "plausible"], domain_hint=None,
                              notes="fallback plan: goal parsing failed, the goal is used verbatim")


class BaseAgent:
    """Base of the six research agents (and goal parsing). Subclasses set ``name`` and implement ``execute``."""

    name = "agent"

    def __init__(self, deps: AgentDeps) -> None:
        self.deps = deps
        self.config = deps.config
        self.store = deps.store
        self._rejected: tuple[list[Any], np.ndarray] | None = None  # a project's rejected directions, embedded

    async def execute(self, task: Task) -> TaskResult:  # pragma: no cover - abstract
        raise NotImplementedError

    # --- prompts -----------------------------------------------------------------------------------------
    def system_blocks(self, *, feedback: bool = True, route: Route | None = None) -> list[TextBlock]:
        """Safety preamble and session context (cached: the gateway marks the last of them, design.md#caching), then
        the latest feedback (not cached). ``route`` is accepted for callers that pass it; the research handbook is
        added by :meth:`padded`, to tool loops only."""
        plan = self.deps.plan
        goal = self.store.sessions.research_goal()
        blocks = [TextBlock(render("_safety_preamble"), cache=True),
                  TextBlock(render("_session_context", goal=goal, objective=plan.objective,
                                   preferences=plan.preferences, constraints=plan.constraints,
                                   idea_attributes=plan.idea_attributes, domain_hint=plan.domain_hint,
                                   background=self.background()), cache=True)]
        if feedback:
            text = self.feedback_context()
            if text.strip():
                blocks.append(TextBlock(text))
        return blocks

    def padded(self, spec: CallSpec, tools: Mapping[str, Tool]) -> CallSpec:
        """``spec`` with the research handbook (``prompts/_handbook.md``, the same in every session and mode) after
        the safety preamble, where the route's tier caches only prefixes longer than the loop's shared prefix (its
        tool definitions and cached system blocks, at :data:`CHARS_PER_TOKEN` characters a token): then a loop's first
        call is cached, and its later calls and every other loop of the mode read it. ``python -m bench.cost``
        measured this cheaper on the opus tier's Opus-class loops, and dearer everywhere else (design.md#caching)."""
        entry = self.config.models.tiers.get(spec.route.tier)
        minimum = entry.cache_min_tokens if entry else None
        if not minimum or not spec.system or not tools:  # no search tool: the "loop" is one record call
            return spec
        shared = sum(len(b.text) for b in spec.system if b.cache) + sum(
            len(t.spec.name) + len(t.spec.description) + len(json.dumps(t.spec.parameters)) for t in tools.values())
        if shared // CHARS_PER_TOKEN >= minimum:
            return spec
        return replace(spec, system=[spec.system[0], TextBlock(render("_handbook"), cache=True), *spec.system[1:]])

    def background(self) -> str | None:
        """The session's background survey (``session.background``) quoted as untrusted data, or None."""
        text = self.config.session.background
        return quote_untrusted(text, "session-background") if text and text.strip() else None

    def feedback_context(self) -> str:
        """Latest system feedback, researcher directives, rejected hypotheses, experimental results
        (design.md#experimental-results) and a project's rejected and demoted directions (design.md#projects),
        injected into generation and evolution (design.md#metareview)."""
        logs = self.store.logs
        latest = logs.latest_system_feedback()
        human = logs.feedback(source="human")
        directives = [quote_untrusted(f.text, f"researcher-{f.kind}-{f.id}") for f in human
                      if f.kind in ("directive", "preference")]
        rejected = [h.title for h in self.store.hypotheses.all(states=("rejected",))]
        from cosci.agents.project_context import demoted_directions_block, rejected_directions_block
        from cosci.agents.researcher_context import results_block

        return render("_feedback_context",
                      system_feedback=quote_untrusted(latest.text, f"system-feedback-{latest.id}") if latest else None,
                      directives=directives, rejected_titles=rejected, results=results_block(self.store),
                      rejected_directions=rejected_directions_block(self.config, self.store),
                      demoted_directions=demoted_directions_block(self.config, self.store))

    def instructions(self, task: Task) -> str:
        """The prompt input ``instructions`` (design.md#prompts): the task's own instruction
        (``payload["instructions"]``), the researcher's directives and the latest meta-review's suggested focus
        areas ("" when all are empty)."""
        logs = self.store.logs
        directives = [quote_untrusted(f.text, f"researcher-{f.kind}-{f.id}") for f in logs.feedback(source="human")
                      if f.kind == "directive"]
        latest = logs.latest_system_feedback()
        areas = [str(a) for a in (latest.payload.get("suggested_focus_areas") or [])] if latest else []
        focus = (quote_untrusted("\n".join(f"- {a}" for a in areas), f"focus-areas-{latest.id}")
                 if latest and areas else "")
        return render("_instructions", task_instruction=str(task.payload.get("instructions", "")).strip(),
                      directives=directives, focus_areas=focus)

    def spec(self, mode: str, task: Task | None, user: str, *, action: str | None = None,
             feedback: bool = True, tier: str | None = None, **kw: Any) -> CallSpec:
        """One call of ``mode``, on the routed tier or on ``tier`` (a ranking judge, design.md#judges)."""
        route = self.deps.router.route(self.name, mode, tier)
        return CallSpec(route=route, action=action or (task.action if task else mode),
                        task_id=task.id if task else None, system=self.system_blocks(feedback=feedback, route=route),
                        messages=[{"role": "user", "content": user}], **kw)

    def tools(self, mode: str | None = None) -> dict[str, Tool]:
        """The agent's allowed tools; none for ``mode`` when its tool loop records at once (``max_iterations`` 1: the
        one call is the forced record, so no search could be made, and the prompt says so instead of describing
        tools; docs/design.md#local measures the prompt this saves on the demo)."""
        if mode is not None and self.deps.router.route(self.name, mode).max_iterations <= 1:
            return {}
        return self.deps.tools.for_agent(self.name)

    async def tool_loop(self, spec: CallSpec, tools: Mapping[str, Tool], record: type[R],
                        task: Task | None = None) -> ToolLoopResult[R]:
        """The tool loop with this mode's iteration limit and the configured parallel cap and tool timeout.

        With ``task``, the records an earlier attempt of the task found count as found, and the records this
        loop finds are kept in the store (events ``sources_found``) for a retry and the overview check.
        """
        return await run_tool_loop(self.deps.llm, self.padded(spec, tools), tools, record,
                                   max_iters=spec.route.max_iterations,
                                   parallel_cap=self.config.tools.parallel_cap,
                                   tool_timeout=self.config.tools.timeout_seconds,
                                   prior=self.found_before(task) if task else (),
                                   on_sources=self.keep_sources(task) if task else None)

    # --- records found by tools (design.md#grounding) ---------------------------------------------------------------
    def found_before(self, task: Task) -> list[Source]:
        """Records the tools returned to earlier attempts of ``task`` (a retry or a resumed task)."""
        found: dict[str, Source] = {}
        for e in self.store.logs.events("sources_found"):
            if e["payload"].get("task_id") == task.id:
                for r in e["payload"].get("records", []):
                    rec = Source(url=r["url"], text=r["text"], title=r.get("title", ""),
                                 ids=tuple(r.get("ids", ())), tool=r.get("tool", ""),
                                 retraction=r.get("retraction", ""), notice=r.get("notice", ""))
                    found.setdefault(rec.source_id, rec)
        return list(found.values())

    async def flag_retractions(self, items: list[M], sources: Sequence[Source]) -> list[M]:
        """Cited items with the session's retraction check applied (design.md#retractions; the registry's
        ``retractions``; a tool source without one leaves the flags the search hits carried)."""
        return await flag_retractions(items, sources, getattr(self.deps.tools, "retractions", None))

    async def checked(self, items: Sequence[M], sources: Sequence[Source]) -> tuple[list[M], list[str],
                                                                                 EvidenceCounts]:
        """Citations or evidence items checked against ``sources`` (:func:`cosci.grounding.evidence.check_items`:
        ``(kept, unseen_urls, counts)``), the kept ones with the retraction check applied (:meth:`flag_retractions`)."""
        kept, dropped, counts = check_items(items, sources)
        return await self.flag_retractions(kept, sources), dropped, counts

    def keep_sources(self, task: Task) -> Callable[[list[Source]], None]:
        def keep(records: list[Source]) -> None:
            self.store.logs.event("sources_found", {"task_id": task.id,
                                                     "records": [asdict(r) for r in records]}, agent=self.name)
        return keep

    def articles(self, purpose: str, prior: list[Source], limit: int = 8, chars: int = 1500) -> str:
        """The prompt inputs ``articles_with_reasoning`` / ``articles_block`` (design.md#prompts): the loop
        instruction, then the sources an earlier attempt found (quoted, at most ``limit``, ``chars`` characters
        each)."""
        records = [quote_untrusted(f"{r.title}\nURL: {r.url}\n{r.text[:chars]}".strip(), f"found-{r.source_id}")
                   for r in prior[:limit]]
        return render("_articles", purpose=purpose, records=records)

    def rng(self, task: Task, salt: str = "") -> random.Random:
        """A RNG seeded by the run seed and the task, so a retried task makes the same choices."""
        return random.Random(f"{self.config.run.seed}:{task.id}:{salt}")

    # --- hypotheses --------------------------------------------------------------------------------------
    def quoted(self, h: Hypothesis) -> str:
        return quote_hypothesis(f"[{h.id}] Elo {h.elo:.0f}, {h.matches_played} matches\n{h.brief()}", h.id)

    def latest_review(self, h: Hypothesis) -> str:
        reviews = self.store.hypotheses.reviews(h.id, limit=1)
        return quote_untrusted(reviews[0].brief(), f"review-{reviews[0].id}") if reviews else "(not reviewed yet)"

    async def persist(self, rec: RecordHypothesis, task: Task) -> TaskResult:
        """Dedup, then insert the hypothesis and commit its vector (design.md#dedup).

        Returns:
            ``hypothesis_created`` with the new id, or ``hypothesis_duplicate`` naming the existing one: a
            near-duplicate by cosine, or the same statement by the same route recorded by another task (same
            deterministic id). A retry of the task that created the hypothesis gets ``hypothesis_created``.
        """
        origin = rec.mode + (":" + ",".join(sorted(rec.parent_ids)) if rec.parent_ids else "")
        hid = hypothesis_id(self.store.namespace, origin, rec.statement)
        text = f"{rec.title}. {rec.statement} {rec.mechanism}"
        vectors = self.deps.vectors
        async with vectors.lock:
            vec = await self._dedup_vector(text, task)
            hit = next(iter(vectors.nearest(vec, k=1)), None) if vec is not None else None
            # per embedding model (design.md#dedup)
            threshold = self.config.vectors.dedup_threshold(self.deps.embedder.model)
            if hit and hit.id != hid and hit.similarity >= threshold:
                return TaskResult("hypothesis_duplicate", [hit.id],
                                  detail={"duplicate_of": hit.id, "similarity": round(hit.similarity, 4)})
            inserted = self.store.hypotheses.insert(hid, rec, elo=self.config.ranking.elo_initial,
                                                     task_id=task.id)
            if not inserted and self.store.hypotheses.created_by(hid) != task.id:  # same id, another task
                return TaskResult("hypothesis_duplicate", [hid],
                                  detail={"duplicate_of": hid, "similarity": 1.0})
            if vec is not None and hid not in vectors:
                self.store.hypotheses.add_embedding(hid, self.deps.embedder.model, vec,
                                                     hashlib.sha256(text.encode()).hexdigest()[:16], len(vectors))
                vectors.add(hid, vec)
        self.store.logs.event("hypothesis_created", {"id": hid, "mode": rec.mode}, agent=self.name)
        if vec is not None and self.config.session.project:
            await self._flag_near_rejected(hid, vec, task)
        return TaskResult("hypothesis_created", [hid], detail={"mode": rec.mode})

    async def _flag_near_rejected(self, hid: str, vec: np.ndarray, task: Task) -> None:
        """Flag a new hypothesis whose embedding is a near-duplicate (the dedup threshold) of one of its project's
        rejected directions: event ``near_rejected_direction``, listed in "Since the last session"
        (design.md#projects). The directions are embedded once per agent (again after a resume)."""
        from cosci.agents.project_context import nearest_rejected, rejected_directions

        if self._rejected is None:
            directions = rejected_directions(self.config, self.store)
            texts = [f"{d.title}. {d.statement}" for d in directions]
            try:
                vectors = (await self.deps.embedder.embed(texts, action="dedup", task_id=task.id) if texts
                           else np.zeros((0, len(vec)), np.float32))
            except BudgetExceeded:
                return
            self._rejected = (directions, vectors)
        directions, vectors = self._rejected
        hit = nearest_rejected(vec, directions, vectors, self.config.vectors.dedup_threshold(self.deps.embedder.model))
        if hit:
            d, sim = hit
            self.store.logs.event("near_rejected_direction", {"id": hid, "direction": d.hypothesis_id,
                                                              "session": d.session_id, "reason": d.reason,
                                                              "similarity": round(sim, 4)}, agent=self.name)

    async def _dedup_vector(self, text: str, task: Task) -> np.ndarray | None:
        """The hypothesis's embedding, or None when proximity's budget share refuses the embedding call (issue
        16): the hypothesis is then kept without dedup, and proximity embeds it later if budget allows."""
        try:
            return (await self.deps.embedder.embed([text], action="dedup", task_id=task.id))[0]
        except BudgetExceeded as exc:
            self.store.logs.event("dedup_skipped", {"task_id": task.id, "reason": str(exc)}, agent=self.name)
            return None


def filter_urls(items: list[Any], seen: set[str], attr: str = "url") -> tuple[list[Any], list[str]]:
    """Keep items whose URL appeared in a tool result; return ``(kept, dropped_urls)`` (citation integrity,
    design.md#grounding)."""
    allowed = {normalise_url(u) for u in seen}
    kept = [item for item in items if normalise_url(getattr(item, attr)) in allowed]
    dropped = [getattr(item, attr) for item in items if normalise_url(getattr(item, attr)) not in allowed]
    return kept, dropped


def task_mode(task: Task, modes: tuple[str, ...], what: str) -> str:
    """The task's ``payload["mode"]``, by default the first of ``modes``.

    Raises:
        ValueError: not one of ``modes`` (the message names ``what``: ``"review"``, ``"evolution"``).
    """
    mode = task.payload.get("mode", modes[0])
    if mode not in modes:
        raise ValueError(f"unknown {what} mode {mode!r} (one of {', '.join(modes)})")
    return str(mode)


def tool_names(tools: Mapping[str, Tool]) -> list[str]:
    return sorted(tools)
