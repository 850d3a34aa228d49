"""The fake's autopilot for the grounding calls: debate citations, the support check and the blind audit.

It speaks the protocol, not domain knowledge, and it fails the way models do, so that flow tests see the
checks mark something: a citation quotes its record with one word or number changed (misquoted), another names
a paper no tool returned (unseen); a support verdict is drawn at random per claim (some ``contradicted`` or
``not_supported``) and rests on a sentence copied from the claim's first source; the audit flags one claim at
random. Tests of a check never rely on these answers: they script their own (``FakeBackend.script``).
"""

from __future__ import annotations

import random
import re
from typing import Any

from cosci import domain
from cosci.llm.fake.types import FakeCall

_RECORD = re.compile(r"URL: (\S+)\n(.*?)</untrusted_source>", re.S)
_CLAIM = re.compile(r"### Claim (C\d+)\n(.*?)(?=### Claim C\d+\n|## Record your verdicts)", re.S)
_EXCERPT = re.compile(r"Verified excerpt: ([^\n]+)")
_SWAPS = {"reduced": "increased", "increased": "reduced", "inhibits": "activates", "not": "also", "low": "high"}
VERDICTS = ("supported", "supported", "partially_supported", "not_supported", "contradicted")


def _words(text: str, n: int = 12) -> str:
    return " ".join(text.split()[:n])


def distort(quote: str) -> str:
    """The quote with one meaning-bearing word or number changed (a realistic misquote)."""
    words = quote.split()
    for i, w in enumerate(words):
        if w.lower() in _SWAPS:
            return " ".join([*words[:i], _SWAPS[w.lower()], *words[i + 1:]])
        if any(ch.isdigit() for ch in w):
            return " ".join([*words[:i], re.sub(r"\d", lambda m: str((int(m.group(0)) + 3) % 10), w), *words[i + 1:]])
    return " ".join([*words[:-1], "in every patient"]) if words else quote


def citations(rng: random.Random, call: FakeCall, n: int) -> dict[str, Any]:
    """``record_citations`` after a debate: the first record quoted verbatim, the second misquoted, and one
    paper no tool returned."""
    found = [(m.group(1), " ".join(m.group(2).split())) for m in _RECORD.finditer(call.prompt)]
    out = []
    for i, (url, text) in enumerate(found[:2]):
        quote = _words(text)
        out.append({"url": url, "title": "Search result", "excerpt": quote if i == 0 else distort(quote)})
    if rng.random() < 0.5:
        out.append({"url": f"https://fabricated.example.org/debate/{n}", "title": "A paper the model never saw",
                    "excerpt": "This paper shows exactly what the hypothesis says."})
    return {"citations": out}


def claim_checks(rng: random.Random, call: FakeCall) -> dict[str, Any]:
    """``record_claim_checks``: for every claim of the prompt, a random verdict resting on the first verified
    excerpt listed under it (or on nothing)."""
    out = {}
    for m in _CLAIM.finditer(call.prompt):
        excerpt = next(iter(_EXCERPT.findall(m.group(2))), "")
        verdict = rng.choice(VERDICTS)
        out[m.group(1).lower()] = {"verdict": verdict, "excerpt": "" if verdict == "not_supported" else excerpt,
                                   "why": f"Scripted fake verdict: {verdict}."}
    return out


def audit(rng: random.Random, call: FakeCall) -> dict[str, Any]:
    """``record_audit``: one sentence of the overview flagged at random, a random score."""
    heading = domain.OVERVIEW
    body = call.prompt.split(f"# {heading.directions}", 1)[-1].split(f"# {heading.convergence}", 1)[0]
    sentences = [s.strip(" -") for s in re.split(r"(?<=[.!?])\s+|\n", body) if len(s.split()) >= 5]
    flagged = [rng.choice(sentences)] if sentences else []
    return {"overclaims": [{"claim": c[:200], "why": "Scripted fake: stated more strongly than its sources.",
                            "severity": "medium"} for c in flagged],
            "missing_caveats": ["The fake model's overview is not scientific advice."],
            "overall_score": round(rng.uniform(0.3, 0.9), 2),
            "summary": f"Scripted audit: {len(flagged)} sentence(s) flagged at random."}
