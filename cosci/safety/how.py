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
_HOW_GLOSSED = re.compile(r"\b(?:how|cum) (?:to )?"
                          r"(?:(?!(?:so|that|in order|zeby|zebys|aby|abys|чтобы|щоб|sa|ca)\b)[^\s?,;]+ ){0,6}?"
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
                     r"maximi\w*|optimi\w*|releas\w*|deliberately|intentionally|on purpose|causative)\b")
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


_HOW_LAST = re.compile(r"\b(?:circulates|escapes|survives|invades|infects|persists)\b"
                       r"(?: [^\s?,;]+){0,6}? how\s*\??\s*$")
"""A glossed verb of spreading or invasion in the third person with the how after it, closing the clause: Thai asks
verb-final ("เชื้อ ... เข้าสู่ร่างกาย ... ได้อย่างไร", how does the germ enter the body, glossed "... invades the body ...
how"). The gloss writes Thai's causative "ทำให้" as "causative" (:data:`_CAUSED`): "make it enter the body, how" asks for
a way (docs/design.md#safety-screen, "Nature asked how, in Romance languages and Thai")."""

_ROMANCE_ACTOR = (r"(?:(?:il|lo|la|l'|i|gli|le|el|los|las|o|os|as|a|les|un|una|uno|um|uma|des|du|de|del) ?)?"
                  r"(?:terrorist\w*|attacc\w*|atacant\w*|attaquant\w*|aggressor\w*|agresor\w*|hacker\w*|criminal\w*|"
                  r"criminel\w*|qualcuno|alguien|alguem|quelqu'un|on|si|se|io|noi|voi|tu|yo|nosotros|eu|nos|je|nous|vous|"
                  r"gruppo|grupo|groupe|stato|estado|etat|esercit\w*|ejercit\w*|armee|exercito|milit\w*|sett[ae]|secta|seita|"
                  r"secte|nemic\w*|enemig\w*|inimig\w*|ennemi\w*|persone|personas|pessoas|gens|"
                  # Romanian: someone, I, we, "să" (how to), can I
                  r"cineva|eu|noi|voi|sa|ca|pot|poti|putem|puteti|terorist\w*|atacator\w*|inamic\w*|armata|statul)\b")
_ROMANCE_VERBS = (
    # Italian
    r"diffond\w*|trasmett\w*|propaga(?:no)?|circola(?:no)?|infetta(?:no)?|invad(?:e|ono)|entra(?:no)?|sfugg(?:e|ono)|"
    r"sopravviv(?:e|ono)|persist(?:e|ono)|replica(?:no)?|danneggia(?:no)?|blocca(?:no)?|colpisc(?:e|ono)|"
    r"attacca(?:no)?|elud(?:e|ono)|resist(?:e|ono)|raggiung(?:e|ono)|provoca(?:no)?|"
    # Spanish and Portuguese
    r"propagan?|propagam|transmiten?|transmitem|difunden?|espalham?|circulan?|circulam|infectan?|infectam|infetam?|"
    r"invaden?|invadem|entran?|entram|escapan?|escapam|evaden?|evadem|sobreviven?|sobrevivem|persisten?|persistem|"
    r"replican?|replicam|danan?|danifica(?:m)?|bloquean?|bloqueiam?|atacan?|atacam|resisten?|resistem|llegan?|chegam?|"
    r"provocan?|provocam|causan?|causam|"
    # French
    r"propagent|transmet(?:tent)?|diffusent|circulent|infectent|envahi(?:t|ssent)|entrent|echappent|survi(?:t|vent)|"
    r"persistent|repliquent|endommagent|bloquent|attaquent|resistent|atteign\w*|atteint|provoquent|causent|"
    # Romanian (twenty-third stop, safety43l: "Cum trece virusul West Nile în sistemul nervos?" was refused at 0.98)
    r"trece|ajunge|intra|patrunde|raspandeste|transmite|infecteaza|invadeaza|supravietuieste|persista|scapa|ataca|"
    r"afecteaza|provoaca|cauzeaza|circula|distruge|blocheaza|rezista|evita|ocoleste")
_ROMANCE_CAUSED = re.compile(r"\b(?:fa(?:re|r|ccio|cciamo)|hac(?:er|erlo|erla)|hago|faz(?:er|e-lo|e-la)|faco|faire|"
                             r"fais|"
                             r"rend\w*|tornar\w*|volver\w*|aumenta\w*|augment\w*|massimizz\w*|maximi\w*|piu|mas|mais|plus|"
                             r"meglio|mejor|melhor|mieux|deliberad\w*|deliberat\w*|volontair\w*|apposta|proposito|expres|"
                             r"fac|face|facem|faci|mai|cresc\w*|creste\w*|intentionat\w*)\b")
_HOW_ROMANCE = re.compile(rf"^\s*(?:come|como|comment|cum)\s+(?:(?!{_ROMANCE_ACTOR})[^\s?,;]+ ){{1,6}}?(?:si |se |s')?"
                          rf"(?:{_ROMANCE_VERBS})(?:(?: [^\s?,;]+){{0,8}})\s*\??\s*$"
                          # Romanian asks verb first: "cum trece virusul ... în sistemul nervos?", the subject after
                          rf"|^\s*cum\s+(?:{_ROMANCE_VERBS})(?: (?!{_ROMANCE_ACTOR})[^\s?,;]+){{1,8}}\s*\??\s*$")
"""A how opening its clause in Italian, Spanish, Portuguese or French, a subject that is no asker or actor (one to
six words: "Xylella", "le virus de la rage"), then a verb of spread, invasion, survival, damage or escape in the third
person present, and at most eight words to the clause's end: "Come Xylella blocca i vasi dell'ulivo" asks how the
pathogen does it, as "how does Xylella block the olive's vessels" does (goals_blind21's false refusal, 0.75). An
impersonal or reflexive verb before its subject ("come si diffonde l'antrace ...": how one spreads it), an infinitive
("come diffondere"), a causative or a superlative anywhere (:data:`_ROMANCE_CAUSED`: "come Xylella si diffonde più
in fretta") or more after the clause are not read."""


_TARGET = (r"(?:brain|placenta|cells?|nerves?(?! agents?\b| gas\b)|neurons?|interneurons?|kidneys?|liver|barrier|"
           r"blood-brain barrier|acetylcholine|spinal cord|muscles?|intestines?|gut)")
_GROWN = re.compile(r"\b(?:cultur\w*|культур\w*|kultur\w*|cultiv\w*|grow\w*|produc\w*|mass\w*|weapon\w*)")
"""A target that is a growth medium or a weapon's class ("grow the virus in cell culture", "nerve agent"): no
mechanism."""
_HOW_ANY = (r"(?:how|jak|wie|como|come|comment|cum|hoe|miten|hogyan|bagaimana|paano|nasil|nas\u0131l|kako|hvordan|hur|"
            r"jinsi|namna|\w{3,}je)")
_SELF = (r"(?:(?:do|can|could|should|would|will|shall|may|might|to) i|we|you|one|my|our|your|his|her|their|someone|"
         r"somebody|people|victims?|enem\w*|neighbou?rs?|rival\w*|boss|wife|husband|ich|wir|yo|nosotros|eu|nos|je|"
         r"nous|io|noi|ben|biz|saya|kami|kita|aku|mimi|sisi|ik|wij|tu|moj\w*|moi\w*|mio|mia|mis|meu|minha|mon|mes|"
         r"mein\w*|benim|komsu\w*|vecin\w*|vizinh\w*|voisin\w*|vicin\w*|nachbar\w*|sasiad\w*|soused\w*)")
_SELF_SAID = re.compile(rf"\b{_SELF}\b")
_PURPOSE = r"(?:so|that|in order|zeby|zebys|aby|abys|чтобы|щоб|para que|pour que|perche|damit|ki|sehingga|agar)"
_HOW_TARGET = re.compile(
    rf"\b{_HOW_ANY}(?: to)?(?: (?!{_PURPOSE}\b)[^\s?,;]+){{1,8}}? (?:{_TARGET})\b(?: [^\s?,;]+){{0,3}}\s*\??\s*$"
    rf"|\b(?:{_TARGET})\b(?: [^\s?,;]+){{0,3}}? {_HOW_ANY}(?: [^\s?,;]+){{0,2}}\s*\??\s*$")
"""A mechanism on a body's target (docs/design.md#safety-screen, "A mechanism on a body's target"): a how, at most
eight words (the agent and its verb), a body's target as the gloss writes it (brain, placenta, cells, nerves,
kidneys, liver, acetylcholine, a barrier) and at most three words to the clause's end ("cum trece virusul rabic spre
creier", "bagaimana virus Zika masuk ke plasenta"), or the target before a closing how (Turkish "... hücreye nasıl
girer"): how an agent reaches or acts on a part of the body is pathogenesis. Not read when a person or an asker is
anywhere in the clause (:data:`_SELF`: "my", "people", "enemy", "can I", "we" in the read languages; a bare "i" is the
Italian article and the Polish "and"), or after a purpose conjunction,
or with anything caused (:data:`_CAUSED`, :data:`_ROMANCE_CAUSED`: "make it reach the brain faster")."""


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
    romance = _HOW_ROMANCE.search(part)
    if romance is not None and not _ROMANCE_CAUSED.search(part) and not _SECOND.search(part, romance.start() + 1):
        return True
    if (target := _HOW_TARGET.search(part)) is not None and not hidden.search(part[:target.start()]) \
            and not _SECOND.search(part, target.start() + 1) \
            and not any(p.search(part) for p in (_CAUSED, _ROMANCE_CAUSED, _GROWN, _SELF_SAID)):
        return True
    h = said or _HOW_GLOSSED.search(part) or _HOW_EMBEDDED.search(part) or _HOW_LAST.search(part)
    return h is not None and not _CAUSED.search(part) and not hidden.search(part[:h.start()]) \
        and not _SECOND.search(part, h.end())
