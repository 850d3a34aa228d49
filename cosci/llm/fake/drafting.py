"""The scripted fake's autopilot for ``cosci investigate draft`` (docs/design.md#draft): protocol, not domain
knowledge.

- ``design`` (``record_task_design``): the brief's first requirement as the question, the others quoted in the
  method; the score metric is the first backticked name of the brief (else ``score``), minimised when the brief
  says minimise, else maximised; one rubric per requirement, each quoting it.
- ``review`` (``record_design_review``): no issue, and the design it was shown, echoed back.
- ``drafting`` (``record_task_draft``): the example task folder the prompt shows (``#### FILE path`` blocks between
  "# Example task folder" and "# End of the example"), copied file by file.
- ``alignment`` (``record_alignment``): every requirement id listed in the prompt, answered "measured".

Everything is a function of the request, so a replayed drafting gets the same answers.
"""

from __future__ import annotations

import re
from typing import Any

import yaml

from cosci.llm.fake.types import FakeCall, FakeReply

REQUIREMENT = re.compile(r"^- (R\d+): (.*)$", re.M)
FILE_BLOCK = re.compile(r"^#### FILE (\S+)\n~~~\w*\n(.*?)\n~~~$", re.M | re.S)
FIELDS = {"task.md": "task_md", "task.yaml": "task_yaml", "rubrics.yaml": "rubrics_yaml",
          "evaluate_search.py": "evaluate_search", "evaluate_final.py": "evaluate_final", "make_data.py": "make_data"}


def _requirements(call: FakeCall) -> list[tuple[str, str]]:
    listed = call.prompt.split("# The brief's requirements", 1)
    return REQUIREMENT.findall(listed[1].split("\n# ", 1)[0]) if len(listed) > 1 else []


def design(call: FakeCall) -> dict[str, Any]:
    reqs = [text for _, text in _requirements(call)] or ["the brief"]
    brief = call.prompt.split("# The brief's requirements", 1)[0]
    named = re.search(r"`([A-Za-z_][A-Za-z0-9_]{0,63})`", brief)
    metric = named.group(1) if named else "score"
    minimise = re.search(r"\bminimi[sz]", brief, re.I) is not None
    return {"title": " ".join(reqs[0].split()[:8])[:80] or "Drafted task", "question": reqs[0],
            "method": "The initial program does what the brief states: " + " ".join(reqs[1:] or reqs),
            "score_metric": metric, "direction": "minimize" if minimise else "maximize",
            "search_protocol": "The search evaluator scores the program's answer on the search data.",
            "final_protocol": "A separate final evaluator scores it on replicates drawn independently of the "
                              "search data.",
            "compute": "Seconds per run; three evaluations per research cycle.",
            "rubrics": [f"{metric} meets requirement {i}: {text}" for i, text in enumerate(reqs, 1)][:32]}


def review(call: FakeCall) -> dict[str, Any]:
    shown = call.prompt.split("# The design to review", 1)[-1]
    body = "\n".join(ln for ln in shown.splitlines()[1:] if not ln.startswith(("<untrusted_source", "</untrusted")))
    try:
        parsed = yaml.safe_load(body.split("\nCall record_design_review", 1)[0])
    except yaml.YAMLError:
        parsed = None
    return {"issues": [], "design": parsed if isinstance(parsed, dict) else design(call)}


def draft(call: FakeCall) -> dict[str, Any]:
    example = call.prompt.split("# Example task folder", 1)[-1].split("# End of the example", 1)[0]
    out: dict[str, Any] = {}
    for path, body in FILE_BLOCK.findall(example):
        if path.startswith("initial/"):
            out["program"] = body
        elif path in FIELDS:
            out[FIELDS[path]] = body
    return out


def alignment(call: FakeCall) -> dict[str, Any]:
    return {"verdicts": [{"requirement": rid, "measured": True, "where": "task.md and the evaluators",
                          "reason": "scripted fake: answered per requirement id"} for rid, _ in _requirements(call)],
            "fidelity_issues": []}


HANDLERS = {"design": ("record_task_design", design), "review": ("record_design_review", review),
            "drafting": ("record_task_draft", draft), "alignment": ("record_alignment", alignment)}


def reply(call: FakeCall) -> FakeReply | None:
    """The autopilot answer for a drafting agent's call, or None for any other agent."""
    handler = HANDLERS.get(call.agent or "")
    if handler is None:
        return None
    tool, build = handler
    return FakeReply.record(tool, **build(call))


__all__ = ["reply"]
