"""A request written as a noun phrase: "Scale up <agent> spore production", "<agent> aerosol particle size
optimisation", "<toxin> production scale-up protocol" (design.md#safety-screen, "A request as a noun phrase").

The screen reads a harmful step as asked outright when an imperative harmful verb opens its window or closes it
(:meth:`cosci.safety.readings.Readings.asks`). A request written as a title names its action as a noun instead, so
the intent model, whose short training rows naming an agent are mostly benign, scored such requests near 0 and no
rule acted. These patterns are the same two readings with the action's nouns (``asked.nouns`` in the term file: the
raisers "optimisation", "scale-up"; ``asked.made`` before a closer: "production ... protocol", "synthesis route").
They are read only in a window naming an agent of concern: with a class word alone ("bacterial fermentation scale-up",
"viral vector production protocol") they are ordinary bioprocess work.
"""

from __future__ import annotations

import re
from typing import Any

from cosci.safety.text import dash_or_space


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
    opening = re.compile(rf"(?:(?:{openers}) )?(?:{verbs}|{nouns_})\b", re.IGNORECASE)
    closing = re.compile(rf"\b(?:{verbs}|{nouns_})\b(?: (?:{closers}))*[\W_]*$"
                         rf"|\b(?:{made})\b(?: (?:{closers}))+[\W_]*$", re.IGNORECASE)
    return opening, closing
