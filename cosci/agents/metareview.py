"""Meta-review: system feedback during the session and the final research overview (seed 000 §7).

- ``GenerateSystemFeedback`` — reviews (up to 50, 3000 characters each) and tournament rationales (up to 50,
  1500 characters each; seed 001 Phase 6) -> forced ``record_system_feedback``, stored as a
  ``system_feedback`` row and injected into later Generation and Evolution prompts.
- ``GenerateFinalResearchOverview`` — the top 10 by Elo with their reviews and rationales plus the latest
  feedback -> Markdown (no tools) citing ``[H-...]`` ids. Citations of ids that do not exist are removed. If the
  call fails or says nothing, a fallback overview is written from the record (seed 001 Phase 7).
"""

from __future__ import annotations

import logging
import re

from cosci.agents.base import BaseAgent
from cosci.agents.ranking import tournament_appendix
from cosci.domain import Hypothesis, Task, TaskResult
from cosci.errors import CosciError
from cosci.llm.structured import call_record
from cosci.prompts import render
from cosci.records import RecordSystemFeedback
from cosci.safety.quoting import quote_untrusted

log = logging.getLogger(__name__)
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


SECTIONS = ("executive summary", "main research directions", "convergence and divergence", "caveats")
"""The overview's required sections (seed 000 §7, prompt metareview.final)."""


def one_line(text: str) -> str:
    """Model-written text on one line (a title with newlines would break a Markdown heading)."""
    return " ".join(text.split())


def follows_structure(markdown: str, minimum: int = 2) -> bool:
    """Whether the overview has at least ``minimum`` of the required section headings."""
    headings = {line.lstrip("#").strip().lower() for line in markdown.splitlines() if line.lstrip().startswith("#")}
    return sum(any(h.startswith(s) for h in headings) for s in SECTIONS) >= minimum


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
                   for r in self.record.hypotheses.reviews(limit=m.max_reviews)]
        rationales = [quote_untrusted(t, f"rationale-{i}")
                      for i, t in enumerate(self.record.matches.rationales(m.max_rationales, m.rationale_chars))]
        user = render("metareview.system", objective=self.deps.plan.objective, reviews=reviews,
                      debate_rationales=rationales)
        rec, _ = await call_record(self.deps.llm, self.spec("system", task, user, feedback=False), RecordSystemFeedback)
        fid = self.record.logs.add_feedback("meta_review", "system_feedback", feedback_text(rec),
                                            payload=rec.model_dump(), key=f"task:{task.id}")
        return TaskResult("system_feedback_generated", detail={"feedback_id": fid, "reviews": len(reviews),
                                                               "rationales": len(rationales)})

    def top(self) -> list[Hypothesis]:
        ranked = self.record.hypotheses.ranked()
        others = [h for h in self.record.hypotheses.all() if h.state in ("draft", "reviewed")]
        return (ranked + others)[: self.config.metareview.overview_top_n]

    async def _final(self, task: Task) -> TaskResult:
        top = self.top()
        known = {h.id for h in self.record.hypotheses.all()}
        text, fallback, removed = "", False, list[str]()
        if top:
            try:
                text, removed = await self._overview(task, top, known)
            except CosciError as exc:
                log.warning("final overview call failed (%s); writing the fallback overview", exc)
        if not text.strip():
            text, fallback = self.fallback_overview(top), True
        elif not follows_structure(text):  # a weak model's answer: keep it, but the record carries the overview
            text, fallback = self.fallback_overview(top) + unstructured_appendix(text), True
        else:
            text = text.rstrip() + "\n\n" + self.leaderboard_appendix(top)
        text = text.rstrip() + "\n\n" + tournament_appendix(self)  # issue 13: BT with CIs, judge statistics
        self.record.sessions.update(final_overview=text)
        return TaskResult("final_overview_generated", [h.id for h in top],
                          detail={"fallback": fallback, "removed_citations": removed})

    async def _overview(self, task: Task, top: list[Hypothesis], known: set[str]) -> tuple[str, list[str]]:
        blocks = []
        for h in top:
            rationales = "\n".join(self.record.matches.rationales_for(h.id, limit=2, chars=800))
            blocks.append(f"{self.quoted(h)}\nLatest review: {self.latest_review(h)}"
                          + (f"\nRecent debate rationales:\n{quote_untrusted(rationales, 'rationales-' + h.id)}"
                             if rationales else ""))
        latest = self.record.logs.latest_system_feedback()
        user = render("metareview.final", objective=self.deps.plan.objective, preferences=self.deps.plan.preferences,
                      top_hypotheses_block="\n\n".join(blocks),
                      system_feedback=quote_untrusted(latest.text, "system-feedback") if latest else None,
                      n_hypotheses=len(known), n_matches=self.record.matches.count(), ids=[h.id for h in top])
        resp = await self.deps.llm.complete(self.spec("final", task, user, feedback=False))
        return clean_citations(resp.text, known)

    def leaderboard_appendix(self, top: list[Hypothesis]) -> str:
        """The ranked hypotheses the overview was written from, from the record (ids, Elo, matches, claim)."""
        rows = ["# Appendix: leaderboard", "",
                "| rank | hypothesis | Elo | BT score [95 % CI] | matches | strategy | claim |",
                "|---|---|---|---|---|---|---|"]
        bt = self.record.matches.bt()
        for i, h in enumerate(top, 1):
            claim = one_line(h.statement).replace("|", "/")[:200]
            score = f"{bt[h.id][0]:+.2f} [{bt[h.id][1]:+.2f}, {bt[h.id][2]:+.2f}]" if h.id in bt else "-"
            rows.append(f"| {i} | [{h.id}] | {h.elo:.0f} | {score} | {h.matches_played} | {h.strategy} | {claim} |")
        return "\n".join(rows) + "\n"

    def fallback_overview(self, top: list[Hypothesis]) -> str:
        """An overview written from the record alone (no model): the leaderboard with each hypothesis's claim."""
        row = self.record.sessions.get()
        lines = ["# Executive summary",
                 f"The final synthesis could not be generated by the model, so this overview lists the "
                 f"{len(top)} highest-ranked of {self.record.hypotheses.count()} hypotheses after "
                 f"{self.record.matches.count()} tournament matches, for the goal: {row.research_goal.strip()}",
                 "", "# Main research directions"]
        for i, h in enumerate(top, 1):
            reviews = self.record.hypotheses.reviews(h.id, limit=1)
            verdict = f" Latest review verdict: {reviews[0].verdict}." if reviews else ""
            lines += [f"## {i}. {one_line(h.title)} [{h.id}]", f"- Claim: {one_line(h.statement)}",
                      f"- Elo {h.elo:.0f} after {h.matches_played} matches; strategy {h.strategy}.{verdict}",
                      f"- First experiment: {one_line(h.anticipated_outcomes) or 'see the hypothesis mechanism.'}",
                      ""]
        lines += ["# Convergence and divergence", "Clusters of near-duplicate hypotheses are in the record "
                  "(hypotheses.dedup_cluster).", "", "# Caveats and limitations",
                  "Written from the record without a model synthesis; read the reviews before acting on any claim."]
        return "\n".join(lines) + "\n"
