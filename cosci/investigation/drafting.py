"""From a research brief to a checked task folder (docs/design.md#draft): the first stage of "The Agentic
Scientist", every call through the LLM gateway.

1. The design agent turns the brief into an experimental design (``record_task_design``).
2. An independent reviewer (another agent, on another tier by default, in a fresh conversation) lists the
   design's issues and repairs them (``record_design_review``).
3. The drafting agent writes the task folder (``record_task_draft``); ``make_data.py`` writes the data in the
   sandbox.
4. The deterministic ``cosci investigate check`` (:func:`cosci.investigation.check.check_task`): the contract, a
   smoke test of both evaluators on the initial program, and the independence probe, which runs each evaluator
   again with the *other* phase's data visible and refuses one whose result changes (an evaluator that reads the
   hidden final data).
5. The alignment judge reads the brief's requirements and the task and answers, per requirement, whether the task
   measures it (``record_alignment``); an unanswered requirement is not measured.

A round that fails step 3, 4 or 5 goes back to the drafting agent with its failing items (repair), up to
``draft.max_rounds``; each round is recorded under ``drafting/`` in the folder.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, TypeVar

import yaml

from cosci.investigation.check import check_task
from cosci.investigation.draft_folder import DraftFolder
from cosci.investigation.draft_records import (
    RecordAlignment,
    RecordDesignReview,
    RecordTaskDesign,
    RecordTaskDraft,
    Requirement,
    TaskDesign,
    unmet,
)
from cosci.investigation.task import TaskError, load_task
from cosci.llm.errors import StructuredOutputError
from cosci.llm.port.structured import call_record
from cosci.llm.port.types import CallSpec, LLMPort, Route, TextBlock
from cosci.prompts import render
from cosci.records import Record
from cosci.safety.quoting import quote_untrusted
from cosci.sandbox import Isolation

R = TypeVar("R", bound=Record)
PASSED = "passes (contract, both evaluators on the initial program, the independence probe)"


class DraftRecordError(StructuredOutputError):
    """An agent gave no valid record within its mode's iterations."""


@dataclass
class RoundResult:
    """One drafting round: ``stage`` is where it stopped (``draft``, ``data``, ``check``, ``alignment``) or
    ``passed``; ``failures`` the failing items (one line each) sent to the next round's repair."""

    number: int
    stage: str
    failures: list[str] = field(default_factory=list)
    verdicts: list[dict[str, Any]] = field(default_factory=list)

    def to_dict(self) -> dict[str, Any]:
        return {"round": self.number, "stage": self.stage, "failures": self.failures, "verdicts": self.verdicts}


@dataclass
class Drafted:
    """The outcome: ``passed`` when the last round passed every check; ``rounds`` in order."""

    design: TaskDesign
    rounds: list[RoundResult]

    @property
    def passed(self) -> bool:
        return bool(self.rounds) and self.rounds[-1].stage == "passed"


def design_text(design: TaskDesign) -> str:
    return yaml.safe_dump(design.model_dump(), sort_keys=False, allow_unicode=True, width=110)


def files_text(files: dict[str, str]) -> str:
    """Drafted files as quoted blocks (model-written, so untrusted)."""
    return "\n".join(quote_untrusted(text, f"file:{rel}") for rel, text in files.items())


def too_long(root: Path, cap: float) -> list[str]:
    """A drafted ``task.yaml`` whose wall clocks or CPU time exceed ``cap`` seconds (``draft.max_run_seconds``),
    one line each; [] when within it or when the task does not load (the check then says why)."""
    try:
        spec = load_task(root).spec
    except TaskError:
        return []
    given = {"timeouts.program_seconds": spec.timeouts.program_seconds,
             "timeouts.evaluator_seconds": spec.timeouts.evaluator_seconds,
             "limits.cpu_seconds": spec.limits.cpu_seconds}
    return [f"task.yaml: {k} is {v:g} s, above draft.max_run_seconds ({cap:g} s: the check runs it)"
            for k, v in given.items() if v > cap]


class Drafter:
    """Runs the drafting of one brief into ``folder`` (see the module docstring)."""

    def __init__(self, port: LLMPort, routes: dict[str, Route], brief: str, requirements: list[Requirement],
                 folder: DraftFolder, isolation: Isolation, max_run_seconds: float) -> None:
        self.port, self.routes, self.folder, self.isolation = port, routes, folder, isolation
        self.max_run_seconds = max_run_seconds
        self.brief, self.requirements = quote_untrusted(brief, "research-brief"), requirements

    async def _ask(self, agent: str, action: str, prompt: str, record: type[R]) -> R:
        """One record from ``agent``; an invalid answer is sent back with its reason while the mode's
        iterations last.

        Raises:
            DraftRecordError: no valid record after ``max_iterations`` answers.
        """
        route = self.routes[agent]
        system = [TextBlock(render("_safety_preamble"), cache=True), TextBlock(render("_draft_role", agent=agent),
                                                                               cache=True)]
        messages: list[dict[str, Any]] = [{"role": "user", "content": prompt}]
        reason = "no answer"
        for attempt in range(1, route.max_iterations + 1):
            spec = CallSpec(route=route, action=f"{action}/{attempt}", system=system, messages=list(messages),
                            task_id=f"draft:{action}")
            try:
                rec, _ = await call_record(self.port, spec, record)
                return rec
            except StructuredOutputError as exc:
                reason = str(exc)
                messages.append({"role": "user", "content": f"Your {record.tool_name} call was invalid: {reason}. "
                                                            f"Call {record.tool_name} again."})
        raise DraftRecordError(f"{agent}: no valid {record.tool_name} ({reason})", tool=record.tool_name)

    async def design(self) -> TaskDesign:
        """The design agent's design, then the independent review's repair of it (both logged)."""
        first = await self._ask("design", "Design", render("draft.design", brief=self.brief,
                                                           requirements=self.requirements), RecordTaskDesign)
        proposed = TaskDesign.model_validate(first.model_dump())
        review = await self._ask("review", "Review", render(
            "draft.review", brief=self.brief, requirements=self.requirements,
            design=quote_untrusted(design_text(proposed), "design")), RecordDesignReview)
        self.folder.write_json("design.json", {"proposed": proposed.model_dump(), "issues": review.issues,
                                               "reviewed": review.design.model_dump()})
        self.folder.append({"step": "design", "issues": review.issues})
        return review.design

    async def run(self, max_rounds: int) -> Drafted:
        """Design and review once, then up to ``max_rounds`` rounds of draft -> check -> judge."""
        design = await self.design()
        rounds: list[RoundResult] = []
        previous: dict[str, str] = {}
        for n in range(1, max_rounds + 1):
            failures = rounds[-1].failures if rounds else []
            result, files = await self._round(n, design, failures, previous)
            previous = files or previous
            rounds.append(result)
            self.folder.append({"step": "round", **result.to_dict()})
            if result.stage == "passed":
                break
        return Drafted(design, rounds)

    async def _round(self, n: int, design: TaskDesign, failures: list[str],
                     previous: dict[str, str]) -> tuple[RoundResult, dict[str, str]]:
        prompt = render("draft.task", requirements=self.requirements,
                        design=quote_untrusted(design_text(design), "design"), failures=failures,
                        previous=files_text(previous) if failures else "", round=n)
        try:
            draft = await self._ask("drafting", "Draft" if n == 1 else f"Repair{n}", prompt, RecordTaskDraft)
        except DraftRecordError as exc:
            return RoundResult(n, "draft", [str(exc)]), {}
        files = self.folder.write(draft, n)
        broken = self.folder.make_data(self.isolation)
        if broken:
            return RoundResult(n, "data", broken), files
        checked = too_long(self.folder.root, self.max_run_seconds) or check_task(self.folder.root, self.isolation)
        if checked:
            return RoundResult(n, "check", checked), files
        judged = await self._ask("alignment", f"Judge{n}", render(
            "draft.judge", brief=self.brief, requirements=self.requirements, checked=PASSED,
            files=files_text(files)), RecordAlignment)
        verdicts = [v.model_dump() for v in judged.verdicts]
        missing = unmet(judged, self.requirements)
        return RoundResult(n, "alignment" if missing else "passed", missing, verdicts), files
