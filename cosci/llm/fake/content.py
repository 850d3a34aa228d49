"""The fake model's autopilot: valid, deterministic, varied answers for any agent and mode.

Everything is derived from a RNG seeded by the fake's seed and a hash of the request, so the same request
always gets the same answer (a resumed session replays identically) while different requests differ.
Tournament verdicts follow a hidden quality score per hypothesis id (with 20 % noise), so Elo ratings
converge to a real order and stability can be reached.
"""

from __future__ import annotations

import hashlib
import random
import re
from collections.abc import Callable
from typing import Any

from cosci import domain
from cosci.literature import search_order
from cosci.llm.fake import grounding as grounding
from cosci.llm.fake import investigation as fake_investigation
from cosci.llm.fake.types import FakeCall, FakeReply

DRUGS = ["metformin", "disulfiram", "itraconazole", "niclosamide", "mebendazole", "atorvastatin",
         "propranolol", "chloroquine", "auranofin", "valproate", "digoxin", "ivermectin", "clarithromycin",
         "nelfinavir", "sertraline", "thioridazine", "ribavirin", "artesunate", "celecoxib", "doxycycline",
         "tigecycline", "pyrvinium", "ketoconazole", "losartan", "bortezomib", "all-trans retinoic acid",
         "arsenic trioxide"]
TARGETS = ["mitochondrial complex I", "ALDH1A1", "hedgehog signalling", "Wnt/beta-catenin", "tubulin",
           "HMG-CoA reductase", "beta-adrenergic signalling", "autophagic flux", "thioredoxin reductase",
           "HDAC class I", "HIF-1alpha translation", "PAK1", "mitochondrial ribosomes",
           "the unfolded protein response", "serotonin transporter", "dopamine receptor D2", "eIF4E",
           "ferroptosis", "COX-2/PGE2", "MMP activity", "FLT3-ITD signalling", "BCL-2 family balance",
           "IDH2 neomorphic activity", "NPM1 export", "CXCR4 homing"]
EFFECTS = ["deplete leukemic stem cells", "restore myeloid differentiation", "sensitise blasts to cytarabine",
           "collapse oxidative phosphorylation", "block niche-dependent survival", "induce ferroptotic death",
           "reverse venetoclax resistance", "suppress clonal expansion"]
CONTEXTS = ["FLT3-mutant AML", "TP53-mutant AML", "NPM1-mutant AML", "relapsed AML", "elderly unfit patients",
            "MOLM-13 and MV4-11 cells", "primary AML blasts", "leukemic stem cells in the bone-marrow niche"]
URL = re.compile(r"https?://[^\s\"'<>)\]]+")
HYP_ID = re.compile(r"H-[0-9a-f]{12}")


def _rng(seed: int, call: FakeCall) -> random.Random:
    """Deterministic per request and task: the same action replays identically, different tasks differ."""
    return random.Random(f"{seed}:{call.task_id}:{call.request_hash()}")


def turn_of(call: FakeCall) -> int:
    """The debate turn of a call, from its action (``.../turn3``), else from the assistant turns so far."""
    m = re.search(r"turn(\d+)", call.action or "")
    return int(m.group(1)) if m else 1 + sum(1 for msg in call.messages if msg.get("role") == "assistant")


def seen_urls(call: FakeCall) -> list[str]:
    """URLs in the tool results of the conversation, in order, without duplicates."""
    urls: list[str] = []
    for m in call.messages:
        if m.get("role") == "tool":
            for u in URL.findall(str(m.get("content", ""))):
                u = u.rstrip(".,;")
                if u not in urls:
                    urls.append(u)
    return urls


def quote_from(call: FakeCall, url: str, words: int = 12) -> str:
    """A verbatim excerpt of the tool text about ``url``: the words after its ``Abstract:`` (or ``Snippet:``),
    else after the URL itself; "" when the URL is in no tool result (excerpts are checked)."""
    for m in call.messages:
        text = str(m.get("content", "")) if m.get("role") == "tool" else ""
        at = text.find(url)
        if at < 0:
            continue
        after = text[at + len(url):]
        label = re.search(r"(?:Abstract|Snippet):\s*", after[:400])
        body = after[label.end():] if label else after
        quoted = " ".join(body.split("</untrusted_source>")[0].split()[:words])
        if quoted:
            return quoted
    return ""


def quality(hid: str) -> int:
    """The hidden quality of a hypothesis id, 0-999 (tournament verdicts follow it)."""
    return int(hashlib.sha256(hid.encode()).hexdigest()[:6], 16) % 1000


def variant(seed: int, call: FakeCall) -> int:
    """A number in 1..99,999 that tells apart the answers of different requests (hypothesis variants, fabricated
    URLs), a function of the seed, task and request only, so a resumed process answers as an uninterrupted one."""
    digest = hashlib.sha256(f"{seed}:{call.task_id}:{call.request_hash()}".encode()).hexdigest()
    return int(digest[:8], 16) % 99_999 + 1


def hypothesis(rng: random.Random, call: FakeCall, n: int) -> dict[str, Any]:
    drug, target = rng.choice(DRUGS), rng.choice(TARGETS)
    effect, ctx = rng.choice(EFFECTS), rng.choice(CONTEXTS)
    # the first citation quotes its source verbatim, the second quotes it with one word or number changed
    # (misquoted), one names a paper no tool returned (unseen)
    cites = [{"url": u, "title": f"Source on {target}",
              "excerpt": (quote_from(call, u) if i == 0 else grounding.distort(quote_from(call, u)))
              or f"{target} is implicated in {ctx}."}
             for i, u in enumerate(seen_urls(call)[:2])]
    cites.append({"url": f"https://fabricated.example.org/paper/{n}", "title": "A paper the model never saw"})
    return {
        "title": f"{drug.capitalize()} against {target} in {ctx}",
        "statement": f"{drug.capitalize()} acts on {target} to {effect} in {ctx}"
                     f" (variant {n}-{rng.randint(0, 9999)}).",
        "mechanism": f"At clinically reachable concentrations, {drug} perturbs {target}; {ctx} depend on it"
                     f" more than normal haematopoietic progenitors, so the perturbation should {effect}.",
        "entities": [drug, target, ctx],
        "anticipated_outcomes": f"Reduced viability and colony formation of {ctx} at 1-10 uM {drug}.",
        "novelty_argument": f"{drug} is not used in AML and {target} has not been linked to {effect} there.",
        "citations": cites,
    }


def review(rng: random.Random, call: FakeCall, n: int) -> dict[str, Any]:
    mode = call.mode if call.mode in ("full", "verification", "observation") else "full"
    urls = [*seen_urls(call)[:2], f"https://fabricated.example.org/review/{n}"]
    out: dict[str, Any] = {
        "verdict": rng.choice(["missing_piece", "neutral", "other_more_likely", "already_explained"]),
        "mode": mode,
        "novelty": round(rng.uniform(0.2, 0.9), 2), "correctness": round(rng.uniform(0.2, 0.9), 2),
        "testability": round(rng.uniform(0.4, 0.95), 2), "feasibility": round(rng.uniform(0.3, 0.9), 2),
        "evidence": [{"claim": "The target is expressed in the relevant cells.", "url": u,
                      "excerpt": (quote_from(call, u) if i == 0 else "") or "expression was detected"}
                     for i, u in enumerate(urls)],
        "notes": "The mechanism is plausible but the concentration argument needs pharmacokinetic support.",
    }
    if mode == "verification":
        out["assumptions"] = [
            {"assumption": "The drug reaches the target at approved doses.", "plausibility": "uncertain",
             "rationale": "PK data are sparse."},
            {"assumption": "Leukemic cells depend on the target.", "plausibility": "plausible",
             "rationale": "Knock-down studies suggest so."},
            {"assumption": "Normal progenitors are spared.", "plausibility": "implausible",
             "rationale": "The pathway is ubiquitous."},
        ]
        out["weakest_assumption"] = "Normal progenitors are spared."
        out["kill_experiment"] = ("Compare IC50 in CD34+ cord-blood progenitors and AML blasts; equal IC50"
                                  " refutes it.")
    if mode == "observation":
        out["observations"] = [{"observation": "The article reports reduced colony formation.",
                                "explained": "yes",
                                "reasoning": "Target inhibition would reduce clonogenicity."}]
    return out


def system_feedback(rng: random.Random) -> dict[str, Any]:
    return {
        "common_weaknesses": ["Concentrations reachable in patients are rarely argued.",
                              "Normal-cell toxicity is ignored."],
        "common_strengths": ["Mechanisms are specific and testable in cell lines."],
        "suggested_focus_areas": ["Drugs with strong pharmacokinetic data.",
                                  "Leukemic stem-cell dependencies."],
        "narrative": "Across reviews and debates, the strongest hypotheses name a specific dependency of"
                     " leukemic cells and a concentration that is reachable in patients"
                     f" (feedback {rng.randint(0, 999)}).",
    }


def research_plan(call: FakeCall) -> dict[str, Any]:
    goal = " ".join(call.prompt.split())
    m = re.search(r"<GOAL[^>]*>(.*?)</GOAL>", call.prompt, re.S)
    goal = " ".join((m.group(1) if m else goal).split())[:300]
    return {"objective": goal or "Investigate the research goal.",
            "preferences": ["testable in vitro within weeks", "mechanistically specific"],
            "constraints": ["approved drugs only"],
            "idea_attributes": ["novel", "testable", "specific", "safe"],
            "domain_hint": "oncology"}


def verdict_text(rng: random.Random, call: FakeCall) -> str:
    ids = list(dict.fromkeys(HYP_ID.findall(call.prompt)))[:2]
    better = 1 if len(ids) < 2 or quality(ids[0]) >= quality(ids[1]) else 2
    if rng.random() < 0.2:
        better = 3 - better
    return (f"Hypothesis {better} names a more specific dependency and a more feasible first experiment; the"
            f" other relies on an untested concentration argument.\nbetter idea: {better}")


def overview(call: FakeCall) -> str:
    ids = list(dict.fromkeys(HYP_ID.findall(call.prompt)))
    if (call.action or "").endswith("/repair"):  # drop the lines citing ids the repair request does not allow
        allowed = re.search(r"cite existing hypothesis ids \(([^)]*)\)", call.prompt)
        keep = set(HYP_ID.findall(allowed.group(1))) if allowed else set()
        before = call.prompt.split("Your overview:", 1)[-1].strip()
        return "\n".join(line for line in before.splitlines() if set(HYP_ID.findall(line)) <= keep) + "\n"
    cited = " ".join(f"[{h}]" for h in ids[:3]) or "(no hypotheses)"
    # a direction quotes the first verified source listed under its hypothesis, citing its label
    sources = {m.group(1): (m.group(2), m.group(3).strip()) for m in re.finditer(
        r'id="sources-(H-[0-9a-f]{12})"[^>]*>\n\[(S\d+)\][^\n]*\nVerified excerpt: ([^\n]+)', call.prompt)}
    directions = "".join(f"## Direction {i + 1}\nClaim and first experiment from [{h}].\n"
                         + (f"- The literature reports: {sources[h][1].rstrip('.')} [{h}] [{sources[h][0]}].\n"
                            if h in sources else "")
                         for i, h in enumerate(ids[:3]))
    if ids:  # a realistic failure: one claim overclaims what its hypothesis rests on
        label = f" [{sources[ids[0]][0]}]" if ids[0] in sources else ""
        directions += f"- This conclusively proves that the approach works in every patient [{ids[0]}]{label}.\n"
    heading = domain.OVERVIEW
    return (f"# {heading.summary}\nThe tournament converged on repurposing hypotheses that target metabolic"
            f" and stem-cell dependencies of AML {cited}.\n\n# {heading.directions}\n"
            + directions
            + f"\n# {heading.convergence}\nSeveral hypotheses share mitochondrial targets.\n\n"
            f"# {heading.caveats}\nGenerated by the scripted fake model; not scientific advice.\n")


SAFETY_MARKER = re.compile(r"\[fake-safety:(allow|flag|block)\]")
"""A screened text carrying ``[fake-safety:block]`` (or ``flag``) gets that verdict from the autopilot
(design.md#safety), so a whole session (``python -m cosci.run``) can choose it; scripted replies
(``FAKE.script``) win over it."""


def safety_verdict(call: FakeCall) -> dict[str, Any]:
    """The classifier's autopilot verdict: ``allow`` unless the screened text carries a marker."""
    m = SAFETY_MARKER.search(call.prompt)
    decision = m.group(1) if m else "allow"
    return {"decision": decision, "categories": [] if decision == "allow" else ["biological"],
            "rationale": f"scripted fake verdict: {decision}"}


def autopilot(call: FakeCall, params: dict[str, Any], *, seed: int, n: int, searches_per_loop: int = 1) -> FakeReply:
    """The default answer when no scripted reply matches (``cosci investigate``'s agents:
    :mod:`.investigation`)."""
    investigation = fake_investigation.reply(call, params, _rng(seed, call))
    return investigation if investigation is not None else session_autopilot(
        call, params, seed=seed, n=n, searches_per_loop=searches_per_loop)


def session_autopilot(call: FakeCall, params: dict[str, Any], *, seed: int, n: int,
                      searches_per_loop: int = 1) -> FakeReply:
    """The default answer to a session agent's call; a tool loop searches ``searches_per_loop`` times, then
    records."""
    rng = _rng(seed, call)
    choice = params.get("tool_choice")
    forced = choice.get("function", {}).get("name") if isinstance(choice, dict) else None
    if forced:
        return FakeReply.record(forced, **record_args(forced, rng, call, n))
    if call.tools:
        searches = [t for t in call.tools if not t.startswith("record_")]
        records = [t for t in call.tools if t.startswith("record_")]
        done = sum(1 for m in call.messages if m.get("role") == "assistant" and m.get("tool_calls"))
        if searches and done < searches_per_loop:
            preferred = [t for t in search_order(articles=True) if t in searches]
            tool = (preferred or searches)[0]
            return FakeReply.record(tool, query=f"{rng.choice(DRUGS)} {rng.choice(TARGETS)} leukemia")
        if records:
            return FakeReply.record(records[0], **record_args(records[0], rng, call, n))
    turn = turn_of(call)
    if call.agent == "ranking":
        if call.mode == "debate" and turn < 2:
            return FakeReply(text=f"Expert {turn}: what concentration is needed, and is the target "
                                  "essential in primary blasts? Both proposals deserve scrutiny.")
        return FakeReply(text=verdict_text(rng, call))
    if call.agent == "generation" and call.mode == "debate":
        if turn < 2:
            return FakeReply(text=f"Expert {turn}: I propose three directions: {rng.choice(DRUGS)}, "
                                  f"{rng.choice(DRUGS)} and {rng.choice(DRUGS)}. Which dependency is most"
                                  " specific?")
        statement = hypothesis(rng, call, n)["statement"]
        return FakeReply(text=f"We agree on the most specific idea.\nHYPOTHESIS: {statement}")
    if call.agent == "metareview" and call.mode == "final":
        return FakeReply(text=overview(call))
    return FakeReply(text="Acknowledged.")


def record_args(tool: str, rng: random.Random, call: FakeCall, n: int) -> dict[str, Any]:
    if tool in GROUNDING:  # the audit, a debate's citations, the support check (cosci/llm/fake/grounding.py)
        return GROUNDING[tool](rng, call, n)
    if tool == "record_hypothesis":
        return hypothesis(rng, call, n)
    if tool == "record_review":
        return review(rng, call, n)
    if tool == "record_system_feedback":
        return system_feedback(rng)
    if tool == "record_research_plan":
        return research_plan(call)
    if tool == "record_safety_verdict":
        return safety_verdict(call)
    if tool == "record_match_score":  # cosci eval's judge (design.md#eval)
        return {"score": rng.randint(0, 5), "rationale": "Scripted fake: the score is random, not a judgement."}
    if tool == "record_hypotheses":  # cosci eval's single-call baseline (design.md#eval): k hypotheses, prompt URLs
        urls = list(dict.fromkeys(u.rstrip(".,;") for u in URL.findall(call.prompt)))
        k = int(m.group(1)) if (m := re.search(r"Propose (\d+) distinct", call.prompt)) else 3
        return {"hypotheses": [{**{f: hypothesis(rng, call, n + i)[f] for f in ("title", "statement")},
                                "citations": rng.sample(urls, min(2, len(urls)))} for i in range(k)]}
    if tool == "record_check":  # `cosci check`: the protocol is to echo the values the request names
        found = re.search(r"`word` set to \"([^\"]*)\" and `number` set to (-?\d+)", call.prompt)
        return {"word": found.group(1), "number": int(found.group(2))} if found else {"word": "", "number": 0}
    return {"query": "leukemia"}


GROUNDING: dict[str, Callable[[random.Random, FakeCall, int], dict[str, Any]]] = {
    "record_audit": lambda rng, call, n: grounding.audit(rng, call),
    "record_citations": grounding.citations,
    "record_claim_checks": lambda rng, call, n: grounding.claim_checks(rng, call),
}
