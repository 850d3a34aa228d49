"""The blind, independent audit of the final overview (``docs/design.md#claim-statuses``: an auditor
independent of the writer scores overclaiming).

One forced ``record_audit`` call on ``agents.metareview.modes.audit``. Its tier differs from the writer's
(``metareview.final``); when the models config maps both to the same model, the audit moves to the first tier
of ``models.degradation`` (then any tier) with another model. When there is none (``models=local``: every tier is
the embedded model) no call is made: the overview says "not audited: no independent model" and no score exists,
because a model scoring its own text is not an independent audit. The auditor is
*blind*: it reads the overview without the status marks and the cited material (hypotheses and verified
sources, quoted), never the claim map's results, so that its findings can be compared with the support check
afterwards (:func:`cosci.grounding.support.agreement`). Its answer is appended under "# Audit" and logged; it
never rewrites the overview. A failed audit (budget, provider, an invalid record from a weak model) is
``unchecked``: reported in that section, never a stopped session. One the money left cannot hold whole is tried once
in the short form (the embedded model's), noted as abridged (design.md#budget, "The short audit").
"""

from __future__ import annotations

import logging
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING, Any

from cosci.agents.overview import OverviewMaterial
from cosci.domain import Task
from cosci.grounding.claims import unmarked
from cosci.grounding.report import NO_CLAIMS, NOT_AUDITED
from cosci.llm.errors import CALL_FAILED, BudgetExceeded, HostUnreachable
from cosci.llm.port.structured import call_record
from cosci.llm.port.types import Route
from cosci.prompts import render
from cosci.records import RecordAudit
from cosci.safety.quoting import quote_untrusted

if TYPE_CHECKING:
    from cosci.agents.base import BaseAgent

log = logging.getLogger(__name__)
MAX_RECORDS, RECORD_CHARS = 16, 1500
"""Hypotheses and sources quoted for the auditor, and characters of each."""
SMALL_RECORDS, SMALL_CHARS, SMALL_OVERVIEW = 4, 400, 6000
"""The same for a schema-constrained embedded model (a 4096-token context, models.local.n_ctx), and the overview's
characters."""
ABRIDGED = (f"Abridged: the money left held only the short audit (the first {SMALL_RECORDS} hypotheses and sources"
            f" at {SMALL_CHARS} characters each, the overview's first {SMALL_OVERVIEW} characters).")
"""The note of an audit made in the short form because the whole one did not fit the money left (design.md#budget,
"The short audit")."""


@dataclass
class AuditResult:
    """The audit (or why there is none), the auditor's model and the writer's."""

    audit: RecordAudit | None
    model: str
    writer_model: str
    error: str = ""

    @property
    def score(self) -> float | None:
        return self.audit.overall_score if self.audit else None

    @property
    def independent(self) -> bool:
        """Whether the auditor's model is not the writer's."""
        return self.model != self.writer_model

    @property
    def status(self) -> str:
        """``done``; ``not audited`` when no independent model exists (no call made); ``unchecked`` when no valid
        audit was recorded (skipped, failed, invalid)."""
        if not self.independent:
            return "not audited"
        return "done" if self.audit else "unchecked"

    def overclaims(self) -> list[tuple[str, str]]:
        """The audit's ``(claim, why)`` pairs (none without an audit)."""
        return [(o.claim, o.why) for o in self.audit.overclaims] if self.audit else []

    def to_dict(self) -> dict[str, Any]:
        """For ``claims.json`` and MLflow (``audit.json``)."""
        return {"status": self.status, "model": self.model, "writer_model": self.writer_model, "error": self.error,
                **(self.audit.model_dump() if self.audit else {})}

    def section(self) -> str:
        """The "# Audit" section appended to ``overview.md``."""
        if self.error == f"skipped: {NO_CLAIMS}":
            return "\n".join(["# Audit", "", f"No audit: {NO_CLAIMS}."]) + "\n"
        if not self.independent:
            return "\n".join(["# Audit", "", f"{NOT_AUDITED[0].upper()}{NOT_AUDITED[1:]}. The models config maps "
                              f"every tier to the writer's model, {self.writer_model}, and a model scoring its own "
                              "overview is no audit. Choose a models config with a second model (see "
                              "docs/design.md#claim-statuses) to have the overview audited."]) + "\n"
        lines = ["# Audit", "", f"Independent audit by {self.model} (the overview was written by "
                 f"{self.writer_model}). It does not change the overview.{f' {self.error}' if self.audit else ''}"]
        if self.audit is None:
            return "\n".join([*lines, "", f"The audit could not be completed (unchecked): {self.error}"]) + "\n"
        a = self.audit
        lines += ["", f"Overall score: {a.overall_score:.2f} (1 = every claim supported as written)", "",
                  " ".join(a.summary.split()), "", "## Overclaims"]
        lines += [f"- [{o.severity}] \"{' '.join(o.claim.split())}\": {' '.join(o.why.split())}"
                  for o in a.overclaims] or ["- none found"]
        lines += ["", "## Missing caveats"]
        lines += [f"- {' '.join(c.split())}" for c in a.missing_caveats] or ["- none found"]
        return "\n".join(lines) + "\n"


class OverviewAuditor:
    """Runs the audit for an agent (the meta-review agent) and a task."""

    def __init__(self, agent: BaseAgent, task: Task) -> None:
        self.agent, self.task = agent, task

    def route(self) -> tuple[Route, Route]:
        """``(audit route, writer route)``, the audit moved off the writer's model where the config allows."""
        router, cfg = self.agent.deps.router, self.agent.config
        writer = router.route("metareview", "final")
        audit = router.route("metareview", "audit")
        if audit.model == writer.model:
            for tier in [*cfg.models.degradation, *cfg.models.tiers]:
                other = router.route("metareview", "audit", tier)
                if other.model != writer.model:
                    return other, writer
        return audit, writer

    def prompt(self, overview: str, material: OverviewMaterial, small: bool = False) -> str:
        """The audit prompt (the overview unmarked, the cited material; no claim-map result); ``small`` keeps it
        within an embedded model's context."""
        n, chars = (SMALL_RECORDS, SMALL_CHARS) if small else (MAX_RECORDS, RECORD_CHARS)
        records = [quote_untrusted(f"[{h.id}]\n{material.hypothesis_text(h)[:chars]}", f"hypothesis-{h.id}")
                   for h in material.hyps]
        records += [quote_untrusted(f"[{s.label}] {s.title} ({s.source_id}) {s.url}\n{s.text[:chars]}",
                                    f"source-{s.label}") for s in material.sources.values()]
        overview = unmarked(overview)
        return render("_overview_audit", objective=self.agent.deps.plan.objective,
                      overview=quote_untrusted(overview[:SMALL_OVERVIEW] if small else overview, "overview"),
                      records=records[:n])

    async def run(self, overview: str, material: OverviewMaterial, skip: str = "") -> AuditResult:
        """The audit; never raises for a failed call or an invalid answer (see module docstring). With
        ``skip`` (a reason), no call is made and the section says why."""
        route, writer = self.route()
        if skip:
            return AuditResult(None, route.model, writer.model, f"skipped: {skip}")
        if route.model == writer.model:  # no independent model: no call, no score (module docstring)
            return AuditResult(None, route.model, writer.model, NOT_AUDITED)
        note = ""
        try:
            try:
                rec = await self._call(route, overview, material, route.constrained)
            except BudgetExceeded as exc:  # the whole audit does not fit what is left: the short one, if it does
                if route.constrained or exc.scope != "session":
                    raise
                rec, note = await self._call(route, overview, material, True), ABRIDGED
        except HostUnreachable:  # every later call meets it: the session ends on its line, no fallback
            raise
        except CALL_FAILED as exc:  # BudgetBusy is not one: the task runner waits (design.md#budget)
            log.warning("overview audit failed (%s); the overview keeps a note instead", exc)
            return AuditResult(None, route.model, writer.model, f"{type(exc).__name__}: {exc}")
        return AuditResult(rec, route.model, writer.model, note)

    async def _call(self, route: Route, overview: str, material: OverviewMaterial, small: bool) -> RecordAudit:
        """One forced ``record_audit`` call on ``route`` (``small``: the short prompt)."""
        spec = self.agent.spec("audit", self.task, self.prompt(overview, material, small),
                               action=f"{self.task.action}/audit", feedback=False)
        rec, _ = await call_record(self.agent.deps.llm, replace(spec, route=route), RecordAudit)
        return rec
