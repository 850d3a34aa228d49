"""The scripted fake's autopilot for ``cosci investigate``'s agents: protocol, not domain knowledge.

- ``ideation`` (forced ``record_idea``): a bundle whose rubric ids are the first ids of the catalogue printed in
  the prompt (``- id: <id> — ...``), whose title names the cycle, and which tests the first seeded hypothesis id
  in the prompt, if any.
- ``execution`` (tool loop): reads ``best/<entry>`` named in the prompt; then writes a candidate that changes one
  numeric constant it read (a line ``NAME = <number>``, chosen and scaled by a RNG seeded from the request);
  then runs the evaluation; then submits with ``record_attempt``, quoting the evaluation it saw.
- ``writer`` (forced ``record_findings``): one sentence per evidence row of the prompt, copying that row's
  numbers and citing it.

Everything is a function of the request, so a replayed cycle gets the same answers.
"""

from __future__ import annotations

import json
import random
import re
from typing import Any

from cosci.llm.fake.types import FakeCall, FakeReply

CONSTANT = re.compile(r"^(?P<name>[A-Z][A-Z0-9_]*)\s*=\s*(?P<value>[-+]?\d+(?:\.\d+)?)(?P<rest>\s*(?:#.*)?)$", re.M)
RUBRIC_LINE = re.compile(r"^- id: (\S+) — ", re.M)
SEEDED = re.compile(r"\[(H-[0-9a-f]{12})\]")
ROW = re.compile(r"^\[(E\d+)\] (.+)$", re.M)
FACTORS = (1.25, 1.5, 0.8)


def idea(call: FakeCall, rng: random.Random) -> dict[str, Any]:
    prompt = call.prompt
    ids = RUBRIC_LINE.findall(prompt)
    cycle = re.search(r"Worker (\d+), cycle (\d+)", prompt)
    where = f"worker {cycle.group(1)} cycle {cycle.group(2)}" if cycle else "this cycle"
    seeded = SEEDED.findall(prompt.split("# Seeded hypotheses", 1)[1]) if "# Seeded hypotheses" in prompt else []
    k = 1 + rng.randrange(2) if len(ids) > 1 else 1
    return {"title": f"Tune one constant ({where})",
            "hypothesis": "Changing one numeric constant of the best program moves the score; the search evaluator"
                          " will show in which direction.",
            "plan": ["Read the best program.", "Change one numeric constant.", "Evaluate the candidate.",
                     "Submit it."],
            "rubric_ids": ids[:k] or ["none"], "hypothesis_id": seeded[0] if seeded else None}


def _tool_texts(call: FakeCall) -> list[str]:
    return [str(m.get("content", "")) for m in call.messages if m.get("role") == "tool"]


def _assistant_calls(call: FakeCall) -> list[str]:
    return [tc["function"]["name"] for m in call.messages if m.get("role") == "assistant"
            for tc in m.get("tool_calls") or []]


def perturbed(source: str, rng: random.Random) -> str | None:
    """``source`` with one ``NAME = number`` line scaled by a factor drawn from ``rng`` (None: no constant)."""
    found = list(CONSTANT.finditer(source))
    if not found:
        return None
    m = rng.choice(found)
    value, factor = m.group("value"), rng.choice(FACTORS)
    if "." in value:
        new = f"{float(value) * factor:.6g}"
    else:
        new = str(max(1, round(int(value) * factor)))
        new = str(int(value) + 1) if new == value else new
    return source[:m.start("value")] + new + source[m.end("value"):]


def _body(text: str) -> str:
    """The file text inside a quoted tool result (the quoting wrapper's first and last lines dropped)."""
    lines = text.splitlines()
    if lines and lines[0].startswith("<untrusted_source"):
        lines = lines[1:-1]
    return "\n".join(lines).rstrip("\n") + "\n"


def _evaluations(call: FakeCall) -> list[dict[str, Any]]:
    """The run_evaluation results seen so far (their JSON bodies)."""
    out = []
    for text in _tool_texts(call):
        body = _body(text).strip()
        if body.startswith("{") and '"evaluations_left"' in body:
            try:
                out.append(json.loads(body))
            except ValueError:
                continue
    return out


def _pick(evaluations: list[dict[str, Any]], best: float | None, maximize: bool) -> tuple[str | None, bool]:
    """The candidate to submit and whether it beats ``best``: the best correct evaluated one, else the last."""
    good = [e for e in evaluations if e.get("correct") and isinstance(e.get("score"), int | float)]
    if not good:
        return (evaluations[-1]["candidate"] if evaluations else None), False
    top = (max if maximize else min)(good, key=lambda e: e["score"])
    beats = best is None or (top["score"] > best if maximize else top["score"] < best)
    return top["candidate"], beats


def execution(call: FakeCall, rng: random.Random, forced: str | None) -> FakeReply:
    """Read the best program; then, within the evaluation budget, write a perturbed candidate and evaluate it
    until one beats the best score stated in the prompt; submit the best one evaluated."""
    done, texts, prompt = _assistant_calls(call), _tool_texts(call), call.prompt
    written = re.findall(r"candidate (c\d+) written", "\n".join(texts))
    entry = re.search(r"read_file\(\"(best/[^\"]+)\"\)", prompt)
    best_m = re.search(r"the best program's score is\s+([-+0-9.eE]+):", prompt)
    best = float(best_m.group(1)) if best_m else None
    maximize = "(minimize)" not in prompt
    evals = _evaluations(call)
    pick, beats = _pick(evals, best, maximize)
    out_of_budget = bool(evals) and evals[-1].get("evaluations_left", 0) <= 0
    if forced or (evals and done and done[-1] == "run_evaluation" and (beats or out_of_budget)):
        last = _body(texts[-1])[:300] if texts else "no evaluation"
        return FakeReply.record("record_attempt", candidate=pick or (written[-1] if written else "c1"),
                                summary="Changed one numeric constant of the best program.",
                                conclusion=f"Scripted fake: {len(evals)} evaluation(s); the last said "
                                           f"{' '.join(last.split())[:200]}", memory="")
    if done and done[-1] == "write_candidate" and written:
        return FakeReply.record("run_evaluation", candidate=written[-1])
    sources = [_body(t) for t, name in zip(texts, done, strict=False) if name == "read_file"]
    if sources:
        new = perturbed(sources[0], rng) or sources[0] + "\n"
        path = entry.group(1).removeprefix("best/") if entry else "program.py"
        return FakeReply.record("write_candidate", path=path, content=new, base="best")
    return FakeReply.record("read_file", path=entry.group(1) if entry else "best/program.py")


def findings(call: FakeCall) -> dict[str, Any]:
    rows = ROW.findall(call.prompt)
    return {"findings": [f"{text.rstrip('.')} [{label}]." for label, text in rows[:6]]
            or ["No evidence rows were given."]}


def reply(call: FakeCall, params: dict[str, Any], rng: random.Random) -> FakeReply | None:
    """The autopilot answer for an investigation agent's call, or None for any other agent."""
    choice = params.get("tool_choice")
    forced = choice.get("function", {}).get("name") if isinstance(choice, dict) else None
    if call.agent == "ideation":
        return FakeReply.record("record_idea", **idea(call, rng))
    if call.agent == "execution":
        return execution(call, rng, forced)
    if call.agent == "writer":
        return FakeReply.record("record_findings", **findings(call))
    return None


__all__ = ["reply"]
