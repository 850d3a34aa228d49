"""A mechanism asked in the indicative: "how does the virus escape the immune system?" explains how something happens
and asks for no way to make it happen (docs/design.md#safety-screen, "A mechanism asked in the indicative").

Read by :meth:`cosci.safety.readings.Readings.asks_why` as its why-questions are: the rule for a window naming no agent
does not act on one, and with an agent and no harmful step neither does the agent rule; a term hit still does.
"""

from __future__ import annotations

import re

_ACTOR = (r"(?:i|we|you|one|some(?:one|body)|any(?:one|body)|they|he|she|people|persons?|terrorists?|attackers?|"
          r"hackers?|groups?|states?|armies|militar\w*|criminals?|cults?|actors?|[a-z]+ists)\b")
_HOW_SAID = re.compile(rf"\bhow (?:does|do|did) (?:(?!{_ACTOR})[^\s?]+ ){{1,6}}?(?:spread|transmit|circulat|travel|mov|"
                       r"pass|jump|infect|invad|enter|escap|surviv|persist|replicat|damag|suppress|tolerat|resist|"
                       r"acquir|emerg|evolv|adapt|mutat)(?:e|es|ed|ing|s|ted|ting|led|ling)?(?!\S)")
"""English do-support: a verb of spread, infection or persistence after a subject that is no asker or actor ("how do
I", "how does one", "how do attackers spread it" ask for a way); no passive ("how is it assembled?" asks for a method,
a harmful tuning row). The clause ends as a question."""
_HOW_EMBEDDED = re.compile(rf"\b(?:understand\w*|know|learn\w*|stud(?:y|ies|ying)|explain\w*|describ\w*|investigat\w*|"
                           r"determin\w*|find out|examin\w*|assess\w*|map|mapping|model|modell?ing|trac\w*) how "
                           rf"(?:(?!{_ACTOR}|to\b)[^\s?,;]+ ){{1,6}}?(?:spread|transmitt|circulat|travel|mov|pass|jump|"
                           r"infect|invad|enter|escap|surviv|persist|replicat|evolv|adapt|mutat)(?:es|ed|s)(?!\S)")
"""The same mechanism as an embedded question after a verb of knowing ("we want to understand how Nipah virus passes
from bats to people", refused by the agent rule at 0.885): the verb inflected for its subject (third person or past),
so "understand how to make it pass" is no such question; read without a question mark."""
_HOW_GLOSSED = re.compile(r"\bhow (?:to )?(?:(?!(?:so|that|in order|zeby|zebys|aby|abys|чтобы|щоб)\b)[^\s?,;]+ ){0,6}?"
                          r"(?:circulates|escapes|survives|invades|infects|persists)(?![^\s,;.?!\u061f\u0964])")
"""A glossed how before an intransitive verb of spreading or an escape in the third person ("circulates": Russian
"распространяется", Hindi "फैलता", Bengali "ছড়ায়"; Persian "فرار می کند" "escapes"): the gloss already says it is
an event, so the clause may end without its question mark, as verb-final languages write it, and the "how to" a
glossed how becomes is no request before it ("how to корь circulates"). Between them no comma or purpose conjunction:
Polish "jak sprawić, żeby wirus ... przenosił się" (how to make it so that the virus spreads) asks for the spread, and
its past form is glossed "circulates" too; Arabic "كيف أجعل الفيروس ينتشر" writes the spread after a causative in the
same form as the question's, so Arabic is not read."""
_CAUSED = re.compile(r"\b(?:makes?|made|making|gets?|got|causes?|lets?|helps?|forc\w*|render\w*|enabl\w*|allow\w*|"
                     r"ensur\w*|sure|engineer\w*|modif\w*|increas\w*|enhanc\w*|boost\w*|faster|further|more|most|best|widest|"
                     r"maximi\w*|optimi\w*|releas\w*|deliberately|intentionally|on purpose)\b")
"""Anywhere in the clause, what makes the spread something done: made, ensured, raised, released, or asked at its
most ("how does it spread fastest", "most widely")."""


_HOSTS = (r"(?:people|persons|humans|patients|children|kids|adults|infants|babies|farmers|workers|hunters|"
          r"travell?ers|nurses|doctors|health ?care workers|veterinarians|vets|animals|cattle|cows|sheep|goats|pigs|"
          r"horses|dogs|cats|birds|poultry|chickens|livestock|wildlife|bats|rodents|mice|rats)")
_HOW_CAUGHT = re.compile(rf"\bhow (?:do|does|did|can|could|might|would) (?:(?:the|most|many|some|young|older) ){{0,2}}"
                         rf"{_HOSTS} (?:get|catch|contract|acquire|pick up|become|are|were)(?!\S)"
                         r"(?P<rest>(?: [^\s?]+){0,6})\s*\??\s*$")
"""How a host catches a disease ("how do people get plague", "how do humans get infected with Nipah virus"): the
subject is who is infected, not who acts, so the "get" :data:`_CAUSED` holds is no causing; the clause ends within
six words, with or without its question mark, and nothing after the verb is caused ("... most easily", "... on
purpose" ask for a way). A first or second person ("how do I get ...", "how can we catch ...") is as often asking
how to obtain the agent, and is not read."""


_HOW_WORD = r"(?:how|nasıl|nasil|jak|wie|como|comment)"
_HOSTS_LOCAL = r"(?:insanlar|kisiler|hastalar|lide|ludzie|menschen|personas|gens)"
_HOW_CAUGHT_GLOSSED = re.compile(
    rf"\b(?:{_HOSTS}|{_HOSTS_LOCAL})\b(?: [^\s?]+){{0,2}}? {_HOW_WORD}(?: to)?(?: [^\s?]+){{0,4}}? catch(?!\S)"
    rf"(?P<rest>(?: [^\s?]+){{0,2}})\s*\??\s*$"
    rf"|\b{_HOW_WORD}(?: to)? (?:{_HOSTS}|{_HOSTS_LOCAL}) catch(?!\S)(?P<rest2>(?: [^\s?]+){{0,4}})\s*\??\s*$"
    rf"|\b{_HOW_WORD} catch (?:\S+ )?(?:{_HOSTS}|{_HOSTS_LOCAL})\b(?P<rest3>(?: [^\s?]+){{0,4}})\s*\??\s*$")
"""How a host catches a disease as the gloss writes it (docs/design.md#safety-screen, "How a host catches a disease,
glossed"): the host first, then the how and at most four words (the disease and its particle), then "catch", the
glossed verb of catching with its case particle (Japanese "にかかる", "に感染する"; Korean "에 걸리"; Chinese
"是怎么感染"; Turkish "yakalanır"; Russian and Ukrainian "заражаются"), then at most two words to the clause's end; or
the how, the host and "catch" (Russian "как люди заражаются ..."), or the how, "catch" and the host (Spanish "cómo se
contagian las personas de ...", German "wie infizieren sich Menschen mit ..."). As in :data:`_HOW_CAUGHT`, the host
is who is infected, and nothing after the verb may be caused."""


_SECOND = re.compile(r"\b(?:and|a|i|ve|und|et|y|e|oraz) (?:how|jak|nas[iı]l|wie|comment|como|come)\b")
"""A second how joined to the first in the same clause ("jak ... přežívá a jak ji tam přidat", how it survives and
how to add it there): the clause asks for more than the mechanism, and is not read as one (twentieth stop)."""


def asks_how(part: str, ends: tuple[str, ...], hidden: re.Pattern[str]) -> bool:
    """Whether a normalised clause ``part`` asks how a mechanism happens: :data:`_HOW_SAID` ending as a question
    (``ends``), :data:`_HOW_GLOSSED` or :data:`_HOW_EMBEDDED`, nothing caused in it (:data:`_CAUSED`), and nothing
    before the how that makes it what is hidden (``hidden``: "so that no one knows how it spreads")."""
    for pattern in (_HOW_CAUGHT, _HOW_CAUGHT_GLOSSED):
        caught = pattern.search(part)
        rest = caught and "".join(v for k, v in caught.groupdict().items() if k.startswith("rest") and v)
        if caught is not None and not _CAUSED.search(rest or "") and not hidden.search(part[:caught.start()]):
            return True
    said = _HOW_SAID.search(part) if part.rstrip().endswith(ends) else None
    h = said or _HOW_GLOSSED.search(part) or _HOW_EMBEDDED.search(part)
    return h is not None and not _CAUSED.search(part) and not hidden.search(part[:h.start()]) \
        and not _SECOND.search(part, h.end())
