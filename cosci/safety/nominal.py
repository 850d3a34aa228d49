"""A request written as a noun phrase: "Scale up <agent> spore production", "<agent> aerosol particle size
optimisation", "<toxin> production scale-up protocol" (design.md#safety-screen, "A request as a noun phrase").

The screen reads a harmful step as asked outright when an imperative harmful verb opens its window or closes it
(:meth:`cosci.safety.readings.Readings.asks`). A request written as a title names its action as a noun instead, so
the intent model, whose short training rows naming an agent are mostly benign, scored such requests near 0 and no
rule acted. These patterns are the same two readings with the action's nouns (``asked.nouns`` in the term file: the
raisers "optimisation", "scale-up"; ``asked.made`` before a closer: "production ... protocol", "synthesis route").
They are read only in a window naming an agent of concern: with a class word alone ("bacterial fermentation scale-up",
"viral vector production protocol") they are ordinary bioprocess work. Also here: an intent phrase in its request
form (:func:`constructed`: "make this disease stay in the air", "... spread 的 method") and a trial on people written
as its noun phrase (:func:`trial_described`), which :meth:`cosci.safety.readings.Readings.constructs` reads.
"""

from __future__ import annotations

import re
from typing import Any

from cosci.safety.text import dash_or_space

CONSTRUCTED = re.compile(r"^(?:(?:please|i want to|we want to|help me|how (?:do|can|could) (?:i|we)) )?"
                         r"(?:make|let|causative|so that|make sure|ensure|how to|select|pick out|enrich for|cross|"
                         r"increase|enhance|boost|raise|maximi[sz]e|render|engineer|modify|evolve|adapt|help|get|"
                         r"reassort|mix two|breed|design|create|build|generate|construct|produce|combine|merge|stack|"
                         r"take|smuggle|sneak|steal|remove)\b"
                         r"|\b(?:make|let)\b(?: \S+){0,3}$|\bmake resistant to(?: \S+){0,3}$"
                         # an agent taken out of its lab without a record, verb-last as glossed ("... strain without a
                         # record take out"; design.md#safety-screen, "A source or an agent removed without a record")
                         r"|\b(?:take|smuggle|sneak|get) out$"
                         r"|\b(?:select|make it so|how to make)$"
                         # a choice or ranking of diseases by the harm done with them ("which disease would I put in
                         # the water to kill everything", "uszereguj choroby ... którymi najłatwiej zniszczyć ...")
                         r"|^(?:which|what|rank|ranking|rankings|order|sort|list|classify|top|qual|quais|cual|cuales|"
                         r"quale|quali|quel|quelle|quels|quelles|classifica|classifique|classe|ordena|ordene|ordina|"
                         r"ordine|jak\w*|ktor\w*|uszereguj|posortuj|welche\w*|sortiere|ordne|какую|какои|какие|какая|"
                         r"реитинг|ранжируи|расположи|упорядочь|яку|якии|які|ранжуи)\b")
"""A biological intent phrase in its request form: a causative, jussive, raising, selection or making verb uninflected
opens it (after a plea or a first-person wish at most) or closes it (verb-final); "makes", "selected", "bred" say what
happened. The verbs of making and combining ("breed a more virulent Streptococcus pyogenes", "combine hypervirulence
and colistin resistance in one Klebsiella strain") ask for a common pathogen's raised trait as plainly as "make" does:
their phrases scored 0.02 and 0.015, under the term hit's bar (design.md#safety-screen, "Constructions asked", "A
common pathogen's trait made"); a disease chosen or ranked by the harm done with it is asked as its choice
("A disease chosen as the means")."""
INTRUDED = re.compile(r"^(?:(?:please|i want to|we want to|help me|how (?:to|do i|can i|could i|do we|can we)) )?"
                      r"(?:hack|hijack|take over|take control of|break into|get into)\b")
"""A consent phrase that is a system or device attacked, in its request form: the break-in opens it ("hack the vaccine
store's temperature monitoring so the batch spoils", design.md#safety-screen, "A supply or life-support system
attacked"); "hackers who switched off ..." says what happened."""
UNASKED = re.compile(r"\b(?:not|no|never|don't|do not|cannot|can't|won't|nobody|no one|prevent\w*|stop\w*|avoid\w*|"
                     r"why)\b(?: \S+){0,3} ?$")
"""Before such a phrase, within three words, a negation, a prevention or a why: no request for the trait."""
METHOD_CLOSED = re.compile(r"^(?: [^\x00-\x7f\s]{1,4})?(?: 's| of)? (?:the )?(?:best |easiest |quickest )?"
                           r"(?:methods?|ways?|yontem\w*|yolu|yollar\w*)[\W_]*$")
"""After a verb-last intent phrase, the method it ends on ("... spread 的 method", "... yayma yöntemi"): the request
named as its method is its request form (design.md#safety-screen, "A spread asked as its method")."""
_TRIAL = (r"(?:(?:clinical|drug|vaccine|medicine|field|human) )?(?:trials?|tests?|testing|experiments?|"
          r"ensayos?(?: clinicos?)?|ensaios?(?: clinicos?)?|pruebas?|probar|testar|experimentar|experimentos?|"
          r"badani\w*|testowani\w*|eksperyment\w*|uji(?: klinis| coba)?|percobaan|thu nghiem|deneme\w*|deney\w*)")
"""A trial, test or experiment on people, in English as glossed and the Latin-script languages the screen reads."""
_TRIAL_OPENED = re.compile(rf"^(?:(?:a|an|the|un|una|um|uma|el|la|o|a) )?{_TRIAL}\b")
_TRIAL_CLOSED = re.compile(rf"\b{_TRIAL}[\W_]*$")


def constructed(window: str, phrase: str, start: int, end: int) -> bool:
    """Whether an intent phrase at ``start:end`` of a normalised ``window`` is in its request form: a causative or
    selection verb opens or closes it (:data:`CONSTRUCTED`) or the window closes on its method (:data:`METHOD_CLOSED`),
    and no negation, prevention or why stands before it (:data:`UNASKED`)."""
    return bool(CONSTRUCTED.search(phrase) or METHOD_CLOSED.match(window[end:])) and not UNASKED.search(window[:start])


def intruded(window: str, phrase: str, start: int) -> bool:
    """Whether a consent phrase at ``start`` of a normalised ``window`` attacks a system in its request form
    (:data:`INTRUDED`), with no negation, prevention or why before it (:data:`UNASKED`)."""
    return bool(INTRUDED.match(phrase)) and not UNASKED.search(window[:start])


def trial_described(window: str) -> bool:
    """Whether a normalised ``window`` is a trial, test or experiment on people written as its noun phrase: the trial
    opens the window ("Ensayo clínico en ... sin ...", "Testar o remédio em ...") or closes it, verb-final ("... onay
    almadan ilaç denemesi"). With a consent phrase in it, the missing consent is the plan described, not a topic
    (design.md#safety-screen, "A trial without consent described")."""
    return bool(_TRIAL_OPENED.match(window) or _TRIAL_CLOSED.search(window))


def nominal_patterns(body: Any) -> tuple[re.Pattern[str], re.Pattern[str]] | None:
    """The opening and closing patterns of a noun-phrase request from the term file's ``asked`` mapping (None when
    it has no ``nouns``): the opening is the ``asked`` pattern's with the nouns among the verbs, the
    closing ``asked_last``'s with the nouns among the verbs and a ``made`` noun before one closer or more.

    Raises:
        re.error: a ``nouns``, ``made`` or ``closers`` pattern does not compile (shipped lists; ``openers`` and
            ``verbs`` were compiled, and reported, by the loader before).
    """
    nouns = body.get("nouns") if isinstance(body, dict) else None
    if not nouns:
        return None
    join = "|".join
    openers, verbs = join(dash_or_space(p) for p in body["openers"]), join(dash_or_space(p) for p in body["verbs"])
    nouns_ = join(dash_or_space(p) for p in nouns)
    closers, made = join(body.get("closers") or ["(?!)"]), join(dash_or_space(p) for p in body.get("made") or ["(?!)"])
    # a where-opener too ("where can I buy", "where obtain" as glossed): with an agent of concern named, where it
    # is obtained is asked as plainly as how to make it (design.md#safety-screen, "Acquisition asked plainly")
    where = join(body.get("where") or ["(?!)"])
    opening = re.compile(rf"(?:(?:{openers}|{where}) )?(?:{verbs}|{nouns_})\b|(?:{where}) get\b", re.IGNORECASE)
    closing = re.compile(rf"\b(?:{verbs}|{nouns_})\b(?: (?:{closers}))*[\W_]*$"
                         rf"|\b(?:{made})\b(?: (?:{closers}))+[\W_]*$", re.IGNORECASE)
    return opening, closing
