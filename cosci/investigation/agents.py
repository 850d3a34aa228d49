"""The ideation and execution agents of a research cycle, through the LLM gateway (docs/design.md#investigation).

Ideation gets the context read-only in its prompt (task, rubric catalogue, the worker's best program, its recent
cycles, the published conclusions and shared memory, seeded hypotheses) and emits one idea bundle; a bundle the
contract rejects is sent back with the reason while the mode's iterations last. Execution runs the tool loop over
the cycle's workspace and ends with ``record_attempt``.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from cosci.agents.tool_loop import run_tool_loop
from cosci.investigation.records import IdeaRejected, RecordAttempt, RecordIdea, idea_record, normalise_idea
from cosci.investigation.task import Task
from cosci.investigation.workspace import CycleWorkspace, tools
from cosci.llm.errors import StructuredOutputError, ToolLoopExhausted
from cosci.llm.port.structured import call_record
from cosci.llm.port.types import CallSpec, LLMPort, Route, TextBlock
from cosci.prompts import render


def system(agent: str, task: Task) -> list[TextBlock]:
    """The safety preamble and the agent's role (both cached: they repeat on every call of the run)."""
    return [TextBlock(render("_safety_preamble"), cache=True),
            TextBlock(render("_investigation_role", agent=agent, task_name=task.name), cache=True)]


@dataclass
class IdeaOutcome:
    idea: RecordIdea | None
    rejected: str | None = None
    attempts: int = 0


async def ideate(port: LLMPort, route: Route, task: Task, prompt: str, seeded: list[str],
                 task_id: str) -> IdeaOutcome:
    """One idea bundle, normalised; after ``route.max_iterations`` rejected or invalid answers, the last reason."""
    messages: list[dict[str, Any]] = [{"role": "user", "content": prompt}]
    reason = "no answer"
    for attempt in range(1, route.max_iterations + 1):
        spec = CallSpec(route=route, action=f"Ideate/{attempt}", system=system("ideation", task),
                        messages=list(messages), task_id=task_id)
        try:
            rec, _ = await call_record(port, spec, idea_record(list(task.rubrics), seeded))
            return IdeaOutcome(normalise_idea(rec, list(task.rubrics), seeded), None, attempt)
        except (StructuredOutputError, IdeaRejected) as exc:
            reason = str(exc)
            messages.append({"role": "user", "content": f"Your idea bundle was rejected: {reason}. Call record_idea "
                                                        "again with a bundle that follows the contract."})
    return IdeaOutcome(None, reason, route.max_iterations)


@dataclass
class AttemptOutcome:
    candidate: str | None
    summary: str = ""
    conclusion: str = ""
    memory: str = ""
    note: str = ""
    tool_calls: list[str] = field(default_factory=list)


async def execute(port: LLMPort, route: Route, task: Task, idea: RecordIdea, ws: CycleWorkspace,
                  files: list[str], task_id: str, tool_timeout: float, best_score: float | None) -> AttemptOutcome:
    """The edit-evaluate-verify loop; the submitted candidate (or, without a valid ``record_attempt``, the last
    one written; None when none was)."""
    prompt = render("investigation.attempt", idea=idea, rubrics=[task.rubrics[r] for r in idea.rubric_ids],
                    entry=task.spec.entry, files=files, budget=ws.budget, metric=task.spec.score.metric,
                    direction=task.spec.score.direction, best_score=best_score)
    spec = CallSpec(route=route, action="Execute", system=system("execution", task),
                    messages=[{"role": "user", "content": prompt}], task_id=task_id)
    try:
        done = await run_tool_loop(port, spec, tools(ws), RecordAttempt, max_iters=route.max_iterations,
                                   tool_timeout=tool_timeout)
    except (ToolLoopExhausted, StructuredOutputError) as exc:
        last = ws.written()[-1] if ws.written() else None
        return AttemptOutcome(last, note=f"no valid record_attempt ({exc}); the last candidate was taken")
    rec = done.record
    if rec.candidate not in ws.written():
        last = ws.written()[-1] if ws.written() else None
        return AttemptOutcome(last, rec.summary, rec.conclusion, rec.memory,
                              note=f"record_attempt named {rec.candidate!r}, not a candidate; the last one was taken",
                              tool_calls=done.tool_calls)
    return AttemptOutcome(rec.candidate, rec.summary, rec.conclusion, rec.memory, tool_calls=done.tool_calls)


