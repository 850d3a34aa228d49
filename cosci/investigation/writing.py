"""From a finished investigation to a checked, reviewed paper (docs/design.md#paper): the writing stage of "The
Agentic Scientist", every call through the LLM gateway.

1. Sources (no model): evidence rows and run facts, references from the seeded session hypotheses, figures from
   the evidence (:mod:`.paper_sources`, :mod:`.paper_figures`).
2. The author plans the paper (``record_paper_plan``: thesis, rows to lead with, figures, the references it will
   cite, each checked against the sources), then writes it (``record_paper``) as sentences citing ``[E1]``/``[F1]``,
   ``[@key]``, ``[fig:ID]``.
3. Rounds, at most ``paper.max_rounds``: render the LaTeX, run the checks (:mod:`.paper_checks`, compile), and the
   auditor reads the paper blind to the checks' verdicts; a failing round goes back to the author with the failing
   items and the audit's problems (the page limit is read from the built PDF). The last round's checks stand:
   the paper's first lines say which passed and which round ended it; claims still untraced are marked in the
   text, never kept silently.
4. References after the draft: the paper's bibliography is the references its final text cites
   (``references.bib`` keeps every verified one); which were cited is recorded. Then ``paper.reviewers`` reviewers
   (told nothing of the checks) and the area chair.

Every finished call's record is kept under ``paper/calls/`` keyed by what was asked (:func:`.paper_folder.call_key`):
the pipeline is a function of the answers, so a killed write resumed asks the same questions and replays them.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any, TypeVar

from cosci.investigation.paper_checks import Check, Claim, check_citations, check_claims, check_figures, check_length
from cosci.investigation.paper_figures import Figure
from cosci.investigation.paper_folder import PaperFolder, call_key
from cosci.investigation.paper_latex import check_pages, compile_pdf, render
from cosci.investigation.paper_records import (
    RUBRIC,
    RecordAudit,
    RecordChairReview,
    RecordPaper,
    RecordPaperPlan,
    RecordPaperReview,
)
from cosci.investigation.paper_sources import Reference
from cosci.llm.errors import StructuredOutputError
from cosci.llm.port.structured import call_record
from cosci.llm.port.types import CallSpec, LLMPort, Route, TextBlock
from cosci.prompts import render as render_prompt
from cosci.records import Record
from cosci.safety.quoting import quote_untrusted

R = TypeVar("R", bound=Record)


class PaperRecordError(StructuredOutputError):
    """An agent gave no valid record within its mode's iterations."""


@dataclass
class Sources:
    """What the paper may state: rows and facts ``{label: text}``, references, the figure manifest."""

    task_name: str
    question: str
    metric: str
    direction: str
    rows: dict[str, str]
    facts: dict[str, str]
    references: list[Reference]
    figures: list[Figure]

    @property
    def citable(self) -> dict[str, str]:
        return {**self.rows, **self.facts}


@dataclass
class Round:
    number: int
    checks: list[Check]
    claims: list[Claim]
    audit: list[str] = field(default_factory=list)

    @property
    def passed(self) -> bool:
        return not any(c.status == "fail" for c in self.checks)

    def failures(self) -> list[str]:
        return [f"[{c.name}] {f}" for c in self.checks if c.status == "fail" for f in c.failures]


def paper_text(paper: RecordPaper) -> str:
    """The paper as the auditor, the repair and the reviewers read it (sentences with their citation tokens)."""
    parts = [f"Title: {paper.title}", "Abstract: " + " ".join(paper.abstract)]
    parts += [f"## {s.heading}\n" + " ".join(s.sentences) for s in paper.sections]
    return "\n\n".join(parts)


def status_lines(last: Round, max_rounds: int) -> list[str]:
    """The paper's first lines: which checks passed and which round ended the loop."""
    skipped = [c.name for c in last.checks if c.status == "skipped"]
    head = (f"cosci checks: PASSED in round {last.number}" + (f" (every check that ran; not run: "
                                                              f"{', '.join(skipped)})" if skipped else "")
            if last.passed else f"cosci checks: FAILING at the round limit (round {last.number} of {max_rounds})")
    lines = [head + ". " + "; ".join(f"{c.name}: {c.status}" for c in last.checks) + "."]
    lines += [f"{c.name}: {c.failures[0]}" for c in last.checks if c.status == "skipped" and c.failures]
    untraced = sum(1 for c in last.claims if c.status == "untraced")
    if untraced:
        lines.append(f"{untraced} claim(s) are not traced to the evidence and are marked in the text.")
    return lines


def reviews_markdown(reviews: list[RecordPaperReview], chair: RecordChairReview) -> str:
    """``reviews/reviews.md``: each review's scores on the rubric, strengths and weaknesses, then the area chair."""
    lines = ["# Reviews", "", "| reviewer | soundness | presentation | contribution | overall | confidence |",
             "|---|---|---|---|---|---|"]
    lines += [f"| {i} | {r.soundness}/4 | {r.presentation}/4 | {r.contribution}/4 | {r.overall}/10 | "
              f"{r.confidence}/5 |" for i, r in enumerate(reviews, 1)]
    for i, r in enumerate(reviews, 1):
        lines += ["", f"## Reviewer {i}", "", r.summary, "", "Strengths:"] + [f"- {x}" for x in r.strengths]
        lines += ["", "Weaknesses:"] + [f"- {x}" for x in r.weaknesses]
    lines += ["", f"## Area chair: {chair.decision} ({chair.overall}/10)", "", chair.summary]
    return "\n".join(lines) + "\n"


class Writer:
    """Writes one paper into ``folder`` (module docstring)."""

    def __init__(self, port: LLMPort, routes: dict[str, Route], folder: PaperFolder, sources: Sources,
                 max_rounds: int, max_words: int, reviewers: int, max_pages: int = 8) -> None:
        self.port, self.routes, self.folder, self.src = port, routes, folder, sources
        self.max_rounds, self.max_words, self.reviewers, self.max_pages = max_rounds, max_words, reviewers, max_pages

    async def _ask(self, agent: str, action: str, prompt: str, record: type[R]) -> R:
        """One record from ``agent``, replayed from ``paper/calls/`` when this exact question was answered before;
        an invalid answer goes back with its reason while the mode's iterations last.

        Raises:
            PaperRecordError: no valid record after ``max_iterations`` answers.
        """
        route = self.routes[agent]
        system = [TextBlock(render_prompt("_safety_preamble"), cache=True),
                  TextBlock(render_prompt("_paper_role", agent=agent, task_name=self.src.task_name), cache=True)]
        messages: list[dict[str, Any]] = [{"role": "user", "content": prompt}]
        reason = "no answer"
        for attempt in range(1, route.max_iterations + 1):
            key = call_key(agent, action, attempt, [b.text for b in system], messages, record.tool_name, route.model)
            kept = self.folder.cached(key)
            if kept is None:
                spec = CallSpec(route=route, action=f"{action}/{attempt}", system=system, messages=list(messages),
                                task_id=f"paper:{action}")
                try:
                    rec, _ = await call_record(self.port, spec, record)
                    kept = {"record": rec.model_dump()}
                except StructuredOutputError as exc:
                    kept = {"invalid": str(exc)}
                self.folder.keep(key, kept)
            if "record" in kept:
                return record.model_validate(kept["record"])
            reason = kept["invalid"]
            messages.append({"role": "user", "content": f"Your {record.tool_name} call was invalid: {reason}. "
                                                        f"Call {record.tool_name} again."})
        raise PaperRecordError(f"{agent}: no valid {record.tool_name} ({reason})", tool=record.tool_name)

    def _lists(self) -> dict[str, Any]:
        return {"rows": [{"label": k, "text": v} for k, v in self.src.rows.items()],
                "facts": [{"label": k, "text": v} for k, v in self.src.facts.items()],
                "references": quote_untrusted("\n".join(f"- {r.key}: {r.title}" for r in self.src.references),
                                              "references") if self.src.references else "(none: cite no reference)",
                "figures": [{"id": f.id, "caption": f.caption} for f in self.src.figures],
                "max_words": self.max_words}

    def check(self, paper: RecordPaper, n: int) -> Round:
        """Render round ``n``'s LaTeX into ``paper.tex`` and run every deterministic check on it."""
        tex = render(paper, self.src.citable, self.src.figures, self.src.references,
                     [f"cosci checks: round {n} being checked"])
        path = self.folder.write_text("paper.tex", tex)
        claims, claims_check = check_claims(paper, self.src.citable)
        checks = [claims_check, check_citations(tex, {r.key for r in self.src.references}),
                  check_figures(tex, {f.id: f.file for f in self.src.figures}, self.folder.figures_dir),
                  check_length(paper, self.max_words), compile_pdf(path)]
        pdf = path.with_suffix(".pdf")
        checks.append(check_pages(pdf, self.max_pages) if checks[-1].status == "pass" else
                      Check("pages", "skipped", [f"not counted: the compile check {checks[-1].status}"]))
        return Round(n, checks, claims)

    async def plan(self, lists: dict[str, Any]) -> RecordPaperPlan:
        """The author's plan before the draft (thesis, rows to lead with, figures, references: reference planning),
        with every row label, figure id and reference key the sources lack dropped and recorded (``plan.json``)."""
        asked = {k: v for k, v in lists.items() if k != "max_words"}
        plan = await self._ask("author", "Plan", render_prompt(
            "paper.plan", question=self.src.question, metric=self.src.metric, direction=self.src.direction,
            **asked), RecordPaperPlan)
        keys, figures = {r.key for r in self.src.references}, {f.id for f in self.src.figures}
        dropped = ([f"row {x}" for x in plan.emphasis if x not in self.src.citable]
                   + [f"figure {x}" for x in plan.figures if x not in figures]
                   + [f"reference {r.key}" for r in plan.references if r.key not in keys])
        kept = plan.model_copy(update={"emphasis": [x for x in plan.emphasis if x in self.src.citable],
                                       "figures": [x for x in plan.figures if x in figures],
                                       "references": [r for r in plan.references if r.key in keys]})
        self.folder.write_json("plan.json", {"plan": kept.model_dump(), "dropped": dropped})
        self.folder.stage("plan", references=[r.key for r in kept.references], dropped=dropped)
        return kept

    async def rounds(self) -> tuple[RecordPaper, Round]:
        """Plan, write, then check / audit / repair until the checks pass or ``max_rounds`` is reached."""
        lists = self._lists()
        plan = await self.plan(lists)
        paper = await self._ask("author", "Write", render_prompt(
            "paper.write", question=self.src.question, metric=self.src.metric, direction=self.src.direction,
            plan=plan, **lists), RecordPaper)
        self.folder.stage("draft", title=paper.title)
        for n in range(1, self.max_rounds + 1):
            result = self.check(paper, n)
            quoted = quote_untrusted(paper_text(paper), "paper")
            audit = await self._ask("auditor", f"Audit{n}", render_prompt(
                "paper.audit", paper=quoted, rows=lists["rows"], facts=lists["facts"]), RecordAudit)
            result.audit = audit.problems
            self.folder.append("audits.jsonl", {"round": n, "problems": audit.problems})
            self.folder.stage("round", round=n, passed=result.passed, failures=result.failures(),
                              checks=[c.to_dict() for c in result.checks])
            if result.passed or n == self.max_rounds:
                return paper, result
            paper = await self._ask("author", f"Repair{n}", render_prompt(
                "paper.repair", paper=quoted, failures=result.failures(), problems=audit.problems, round=n,
                **lists), RecordPaper)
        raise AssertionError("unreachable: max_rounds >= 1")

    def finish(self, paper: RecordPaper, last: Round) -> list[str]:
        """The final ``paper.tex`` (status first, untraced claims marked), its PDF when an engine is installed,
        ``claims_grounding.json``, ``checks.json``; returns the status lines."""
        status = status_lines(last, self.max_rounds)
        untraced = {c.sentence for c in last.claims if c.status == "untraced"}
        cited = {k for c in last.claims for k in c.citations}
        self.folder.stage("references", cited=sorted(cited), uncited=[r.key for r in self.src.references
                                                                      if r.key not in cited])
        used = [r for r in self.src.references if r.key in cited]  # the bibliography lists what the text cites
        path = self.folder.write_text("paper.tex", render(paper, self.src.citable, self.src.figures, used, status,
                                                          untraced))
        final_compile = compile_pdf(path)
        refs = {r.key: r for r in self.src.references}
        self.folder.write_json("claims_grounding.json", {
            "round": last.number, "passed": last.passed,
            "statuses": {"traced": "every number and term is in the cited evidence rows",
                         "untraced": "a problem listed; marked in the paper",
                         "cited": "cites references only; their support for this sentence is unchecked",
                         "plain": "states no checkable term and cites nothing"},
            "claims": [{**c.to_dict(), "references": [refs[k].to_dict() for k in c.citations if k in refs]}
                       for c in last.claims]})
        self.folder.write_json("checks.json", {"round": last.number, "passed": last.passed,
                                               "checks": [c.to_dict() for c in last.checks],
                                               "final_compile": final_compile.to_dict()})
        self.folder.stage("final", round=last.number, passed=last.passed)
        return status

    async def reviews(self, paper: RecordPaper) -> dict[str, Any]:
        """``paper.reviewers`` independent reviews and the area chair's meta-review (``reviews/``); a reviewer file
        of an earlier write with more reviewers is removed, so ``reviews/`` holds only this write's reviews."""
        quoted = quote_untrusted(paper_text(paper), "paper")
        rubric = [{"name": k, "low": lo, "high": hi, "meaning": m} for k, (lo, hi, m) in RUBRIC.items()]
        reviews = []
        for i, stale in self.folder.reviewer_files().items():  # a rerun with fewer reviewers than before
            if i > self.reviewers:
                stale.unlink()
        for i in range(1, self.reviewers + 1):
            rev = await self._ask("reviewer", f"Review{i}", render_prompt(
                "paper.review", paper=quoted, rubric=rubric, reviewer=i), RecordPaperReview)
            self.folder.write_json(f"reviews/reviewer{i}.json", rev.model_dump())
            reviews.append(rev)
        text = "\n\n".join(f"Reviewer {i}: {json.dumps(r.model_dump())}" for i, r in enumerate(reviews, 1))
        chair = await self._ask("chair", "Chair", render_prompt(
            "paper.chair", paper=quoted, reviews=quote_untrusted(text or "(no reviews)", "reviews")),
            RecordChairReview)
        self.folder.write_json("reviews/chair.json", chair.model_dump())
        self.folder.write_text("reviews/reviews.md", reviews_markdown(reviews, chair))
        self.folder.stage("reviews", reviewers=len(reviews), decision=chair.decision)
        return {"reviews": [r.model_dump() for r in reviews], "chair": chair.model_dump()}

    async def run(self) -> dict[str, Any]:
        paper, last = await self.rounds()
        status = self.finish(paper, last)
        reviewed = await self.reviews(paper)
        out = {"passed": last.passed, "round": last.number, "status": status,
               "checks": {c.name: c.status for c in last.checks}, "reviews": reviewed}
        self.folder.write_json("status.json", out)
        return out
