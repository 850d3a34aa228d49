"""The scripted fake's autopilot for ``cosci investigate write`` (docs/design.md#paper): protocol, not domain
knowledge.

- ``author``'s plan (``record_paper_plan``): the first three rows, every figure, the first reference.
- ``author`` (``record_paper``, first draft and repairs): one Results sentence per evidence row of the prompt,
  copying the row and citing it; one sentence naming each figure of the manifest and one citing the first listed
  reference, if any.
- ``auditor`` (``record_audit``): no problem.
- ``reviewer`` (``record_paper_review``): the middle of each rubric range.
- ``chair`` (``record_chair_review``): the rounded mean of the reviewers' overall scores in the prompt; accept at
  6 or more.

Everything is a function of the request, so a replayed writing gets the same answers.
"""

from __future__ import annotations

import re
from typing import Any

from cosci.llm.fake.types import FakeCall, FakeReply

ROW = re.compile(r"^\[(E\d+)\] (.+)$", re.M)


def _listed(prompt: str, heading: str) -> list[str]:
    """The ids of the ``- id: ...`` lines under ``# <heading>``."""
    part = prompt.split(f"# {heading}", 1)
    return re.findall(r"^- ([\w:.-]+): ", part[1].split("\n# ", 1)[0], re.M) if len(part) > 1 else []


def paper(call: FakeCall) -> dict[str, Any]:
    rows = ROW.findall(call.prompt)
    results = [f"{text.rstrip('.')} [{label}]." for label, text in rows[:8]] or ["No evidence rows were given."]
    figures = [f"The evidence is plotted in [fig:{fid}]." for fid in _listed(call.prompt, "Figure manifest")]
    refs = [f"The question was raised in earlier work [@{key}]."
            for key in _listed(call.prompt, "References (cite as [@key])")[:1]]
    return {"title": "What the investigation measured",
            "abstract": ["We report what the final evaluator measured over the evidence seeds.", results[0]],
            "sections": [{"heading": "Introduction", "sentences": ["We test changes to a program with a search "
                                                                   "evaluator and confirm them with a final one.",
                                                                   *refs]},
                         {"heading": "Results", "sentences": [*results, *figures]},
                         {"heading": "Discussion", "sentences": ["The scripted fake wrote this paper; it claims "
                                                                 "nothing beyond the rows it copies."]}]}


def plan(call: FakeCall) -> dict[str, Any]:
    rows = [label for label, _ in ROW.findall(call.prompt)]
    keys = _listed(call.prompt, "References (cite as [@key])")
    return {"thesis": "What the final evaluator measured over the evidence seeds.", "emphasis": rows[:3],
            "figures": _listed(call.prompt, "Figure manifest"),
            "references": [{"key": k, "use": "where the question was raised"} for k in keys[:1]]}


def chair(call: FakeCall) -> dict[str, Any]:
    scores = [int(x) for x in re.findall(r'"overall": (\d+)', call.prompt)]
    mean = round(sum(scores) / len(scores)) if scores else 5
    return {"summary": f"Scripted fake meta-review of {len(scores)} review(s).",
            "decision": "accept" if mean >= 6 else "reject", "overall": mean}


def reply(call: FakeCall) -> FakeReply | None:
    """The autopilot answer for a writing agent's call, or None for any other agent."""
    if call.agent == "author" and (call.action or "").startswith("Plan"):
        return FakeReply.record("record_paper_plan", **plan(call))
    if call.agent == "author":
        return FakeReply.record("record_paper", **paper(call))
    if call.agent == "auditor":
        return FakeReply.record("record_audit", problems=[])
    if call.agent == "reviewer":
        return FakeReply.record("record_paper_review", summary="Scripted fake review.", strengths=["Traced rows."],
                                weaknesses=["A scripted fake wrote it."], soundness=3, presentation=3,
                                contribution=2, overall=5, confidence=2)
    if call.agent == "chair":
        return FakeReply.record("record_chair_review", **chair(call))
    return None


__all__ = ["reply"]
