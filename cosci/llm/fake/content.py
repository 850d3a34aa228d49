"""The fake model's autopilot: valid, deterministic, varied answers for any agent and mode (design.md#fake).

It speaks the protocol, not domain knowledge: each answer is a record of the shape the request asks for (or the
text format it asks for), with content taken from the request itself — its goal, the tool results it carries,
the hypotheses it quotes (:mod:`.words`, :mod:`.reviews`). Everything is derived from a RNG seeded by the fake's
seed and a hash of the request, so the same request always gets the same answer (a resumed session replays
identically) while different requests differ. Tournament verdicts follow a hidden quality score per hypothesis
id (with 20 % noise), so Elo ratings converge to a real order and stability can be reached.
"""

from __future__ import annotations

import hashlib
import random
import re
from collections.abc import Callable
from typing import Any

from cosci import domain
from cosci.literature import search_order
from cosci.llm.fake import drafting as fake_drafting
from cosci.llm.fake import evidence as fake_evidence
from cosci.llm.fake import grounding as grounding
from cosci.llm.fake import investigation as fake_investigation
from cosci.llm.fake import paper as fake_paper
from cosci.llm.fake import reviews as reviews
from cosci.llm.fake import words as words
from cosci.llm.fake.types import FakeCall, FakeReply

URL = re.compile(r"(?:https?|file)://[^\s\"'<>)\]]+")
"""A URL a tool returned: the web's, or a ``file:`` URL of a local corpus document's page (design.md#own-documents)."""
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


def quote_from(call: FakeCall, url: str, n_words: int = 12) -> str:
    """A verbatim excerpt of the tool text about ``url``: the words after its ``Abstract:`` (or ``Snippet:``),
    else after the URL itself; "" when the URL is in no tool result (excerpts are checked)."""
    for m in call.messages:
        text = str(m.get("content", "")) if m.get("role") == "tool" else ""
        at = text.find(url)
        if at < 0:
            continue
        after = text[at + len(url):]
        label = re.search(r"(?:Abstract|Snippet|Passage):\s*", after[:400])
        body = after[label.end():] if label else after
        quoted = " ".join(body.split("</untrusted_source>")[0].split()[:n_words])
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


def debate_conclusion(call: FakeCall) -> str:
    """The idea after ``HYPOTHESIS`` in the last debate turn of the request that wrote one ("" when none)."""
    turns = [m.group(3) for m in words.QUOTED.finditer(call.prompt) if m.group(2).startswith("debate-turn-")]
    return next((words.concluded(t) for t in reversed(turns) if "HYPOTHESIS" in t), "")


def hypothesis_words(rng: random.Random, call: FakeCall) -> list[str]:
    """The content words of the hypothesis to record: a debate's conclusion's when the request has one, else fresh
    words of the request (:func:`cosci.llm.fake.words.choose`)."""
    concluded = words.content_words(debate_conclusion(call))
    if len(concluded) >= words.WORDS_PER_HYPOTHESIS:
        return concluded[:words.WORDS_PER_HYPOTHESIS]
    return words.choose(rng, call)


def record_title(call: FakeCall, url: str) -> str:
    """The title of the numbered record whose ``URL:`` line is ``url`` in a tool result ("" when none)."""
    for text in words.tool_texts(call):
        m = re.search(r"^\s*\d+\. (.+)\n(?:.*\n){0,3}?\s*URL: " + re.escape(url), text, re.M)
        if m:
            return m.group(1).strip()
    return ""


def hypothesis(rng: random.Random, call: FakeCall, n: int) -> dict[str, Any]:
    """``record_hypothesis``: text composed from the request's words (:mod:`cosci.llm.fake.words`); citations of
    the first two URLs tools returned, the first quoted verbatim, the second with one word or number changed
    (misquoted), and one paper no tool returned (unseen)."""
    chosen = hypothesis_words(rng, call)
    cites = [{"url": u, "title": record_title(call, u) or "Search result",
              "excerpt": (quote_from(call, u) if i == 0 else grounding.distort(quote_from(call, u)))
              or f"{chosen[0]} is named in this source."}
             for i, u in enumerate(seen_urls(call)[:2])]
    cites.append({"url": f"https://fabricated.example.org/paper/{n}", "title": "A paper the model never saw"})
    return {**words.compose(rng, chosen), "entities": chosen[:3], "citations": cites}


def verdict_text(rng: random.Random, call: FakeCall) -> str:
    """A pairwise verdict in the requested format: the better of the first two ids by :func:`quality`, flipped
    one time in five."""
    ids = list(dict.fromkeys(HYP_ID.findall(call.prompt)))[:2]
    better = 1 if len(ids) < 2 or quality(ids[0]) >= quality(ids[1]) else 2
    if rng.random() < 0.2:
        better = 3 - better
    return (f"Scripted fake judgement: hypothesis {better} is preferred by the fake's hidden score of each id."
            f"\nbetter idea: {better}")


def overview(call: FakeCall) -> str:
    """The final overview in the requested sections, citing the hypothesis ids of the prompt (see below)."""
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
    return (f"# {heading.summary}\nThe tournament ranked the hypotheses; the leading ones are {cited}.\n\n"
            f"# {heading.directions}\n" + directions
            + f"\n# {heading.convergence}\nThe directions above name different entities.\n\n"
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
    :mod:`.investigation`; its drafting: :mod:`.drafting`; its writing: :mod:`.paper`; its designed evidence:
    :mod:`.evidence`)."""
    investigation = (fake_investigation.reply(call, params, _rng(seed, call)) or fake_drafting.reply(call)
                     or fake_paper.reply(call) or fake_evidence.reply(call))
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
            return FakeReply.record((preferred or searches)[0], query=words.query(rng, call))
        if records:
            return FakeReply.record(records[0], **record_args(records[0], rng, call, n))
    turn = turn_of(call)
    if call.agent == "ranking":
        if call.mode == "debate" and turn < 2:
            return FakeReply(text=f"Expert {turn}: which of the two is more specific, and which can be tested"
                                  " first? Both deserve scrutiny.")
        return FakeReply(text=verdict_text(rng, call))
    if call.agent == "generation" and call.mode == "debate":
        return FakeReply(text=debate_turn(rng, call, turn))
    if call.agent == "metareview" and call.mode == "final":
        return FakeReply(text=overview(call))
    return FakeReply(text="Acknowledged.")


def debate_turn(rng: random.Random, call: FakeCall, turn: int) -> str:
    """A generation debate turn: three directions of fresh words at turn 1; later, ``HYPOTHESIS`` and the words of
    one direction that no hypothesis of the prompt has taken."""
    if turn < 2:
        picks = [words.choose(rng, call) for _ in range(3)]
        return f"Expert {turn}: three directions. " + " ".join(
            f"({i + 1}) {words.sentence(rng, p)}" for i, p in enumerate(picks))
    turns = [m.group(3) for m in words.QUOTED.finditer(call.prompt) if m.group(2).startswith("debate-turn-")]
    proposed = words.content_words(turns[0]) if turns else []
    chosen = words.choose(rng, call, data=proposed) if proposed else words.choose(rng, call)
    return f"The panel agrees.\nHYPOTHESIS: {words.sentence(rng, chosen)}"


def record_args(tool: str, rng: random.Random, call: FakeCall, n: int) -> dict[str, Any]:
    if tool in GROUNDING:  # the audit, a debate's citations, the support check (cosci/llm/fake/grounding.py)
        return GROUNDING[tool](rng, call, n)
    if tool == "record_hypothesis":
        return hypothesis(rng, call, n)
    if tool == "record_review":
        return reviews.review(rng, call, n, seen_urls(call), lambda url: quote_from(call, url))
    if tool == "record_system_feedback":
        return reviews.system_feedback(rng, call)
    if tool == "record_research_plan":
        return reviews.research_plan(call)
    if tool == "record_safety_verdict":
        return safety_verdict(call)
    if tool == "record_match_score":  # cosci eval's judge (design.md#eval)
        return {"score": rng.randint(0, 5), "rationale": "Scripted fake: the score is random, not a judgement."}
    if tool == "record_hypotheses":  # cosci eval's single-call baseline (design.md#eval): k hypotheses, prompt URLs
        urls = list(dict.fromkeys(u.rstrip(".,;") for u in URL.findall(call.prompt)))
        k = int(m.group(1)) if (m := re.search(r"Propose (\d+) distinct", call.prompt)) else 3
        fields = ("title", "statement", "mechanism", "anticipated_outcomes")  # what the baseline record asks for
        return {"hypotheses": [{**{f: hypothesis(rng, call, n + i)[f] for f in fields},
                                "citations": rng.sample(urls, min(2, len(urls)))} for i in range(k)]}
    if tool == "record_check":  # `cosci check`: the protocol is to echo the values the request names
        found = re.search(r"`word` set to \"([^\"]*)\" and `number` set to (-?\d+)", call.prompt)
        return {"word": found.group(1), "number": int(found.group(2))} if found else {"word": "", "number": 0}
    return {"query": words.query(rng, call)}


GROUNDING: dict[str, Callable[[random.Random, FakeCall, int], dict[str, Any]]] = {
    "record_audit": lambda rng, call, n: grounding.audit(rng, call),
    "record_citations": grounding.citations,
    "record_claim_checks": lambda rng, call, n: grounding.claim_checks(rng, call),
}
