"""The scripted fake's words: what a request is about, and hypotheses composed from it (design.md#fake).

The fake knows no science. What it writes comes from the request it answers:

- **the request's vocabulary** (:func:`vocabulary`): the content words of its data — the literature records tool
  results returned, the research goal, objective and background — first, then every other content word of the
  request (its instructions included);
- **the words already taken** (:func:`taken`): the words of the hypotheses the request shows (the pool's titles
  under "Already proposed", quoted hypotheses, their reviews), which a new hypothesis avoids, as the prompts ask;
- **a search query** (:func:`query`): a few content words of the hypothesis the request quotes, else of its goal,
  so a search finds what the request is about (a local corpus search then finds the goal's records);
- **a hypothesis** (:func:`compose`): :data:`WORDS_PER_HYPOTHESIS` words not taken (two from the request's data
  when it has any) strung into a title, a statement and a mechanism by linking words (stop words to an embedder)
  and one of a dozen verbs, in an order drawn by the RNG; its falsification contract (:func:`contract`) perturbs its
  first word and measures its last, with fixed thresholds (protocol words, in :data:`STOP`). Hypotheses of one
  session thus share few content words, and the offline ``hash`` embedder, whose calibrated near-duplicate threshold
  is a cosine of 0.22 (design.md#dedup), does not take them for near-duplicates of each other.

Content words are words of at least four letters, not in :data:`STOP`; an acronym or a mixed-case name keeps its
case, other words are lower-cased. Everything is a function of the request and the RNG the caller seeds from it.
"""

from __future__ import annotations

import random
import re

from cosci.llm.fake.types import FakeCall
from cosci.llm.responses import flatten_content

WORDS_PER_HYPOTHESIS = 6
"""Content words of one hypothesis, all in its title: with six words, two hypotheses that share one word are
rarely near-duplicates under the ``hash`` threshold, and the title (which the pool shows) names all of them."""
FROM_DATA = 2
"""Words of a hypothesis taken from the request's data (records, goal) when it has enough not yet taken."""
LINKS = ("through", "with", "across", "against", "between", "within", "upon", "from", "into", "onto", "toward", "via",
         "beyond", "along", "amid", "under", "over", "after", "before")
VERBS = ("alters", "raises", "lowers", "steers", "gates", "limits", "drives", "blocks", "tunes", "couples", "shifts",
         "primes")
_STOP_WORDS = """
about above across after again against all almost alone along already also although always among amid and another
any anyone anything are around aside away back because been before being below beside besides between beyond both
but call called calling calls can cannot could does doing done down during each either else enough even ever every
few first for from further given gives had has have having here how however into its itself just last later least
less like made make makes many may might more most much must near need needs never next none nor not nothing now
off often once one only onto other others otherwise ought our out over own per perhaps please rather really same
several shall should show shown since some something such than that the their them then there these they this
those though three through thus together too toward towards two under unless until upon very via want was were
what whatever when where whether which while who whole whom whose why will with within without would yet you your
tool tools record records recording recorded call turn turns hypothesis hypotheses idea ideas answer answers
field fields text texts mode modes citation citations excerpt excerpts verbatim untrusted source sources
json list string object true false null none word words line lines step steps http https
perturb perturbed unperturbed measure measured control level rises changes
"""
STOP = frozenset(_STOP_WORDS.split()) | frozenset(LINKS) | frozenset(VERBS)
"""Words that are never content words: function words, the request protocol's own words, and the words the fake
links content words with (so a text the fake wrote yields back exactly the content words it was built from)."""

WORD = re.compile(r"[A-Za-z][A-Za-z-]*[A-Za-z]")
TAG = re.compile(r"<[^<>\n]*>")
LINK_RE = re.compile(r"https?://\S+|\[[A-Z]+-?[0-9a-f]{6,}\]|\bH-[0-9a-f]{12}\b")
QUOTED = re.compile(r'<(untrusted_source|hypothesis_text) id="([^"]*)"[^>]*>\n(.*?)\n</\1>', re.S)
SECTION = re.compile(r"^#{1,3} (.+)$", re.M)
DATA_HEADINGS = ("Research goal", "Background", "Objective")
"""Prompt sections that hold the session's own data (the goal, its background survey, the objective)."""
TAKEN_QUOTES = re.compile(r"^(pool-titles|H-[0-9a-f]{12}|review-)")
"""Ids of quoted blocks whose words belong to existing hypotheses."""


def content_words(text: str) -> list[str]:
    """The content words of ``text`` (module docstring), in order of first appearance, without duplicates."""
    out: dict[str, str] = {}
    for w in WORD.findall(LINK_RE.sub(" ", TAG.sub(" ", text))):
        w = w.strip("-")
        low = w.lower()
        if len(low) >= 4 and low not in STOP and low not in out:
            out[low] = w if w.isupper() or any(c.isupper() for c in w[1:]) else low
    return list(out.values())


def sections(text: str) -> dict[str, str]:
    """Markdown sections of ``text``: heading -> body (to the next heading), the first of each heading kept."""
    marks = list(SECTION.finditer(text))
    out: dict[str, str] = {}
    for i, m in enumerate(marks):
        end = marks[i + 1].start() if i + 1 < len(marks) else len(text)
        out.setdefault(m.group(1).strip(), text[m.end():end])
    return out


def tool_texts(call: FakeCall) -> list[str]:
    return [str(m.get("content", "")) for m in call.messages if m.get("role") == "tool"]


def lead(body: str) -> str:
    """The first paragraph of a section that is not an introduction (a line ending in a colon)."""
    paras = [p.strip() for p in body.strip().split("\n\n") if p.strip()]
    return next((p for p in paras if not p.endswith(":")), "")


def goal_text(call: FakeCall, background: bool = True) -> str:
    """The goal as the request states it: ``<GOAL>``, else the lead paragraphs of its research goal and objective
    sections (with its background survey unless ``background`` is false), else its ``Objective:`` line."""
    prompt = call.prompt
    m = re.search(r"<GOAL[^>]*>(.*?)</GOAL>", prompt, re.S)
    if m:
        return m.group(1)
    parts = sections(prompt)
    found = [parts[h] if h == "Background" else lead(parts[h]) for h in DATA_HEADINGS
             if h in parts and (background or h != "Background")]
    if any(found):
        return "\n".join(found)
    m = re.search(r"^(?:- )?Objective: (.+)$", prompt, re.M)
    return m.group(1) if m else ""


def taken(call: FakeCall) -> set[str]:
    """Lower-cased content words of the hypotheses (and their reviews) the request shows."""
    out: set[str] = set()
    for m in QUOTED.finditer(call.prompt):
        if TAKEN_QUOTES.match(m.group(2)):
            out.update(w.lower() for w in content_words(m.group(3)))
    return out


def vocabulary(call: FakeCall) -> tuple[list[str], list[str]]:
    """``(data words, other words)`` of the request: the records' and goal's content words, then the other words
    of its messages (the system prompt's rules left out: they are the same in every request)."""
    data = content_words("\n".join([*tool_texts(call), goal_text(call)]))
    seen = {w.lower() for w in data}
    asked = "\n".join(flatten_content(m.get("content")) for m in call.messages if m.get("role") != "system")
    rest = [w for w in content_words(asked) if w.lower() not in seen]
    return data, rest


def query(rng: random.Random, call: FakeCall, k: int = 5) -> str:
    """A search query: up to ``k`` content words (in their order) of the first hypothesis the request quotes, else
    of its goal (its background survey left out: the question says what to search for), else of the request."""
    quoted = next((m.group(3) for m in QUOTED.finditer(call.prompt) if m.group(1) == "hypothesis_text"), "")
    title = re.search(r"^Title: (.+)$", quoted, re.M)
    words = (content_words(title.group(1) if title else quoted) or content_words(goal_text(call, background=False))
             or content_words(call.prompt))
    if len(words) > k:
        keep = sorted(rng.sample(range(len(words)), k))
        words = [words[i] for i in keep]
    return " ".join(words) or "research"


def choose(rng: random.Random, call: FakeCall, k: int = WORDS_PER_HYPOTHESIS,
           data: list[str] | None = None) -> list[str]:
    """``k`` content words for a new hypothesis: :data:`FROM_DATA` of ``data`` (default: the request's data words),
    the rest from the other words of the request, none already taken (unless the request has too few)."""
    avoid = taken(call)
    own, rest = vocabulary(call)
    data = own if data is None else data
    fresh = [w for w in data if w.lower() not in avoid]
    picked = rng.sample(fresh, min(FROM_DATA if data is own else k, len(fresh)))
    lows = {w.lower() for w in picked}
    others = [w for w in [*own, *rest] if w.lower() not in avoid and w.lower() not in lows]
    picked += rng.sample(others, min(k - len(picked), len(others)))
    if len(picked) < k:  # a tiny request: reuse its words rather than fail
        spare = [w for w in content_words(call.prompt) if w not in picked] or ["subject"]
        picked += [spare[i % len(spare)] for i in range(k - len(picked))]
    return picked


def chain(rng: random.Random, words: list[str]) -> str:
    """``words`` joined as ``w1 <verb> w2 <link> w3 <link> ...`` (verb and links drawn from ``rng``)."""
    out = [words[0]]
    for i, w in enumerate(words[1:]):
        out += [rng.choice(VERBS) if i == 0 else rng.choice(LINKS), w]
    return " ".join(out)


def sentence(rng: random.Random, words: list[str]) -> str:
    text = chain(rng, words)
    return text[:1].upper() + text[1:] + "."


def compose(rng: random.Random, words: list[str]) -> dict[str, str]:
    """A hypothesis's text fields from its content words: the title chains all of them; the statement, the
    mechanism, the outcomes and the novelty argument each use a shuffled part."""
    half = max(2, len(words) // 2 + 1)
    title = chain(rng, words)
    return {
        "title": title[:1].upper() + title[1:],
        "statement": sentence(rng, rng.sample(words, half)),
        "mechanism": " ".join(sentence(rng, rng.sample(words, 2)) for _ in range(2)),
        "anticipated_outcomes": f"If it holds, {words[0]} and {words[-1]} change together; if not, they do not.",
        "novelty_argument": f"No source in this conversation links {words[1]} with {words[-2]}.",
        **contract(words),
    }


def contract(words: list[str]) -> dict[str, str]:
    """The falsification contract over a hypothesis's own words (design.md#falsification): perturb its first word,
    measure its last; a threshold is the protocol's, not a claim about the subject."""
    first, last = words[0], words[-1]
    return {"decisive_experiment": f"Perturb {first} and measure {last} against an unperturbed control.",
            "predicted_result": f"The {last} level rises by at least 20 % when {first} is perturbed.",
            "refuting_result": f"The {last} level changes by less than 5 % when {first} is perturbed."}


def concluded(text: str) -> str:
    """The text after the last ``HYPOTHESIS`` of ``text`` (a debate's conclusion), or ""."""
    at = text.rfind("HYPOTHESIS")
    return text[at + len("HYPOTHESIS"):].split("</untrusted_source>", 1)[0].strip(" :\n") if at >= 0 else ""


__all__ = ["WORDS_PER_HYPOTHESIS", "choose", "compose", "concluded", "content_words", "goal_text", "query", "taken",
           "vocabulary"]
