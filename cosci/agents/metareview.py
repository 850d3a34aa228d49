"""Meta-review: system feedback during the session and the final research overview (design.md#metareview).

- ``GenerateSystemFeedback`` — reviews (up to 50, 3000 characters each) and tournament rationales (up to 50,
  1500 characters each; design.md#metareview) -> forced ``record_system_feedback``, stored as a
  ``system_feedback`` row and injected into later Generation and Evolution prompts.
- ``GenerateFinalResearchOverview`` — the top 10 of the current standing (BT, then Elo:
  :mod:`cosci.store.standing`) with their latest verdicts, reviews, verified sources
  (``[S1]``...) and rationales plus the latest feedback -> Markdown (no tools) citing ``[H-...]`` ids. A
  hypothesis whose latest review is ``disproved`` / ``already_explained`` is offered for the caveats only.
  If the call fails or says nothing, a fallback overview is written from the store (design.md#metareview).
  The claims of the summary and the main research directions (``domain.OVERVIEW.checked``) are traced and guarded by
  :mod:`cosci.grounding.claims` (no model); the untraceable and overclaiming ones go back to the writer once
  (repair); the support check (:mod:`cosci.agents.claim_check`) then judges every claim that cites a source, and
  each claim is marked with its status word; unknown ids are removed, each direction gets its hypotheses'
  verdicts and scores from the store, and a blind, independent audit (:mod:`cosci.agents.audit`, only on a
  model other than the writer's) is appended under "Audit" and compared with the support check. The claim map,
  the support check's cost and the audit are the event ``overview_checked`` (written to ``final/claims.json``
  with the overview; ``docs/design.md#claim-statuses``).
"""

from __future__ import annotations

import asyncio
import logging
import re

from cosci import domain
from cosci.agents.audit import OverviewAuditor
from cosci.agents.base import BaseAgent
from cosci.agents.claim_check import ClaimChecker
from cosci.agents.overview import (
    OverviewMaterial,
    annotate_directions,
    latest_reviews,
    review_line,
    split_by_verdict,
)
from cosci.agents.ranking import tournament_appendix
from cosci.agents.researcher_context import researcher_appendix, researcher_block
from cosci.domain import BT_INTERVAL, BT_INTERVAL_LABEL, Hypothesis, Review, Task, TaskResult
from cosci.grounding.claims import (
    STORE_NOTE,
    Claim,
    ClaimContext,
    check_overview,
    mark_statuses,
    repair_list,
    totals,
)
from cosci.grounding.guards import Guards, load_guards
from cosci.grounding.report import NO_CLAIMS
from cosci.grounding.support import agreement
from cosci.llm.errors import CALL_FAILED, BudgetExceeded, HostUnreachable
from cosci.llm.port.structured import call_record
from cosci.prompts import render
from cosci.records import RecordSystemFeedback
from cosci.safety.classifier import warm_screen
from cosci.safety.quoting import quote_untrusted
from cosci.store.standing import bt_score_text, interval_text, standing
from cosci.text import error_line, one_line  # a title with newlines would break a Markdown heading
from cosci.tournament.judge_stats import JudgeStats, session_judge_stats

log = logging.getLogger(__name__)
BUDGET_WHY = "the budget did not cover the final writer"
"""How the fallback overview, the run's summary and ``cosci status`` say a budget refusal of the writer's call."""
CITED = re.compile(r"\[\s*(H-[\w-]+(?:\s*[,;]\s*H-[\w-]+)*)\s*\]")
"""A bracketed citation of one or more hypothesis ids: ``[H-...]``, ``[H-..., H-...]``, ``[H-...; H-...]``."""
CITED_ID = re.compile(r"H-[\w-]+")


def feedback_text(rec: RecordSystemFeedback) -> str:
    """The stored text of system feedback: the narrative, then the three lists."""
    parts = [rec.narrative.strip()]
    for label, items in (("Common weaknesses", rec.common_weaknesses), ("Common strengths", rec.common_strengths),
                         ("Suggested focus areas", rec.suggested_focus_areas)):
        if items:
            parts.append(f"{label}:\n" + "\n".join(f"- {i}" for i in items))
    return "\n\n".join(parts)


def follows_structure(markdown: str, minimum: int = 2) -> bool:
    """Whether the overview has at least ``minimum`` of the required section headings (``domain.OVERVIEW``,
    design.md#metareview, prompt metareview.final), compared case-insensitively."""
    headings = {line.lstrip("#").strip().lower() for line in markdown.splitlines() if line.lstrip().startswith("#")}
    return sum(any(h.startswith(s.lower()) for h in headings) for s in domain.OVERVIEW.all) >= minimum


def unstructured_appendix(text: str) -> str:
    """A model answer that ignored the required structure, kept verbatim as a quoted appendix."""
    quoted = "\n".join(f"> {line}" for line in text.strip().splitlines())
    return f"\n# Appendix: the model's unstructured synthesis\n\n{quoted}\n"


def clean_citations(markdown: str, known: set[str]) -> tuple[str, list[str]]:
    """Remove citations of ids not in ``known`` from ``[H-...]`` brackets (a bracket left empty goes too, a
    bracket citing several ids keeps the known ones); returns ``(text, removed ids)``."""
    removed: list[str] = []

    def keep(m: re.Match[str]) -> str:
        ids = CITED_ID.findall(m.group(1))
        kept = [i for i in ids if i in known]
        removed.extend(i for i in ids if i not in known)
        if len(kept) == len(ids):
            return m.group(0)
        return f"[{', '.join(kept)}]" if kept else ""

    return CITED.sub(keep, markdown), removed


class MetaReviewAgent(BaseAgent):
    name = "metareview"

    async def execute(self, task: Task) -> TaskResult:
        if task.action == "GenerateSystemFeedback":
            return await self._system(task)
        if task.action == "GenerateFinalResearchOverview":
            return await self._final(task)
        raise ValueError(f"metareview has no action {task.action!r}")

    async def _system(self, task: Task) -> TaskResult:
        m = self.config.metareview
        reviews = [quote_untrusted(r.brief()[: m.review_chars], f"review-{r.id}")
                   for r in self.store.hypotheses.reviews(limit=m.max_reviews)]
        rationales = [quote_untrusted(t, f"rationale-{i}")
                      for i, t in enumerate(self.store.matches.rationales(m.max_rationales, m.rationale_chars))]
        user = render("metareview.system", objective=self.deps.plan.objective, reviews=reviews,
                      debate_rationales=rationales, researcher=researcher_block(self.store))
        rec, _ = await call_record(self.deps.llm, self.spec("system", task, user, feedback=False), RecordSystemFeedback)
        fid = self.store.logs.add_feedback("meta_review", "system_feedback", feedback_text(rec),
                                            payload=rec.model_dump(), key=f"task:{task.id}")
        return TaskResult("system_feedback_generated", detail={"feedback_id": fid, "reviews": len(reviews),
                                                               "rationales": len(rationales)})

    def top(self) -> list[Hypothesis]:
        """The ``metareview.overview_top_n`` hypotheses the overview is written from, best first, in the session's
        current standing (:func:`cosci.store.standing.standing`: BT score, which holds the researcher's
        preferences, then Elo; refuted, rejected, retired and quarantined ones never), the order ``cosci status``,
        ``cosci report`` and the page show (design.md#metareview)."""
        every = {h.id: h for h in self.store.hypotheses.all()}
        return [every[hid] for hid in standing(self.store).ids(self.config.metareview.overview_top_n)]

    async def _final(self, task: Task) -> TaskResult:
        """The overview: traced and guarded claim by claim, repaired once, support-checked, marked, then audited
        blind and compared with the support check."""
        top, every = self.top(), self.store.hypotheses.all()
        known = {h.id for h in every}
        latest = latest_reviews(self.store, top)
        main, caveats = split_by_verdict(top, latest)
        material = OverviewMaterial(self.store, top, latest)
        ctx, guards = material.context(every), load_guards(self.config.metareview.overclaim_terms)
        # the judge statistics of the tournament appendix (a BT fit per fold: the overview's largest CPU cost) read
        # no text of the overview: made in a worker thread while the writer's calls are out (design.md#metareview)
        stats = asyncio.ensure_future(asyncio.to_thread(session_judge_stats, self.store))
        appendices = asyncio.ensure_future(self._warm_appendices(top, latest, stats))
        text, why = await self._written(task, top, main, caveats, material, latest, len(known))
        fallback = bool(why)
        claims = check_overview(text, ctx, guards)
        repaired = False
        if not fallback and repair_list(claims):
            text, claims, repaired = await self._repair(task, text, claims, ctx, main, material, guards)
        checking = await ClaimChecker(self, task).run(claims, ctx)
        text, removed = clean_citations(mark_statuses(text, claims), known)
        text = self._with_appendices(text, top, latest, await stats)
        skip = "no hypotheses" if not top else "" if claims else NO_CLAIMS  # nothing an audit could score
        # the overview's screen reads this text and the audit's section: its windows are checked while the audit's
        # call is out, so that screen, run with every slot empty, finds them done (design.md#supervisor)
        warm = asyncio.ensure_future(warm_screen(self.config, text, "overview"))
        audit = await OverviewAuditor(self, task).run(text, material, skip=skip)
        text = text.rstrip() + "\n\n" + clean_citations(audit.section(), known)[0]
        await asyncio.gather(appendices, warm)
        self.store.sessions.update(final_overview=text)
        agree = agreement(claims, audit.overclaims()) if audit.audit else None  # no audit, nothing to agree with
        checked = {"claims": [c.to_dict() for c in claims], **totals(claims), "repaired": repaired,
                   "fallback": fallback, "fallback_why": why, "support_check": checking.to_dict(),
                   "audit": audit.to_dict(), "agreement": agree, **material.retraction_summary()}
        self.store.logs.event("overview_checked", checked, agent=self.name)
        return TaskResult("final_overview_generated", [h.id for h in top],
                          detail={"fallback": fallback, "removed_citations": removed, "repaired": repaired,
                                  **totals(claims),
                                  "audit_score": audit.score, "audit_agreement": agree["share"] if agree else None,
                                  "caveat_ids": [h.id for h in caveats]})

    async def _warm_appendices(self, top: list[Hypothesis], latest: dict[str, Review | None],
                               stats: asyncio.Future[JudgeStats]) -> None:
        """The overview's screen reads its leaderboard and tournament appendices too (most of a bench overview's
        text), which read no text of the overview: they are checked by the offline screen (:func:`warm_screen`) as
        soon as the judge statistics are made, while the writer's calls are out. An error is dropped (the overview
        meets it)."""
        try:
            text = self.leaderboard_appendix(top, latest).rstrip() + "\n\n" + tournament_appendix(self, await stats)
        except Exception as exc:  # an optimisation only
            log.debug("the overview's appendices were not checked ahead: %s", exc)
            return
        await warm_screen(self.config, text, "overview")

    async def _written(self, task: Task, top: list[Hypothesis], main: list[Hypothesis], caveats: list[Hypothesis],
                       material: OverviewMaterial, latest: dict[str, Review | None], n: int) -> tuple[str, str]:
        """``(overview, why)``: the writer's overview and ``""``, or one written from the store and why (the call
        failed, the budget did not cover it, it said nothing, or it lacked the required sections: the weak model's
        answer is then kept as an appendix)."""
        text, why = "", "the session has no hypotheses to synthesise"
        if top:
            why = "the model returned no text"
            try:
                text = await self._overview(task, main, caveats, material, n)
            except HostUnreachable:  # every later call meets it: the session ends on its line, no fallback
                raise
            except BudgetExceeded as exc:  # a small budget: said with the amounts (design.md#tail-reserve)
                log.warning("final overview call refused by the budget (%s); writing the fallback overview", exc)
                why = f"{BUDGET_WHY} ({exc.stop_line()})"
            except CALL_FAILED as exc:  # BudgetBusy is not one: the task runner waits (design.md#budget)
                log.warning("final overview call failed (%s); writing the fallback overview", exc)
                why = f"the model call failed ({error_line(exc)})"
        if not text.strip():
            return self.fallback_overview(main, caveats, latest, material, why), why
        if not follows_structure(text):  # a weak model's answer: keep it, but the store carries the overview
            why = "the model's answer lacked the required sections (it is kept below as an appendix)"
            return self.fallback_overview(main, caveats, latest, material, why) + unstructured_appendix(text), why
        return text, ""

    def _with_appendices(self, text: str, top: list[Hypothesis], latest: dict[str, Review | None],
                         stats: JudgeStats) -> str:
        """Each direction's verdicts and scores from the store, the leaderboard and the tournament appendix (with the
        judge statistics ``stats``)."""
        text = annotate_directions(text, latest).rstrip() + "\n\n" + self.leaderboard_appendix(top, latest)
        text = text.rstrip() + "\n\n" + tournament_appendix(self, stats)  # BT with CIs, judge statistics
        for extra in (researcher_appendix(self.store, self.config.ranking.bt_prior_sd), self.since_last_session()):
            if extra:  # the researcher's ratings and results; a project's "Since the last session"
                text = text.rstrip() + "\n\n" + extra
        return text

    def since_last_session(self) -> str:
        """The overview's "Since the last session" section of a project session ("" outside a project)."""
        from cosci.agents.project_context import since_last_session

        return since_last_session(self.config, self.store)

    async def _overview(self, task: Task, main: list[Hypothesis], caveats: list[Hypothesis],
                        material: OverviewMaterial, n_hypotheses: int) -> str:
        def block(h: Hypothesis) -> str:
            rationales = "\n".join(self.store.matches.rationales_for(h.id, limit=2, chars=800))
            return material.block(h, self.quoted(h), rationales)

        latest = self.store.logs.latest_system_feedback()
        user = render("metareview.final", objective=self.deps.plan.objective, preferences=self.deps.plan.preferences,
                      top_hypotheses_block="\n\n".join(block(h) for h in main) or "(none)",
                      caveat_block="\n\n".join(block(h) for h in caveats), caveat_ids=[h.id for h in caveats],
                      source_labels=list(material.sources),
                      system_feedback=quote_untrusted(latest.text, "system-feedback") if latest else None,
                      researcher=researcher_block(self.store),
                      n_hypotheses=n_hypotheses, n_matches=self.store.matches.count(), ids=[h.id for h in main])
        resp = await self.deps.llm.complete(self.spec("final", task, user, feedback=False))
        return resp.text

    async def _repair(self, task: Task, text: str, claims: list[Claim], ctx: ClaimContext, main: list[Hypothesis],
                      material: OverviewMaterial, guards: Guards) -> tuple[str, list[Claim], bool]:
        """One repair round: the claims a script found wrong (untraceable, overclaiming) go back to the writer;
        its answer is kept only if it still has the required sections. Returns ``(text, claims, repaired)``; a
        failed call keeps the original."""
        user = render("_overview_repair", overview=text, problems=repair_list(claims), ids=[h.id for h in main],
                      source_labels=list(material.sources))
        try:
            resp = await self.deps.llm.complete(self.spec("final", task, user, action=f"{task.action}/repair",
                                                          feedback=False))
        except HostUnreachable:  # every later call meets it: the session ends on its line, no fallback
            raise
        except CALL_FAILED as exc:  # BudgetBusy is not one: the task runner waits (design.md#budget)
            log.warning("overview repair call failed (%s); marking the failing claims", exc)
            return text, claims, False
        if not resp.text.strip() or not follows_structure(resp.text):
            return text, claims, False
        return resp.text, check_overview(resp.text, ctx, guards), True

    def leaderboard_appendix(self, top: list[Hypothesis], latest: dict[str, Review | None]) -> str:
        """The ranked hypotheses the overview was written from, in :meth:`top`'s order (the standing), from the
        store (ids, BT score with its interval, named by :data:`~cosci.domain.BT_INTERVAL_LABEL`, Elo, matches,
        mode, grounding, latest review verdict and scores, claim)."""
        rows = ["# Appendix: leaderboard", "", f"BT score (logits) with its {BT_INTERVAL_LABEL}.", "",
                f"| rank | hypothesis | BT score [{BT_INTERVAL}] | Elo | matches | mode | grounding | latest review | "
                "claim |", "|---|---|---|---|---|---|---|---|---|"]
        bt = self.store.matches.bt()  # the stored Bradley–Terry fit (design.md#tournament)
        for i, h in enumerate(top, 1):
            claim = one_line(h.statement).replace("|", "/")[:200]
            score = f"{bt_score_text(bt[h.id][0])} {interval_text(bt[h.id][1], bt[h.id][2])}" if h.id in bt else "-"
            rows.append(f"| {i} | [{h.id}] | {score} | {h.elo:.0f} | {h.matches_played} | {h.mode} | "
                        f"{h.grounding} | {review_line(latest.get(h.id))} | {claim} |")
        return "\n".join(rows) + "\n"

    def fallback_overview(self, main: list[Hypothesis], caveats: list[Hypothesis], latest: dict[str, Review | None],
                          material: OverviewMaterial, why: str) -> str:
        """An overview written from the store alone (no model): its first line says so and ``why``; each main
        hypothesis's claim, with ids on every sentence and the labels of its verified sources (so the support check
        can test the claim against them); hypotheses a review disproved or found already explained only under
        caveats, marked."""
        row, heading = self.store.sessions.get(), domain.OVERVIEW
        ids = " ".join(f"[{h.id}]" for h in main[:5])
        lines = [f"> **Fallback overview**: written from the session store without a model synthesis, because "
                 f"{why}.", "",
                 f"# {heading.summary}",
                 f"{STORE_NOTE} no model synthesis; the highest-ranked hypotheses are listed below {ids}.", "",
                 f"# {heading.directions}"]
        for i, h in enumerate(main, 1):
            labels = "".join(f" [{s.label}]" for s in material.labels_of(h.id)[:2])
            lines += [f"## {i}. {one_line(h.title)} [{h.id}]", f"- Claim: {one_line(h.statement)} [{h.id}]{labels}",
                      f"- {STORE_NOTE} Elo {h.elo:.0f} after {h.matches_played} matches; mode {h.mode}"
                      f"{'' if h.grounded else f', {h.grounding_note}'}. "
                      f"Latest review verdict: {review_line(latest.get(h.id))}. [{h.id}]",
                      f"- First experiment: {one_line(h.anticipated_outcomes) or 'see the hypothesis mechanism.'}"
                      f" [{h.id}]", ""]
        lines += [f"# {heading.convergence}", "Clusters of near-duplicate hypotheses are in the session store "
                  "(hypotheses.dedup_cluster).", "", f"# {heading.caveats}",
                  f"Written from the session store without a model synthesis ({self.store.hypotheses.count()} "
                  f"hypotheses, {self.store.matches.count()} tournament matches; goal: {one_line(row.research_goal)});"
                  " read the reviews before acting on any claim."]
        lines += [f"- Not a main direction: {one_line(h.title)} [{h.id}], latest review verdict "
                  f"{review_line(latest.get(h.id))}." for h in caveats]
        return "\n".join(lines) + "\n"
