"""The scripted fake's reviews, system feedback and research plan: protocol, not domain knowledge (design.md#fake).

- ``record_review``: random scores and verdict; evidence for the hypothesis's statement from the first two URLs
  the tools returned (the first quoted verbatim) and one URL no tool returned (so the unseen-evidence check has
  something to drop); in verification mode, the mechanism's sentences as the assumptions, one of them the weakest
  and a kill experiment over the hypothesis's own words; in observation mode, the article's first sentences as
  its observations.
  A full review reads the nearest prior work the request lists (``docs/design.md#prior-work``): a record whose words
  contain every content word of the hypothesis's statement already reports it (a text comparison, not a judgement),
  so the verdict is ``already_explained`` with that record quoted as evidence; otherwise the verdict is drawn, and a
  drawn ``already_explained`` cites the nearest record. Every listed record gets a ``prior_work`` item.
- ``record_system_feedback``: the review scores the prompt lists, averaged per axis (the lowest a weakness, the
  highest a strength).
- ``record_research_plan``: the goal as the objective and the stated preferences as the preferences; no
  constraints and no field (the fake cannot tell them).
"""

from __future__ import annotations

import random
import re
from collections.abc import Callable
from typing import Any

from cosci.llm.fake import words as w
from cosci.llm.fake.types import FakeCall

AXES = ("novelty", "correctness", "testability", "feasibility")
SCORES = re.compile(r"\b(" + "|".join(AXES) + r") (\d(?:\.\d+)?)")
VERDICTS = ("missing_piece", "neutral", "other_more_likely", "already_explained")
PLAUSIBILITY = ("plausible", "uncertain", "implausible")


def quoted_field(call: FakeCall, name: str) -> str:
    """A ``Name: value`` line of the first hypothesis the request quotes ("" when none)."""
    m = re.search(rf"<hypothesis_text[^>]*>.*?^{name}: (.+?)$", call.prompt, re.S | re.M)
    return m.group(1).strip() if m else ""


def sentences(text: str) -> list[str]:
    return [s.strip() for s in re.split(r"(?<=[.!?;])\s+", text) if len(s.split()) >= 2]


def review(rng: random.Random, call: FakeCall, n: int, seen: list[str], quote: Callable[[str], str]) -> dict[str, Any]:
    """``record_review`` (module docstring); ``seen``: the URLs tools returned, ``quote(url)``: a verbatim excerpt."""
    mode = call.mode if call.mode in ("full", "verification", "observation") else "full"
    statement = quoted_field(call, "Statement") or quoted_field(call, "Title") or "The hypothesis under review."
    urls = [*seen[:2], f"https://fabricated.example.org/review/{n}"]
    scores = {a: round(rng.uniform(0.2, 0.9), 2) for a in AXES}
    out: dict[str, Any] = {
        "verdict": rng.choice(VERDICTS), "mode": mode, **scores,
        "evidence": [{"claim": statement, "url": u, "excerpt": (quote(u) if i == 0 else "") or statement}
                     for i, u in enumerate(urls)],
        "notes": f"Scripted fake review: the scores are random (lowest: {min(scores, key=scores.__getitem__)}).",
    }
    if mode == "full":
        compare_prior(call, statement, out)
    if mode == "verification":
        parts = sentences(quoted_field(call, "Mechanism")) or [statement]
        out["assumptions"] = [{"assumption": s, "plausibility": PLAUSIBILITY[i % 3],
                               "rationale": f"Scripted fake: {PLAUSIBILITY[i % 3]} by position."}
                              for i, s in enumerate(parts[:3])]
        out["weakest_assumption"] = out["assumptions"][-1]["assumption"]
        named = w.content_words(statement)[:2] or ["its subject"]
        out["kill_experiment"] = f"Vary {' and '.join(named)} independently; no change in the outcome refutes it."
    if mode == "observation":
        article = w.sections(call.prompt).get("Article", "")
        found = sentences(w.TAG.sub(" ", article))[:2] or ["The article reports no result."]
        out["observations"] = [{"observation": s[:300], "explained": rng.choice(("yes", "partly", "no")),
                                "reasoning": "Scripted fake: drawn at random."} for s in found]
    return out


PRIOR = re.compile(r"^prior-work-(\d+)$")


def prior_records(call: FakeCall) -> list[tuple[str, str]]:
    """``(url, text)`` of each prior-work record the request quotes, nearest first (text: after its ``URL:`` line)."""
    out = []
    for m in w.QUOTED.finditer(call.prompt):
        if m.group(1) == "untrusted_source" and PRIOR.match(m.group(2)):
            body = m.group(3)
            url = re.search(r"^URL: (\S+)$", body, re.M)
            out.append((url.group(1) if url else "", body.split("\n", 2)[-1] if url else body))
    return [(u, t) for u, t in out if u]


def compare_prior(call: FakeCall, statement: str, out: dict[str, Any]) -> None:
    """``prior_work`` items, and the verdict and first evidence item when a record already reports the statement
    (module docstring)."""
    records = prior_records(call)
    if not records:
        return
    own = {x.lower() for x in w.content_words(statement)}
    same = [i for i, (_, text) in enumerate(records) if own and own <= {x.lower() for x in w.content_words(text)}]
    how = dict.fromkeys(same, "Scripted fake: the record contains every content word of the statement.")
    if same:
        out["verdict"] = "already_explained"
    elif out["verdict"] == "already_explained":  # a drawn verdict: it names the nearest record
        same, how = [0], {0: "Scripted fake: the verdict was drawn at random; the nearest record is named."}
    out["prior_work"] = [{"source": url, "differs": i not in same,
                          "how": how.get(i) or "Scripted fake: the record lacks "
                          + (", ".join(sorted(own - {x.lower() for x in w.content_words(text)})[:3])
                             or "the statement's wording") + "."}
                         for i, (url, text) in enumerate(records)]
    if same:
        url, text = records[same[0]]
        excerpt = " ".join(text.split()[:12])
        out["evidence"] = [{"claim": statement, "url": url, "excerpt": excerpt}, *out["evidence"]]


def system_feedback(rng: random.Random, call: FakeCall) -> dict[str, Any]:
    """``record_system_feedback`` from the review scores in the prompt (module docstring)."""
    found: dict[str, list[float]] = {a: [] for a in AXES}
    for axis, value in SCORES.findall(call.prompt):
        found[axis].append(float(value))
    means = {a: sum(v) / len(v) for a, v in found.items() if v}
    reviews = len(re.findall(r'id="review-', call.prompt))
    if not means:
        return {"common_weaknesses": [], "common_strengths": [], "suggested_focus_areas": [],
                "narrative": f"Scripted fake feedback: the prompt lists no review scores ({rng.randint(0, 999)})."}
    low, high = min(means, key=means.__getitem__), max(means, key=means.__getitem__)
    return {"common_weaknesses": [f"{low} is the lowest-scored axis (mean {means[low]:.2f})."],
            "common_strengths": [f"{high} is the highest-scored axis (mean {means[high]:.2f})."],
            "suggested_focus_areas": [f"Raise {low}."],
            "narrative": f"Across {reviews} reviews, mean scores: "
                         + ", ".join(f"{a} {m:.2f}" for a, m in means.items()) + "."}


def research_plan(call: FakeCall) -> dict[str, Any]:
    """``record_research_plan``: the ``<GOAL>`` as objective, the stated preferences' bullets as preferences."""
    goal = " ".join(w.goal_text(call).split())[:300]
    stated = call.prompt.split("preferences:", 1)[1].split("\n## ", 1)[0] if "preferences:" in call.prompt else ""
    prefs = [p.strip() for p in re.findall(r"^- (.+)$", stated, re.M)]
    return {"objective": goal or "Investigate the research goal.", "preferences": prefs, "constraints": [],
            "idea_attributes": ["novel", "testable", "specific"], "domain_hint": None}


__all__ = ["research_plan", "review", "system_feedback"]
