"""The scripted fake's autopilot for the designed evidence (docs/design.md#evidence): protocol, not domain
knowledge.

- ``proposer`` (``record_evidence_plan``): one ablation per changed line of the diff in the prompt (a ``-`` line
  directly followed by a ``+`` line of the same file): the ``+`` line put back as the ``-`` line, at most as many as
  the prompt allows.
- ``filter`` (``record_evidence_screen``): keeps every proposal listed.

Everything is a function of the request, so a replayed run gets the same answers.
"""

from __future__ import annotations

import json
import re
from typing import Any

from cosci.llm.fake.types import FakeCall, FakeReply

MOST = re.compile(r"Propose at most (\d+) ")


def plan(call: FakeCall) -> dict[str, Any]:
    most = int(m.group(1)) if (m := MOST.search(call.prompt)) else 1
    proposals, rel, prev = [], None, None
    for line in call.prompt.splitlines():
        if line.startswith("+++ selected/"):
            rel, prev = line[len("+++ selected/"):].strip(), None
        elif line.startswith("-") and not line.startswith("---"):
            prev = line[1:]
        elif line.startswith("+") and prev is not None and rel and line[1:].strip():
            proposals.append({"kind": "ablation", "title": f"without the change to {line[1:].split('=')[0].strip()}",
                              "hypothesis": "Putting this line back as the initial program had it lowers the score.",
                              "edits": [{"file": rel, "old": line[1:], "new": prev}]})
            prev = None
        else:
            prev = None
    return {"proposals": proposals[:most] or [{"kind": "baseline", "title": "nothing to undo",
                                               "hypothesis": "The diff changed no line in place.",
                                               "edits": [{"file": "program.py", "old": "\n", "new": "\n"}]}]}


def screen(call: FakeCall) -> dict[str, Any]:
    listed = call.prompt.split("# The proposed baselines and ablations", 1)[-1]
    body = listed[listed.find("["):listed.rfind("]") + 1]
    try:
        n = len(json.loads(body))
    except ValueError:
        n = 1
    return {"verdicts": [{"proposal": i, "keep": True, "reason": "scripted fake: kept"} for i in range(1, n + 1)]}


def reply(call: FakeCall) -> FakeReply | None:
    """The autopilot answer for a designed-evidence agent's call, or None for any other agent."""
    if call.agent == "proposer":
        return FakeReply.record("record_evidence_plan", **plan(call))
    if call.agent == "filter":
        return FakeReply.record("record_evidence_screen", **screen(call))
    return None


__all__ = ["reply"]
