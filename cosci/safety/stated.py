"""An intention stated in the first person, after a request: the asker's own aim, read apart from what is asked
(docs/design.md#safety-screen, "An intention stated").

A sentence such as "I intend to do it", "אני מתכוון לעשות את זה", "أنوي فعل ذلك" or "Хочу ими воспользоваться" after a
question about a weakness, or "I want my neighbour to get sick" after a question about an agent, turns the question into
a plan: the window reads as :data:`~cosci.safety.conditional.INTENDED` (:meth:`Stated.intends`), as a plan in
conditional form with an intention does. The same sentence with a protective aim ("I intend to study cleaning
schedules", "I plan to treat patients", "אני מתכנן ללמוד את זה") is a stated purpose, and the intent model, which
reads any first-person intention near harmful requests (a Hebrew "I plan to study it for an exam" scored 0.96 alone),
scores the window without it (:meth:`Stated.unstated`); its purpose words are still read.

The lists are the term file's ``stated`` section (:data:`KEYS`), matched on the normalised text as the
``conditional`` section's are (:func:`~cosci.safety.conditional.plain`).
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from cosci.safety.conditional import section
from cosci.safety.text import normalise, sentences

KEYS = ("intentions", "acts", "harms", "purposes")
"""The lists of the term file's ``stated`` section: the asker's intention (``intentions``); carrying out what was asked,
named by a pro-form (``acts``: "do it", "use them", "place that order"); harm to a person as the aim (``harms``); a
protective aim (``purposes``: study, treat, vaccinate, report, fix)."""
AIM_WORDS = 6
"""Words after an intention (or before it, verb-final) within which its act or harm must stand: its own clause."""
PURPOSE_WORDS = 3
"""Words after an intention (or before it) within which a protective verb is the intention's own verb ("I intend to
study", "ללמוד את זה"), not a later step's."""


@dataclass(frozen=True)
class Stated:
    """The compiled ``stated`` section (:data:`KEYS`)."""

    intentions: re.Pattern[str]
    acts: re.Pattern[str]
    harms: re.Pattern[str]
    purposes: re.Pattern[str]

    @classmethod
    def of(cls, body: Any) -> Stated | None:
        """The section compiled, None when the term file has none.

        Raises:
            ValueError: the section is not a mapping of the :data:`KEYS` lists.
        """
        patterns = section(body, "stated", KEYS)
        return None if patterns is None else cls(*patterns)

    def aim(self, sentence: str) -> str | None:
        """What a normalised sentence states as the asker's aim: ``harm`` (harm to a person), ``act`` (carrying out
        what was asked), ``purpose`` (a protective aim), or None when it states no first-person intention. The aim is
        read in the :data:`AIM_WORDS` words after the intention, or before it in verb-final order ("আমি এটা করতে
        চাই"); a harm there is a harm whatever else is said, and a protective verb as the intention's own verb
        (:data:`PURPOSE_WORDS`) makes it a purpose ("I intend to report them and fix them"; not "I plan to do it and
        study the results")."""
        found = self.intentions.search(sentence)
        if found is None:
            return None
        before, after = sentence[:found.start()].split(), sentence[found.end():].split()
        near = " ".join([*before[-AIM_WORDS:], found.group(), *after[:AIM_WORDS]])
        if self.harms.search(near):
            return "harm"
        # the intention's own verb: the first words after it, or the last before it in verb-final order
        if self.purposes.search(" ".join([*before[-PURPOSE_WORDS:], found.group(), *after[:PURPOSE_WORDS]])):
            return "purpose"
        return "act" if self.acts.search(near) else None

    def intends(self, norm: str, asked: re.Pattern[str] | None) -> bool:
        """Whether a normalised window states, after its first sentence, the asker's intention to harm a person, or to
        carry out what an earlier sentence asks where that sentence asks a plan (``asked``: the ``conditional``
        section's ``plans``: a weakness, a place, what would go unnoticed)."""
        said = sentences(norm)
        for i, sentence in enumerate(said[1:], 1):
            aim = self.aim(sentence)
            if aim == "harm" or (aim == "act" and asked is not None
                                 and any(asked.search(s) for s in said[:i])):
                return True
        return False

    def unstated(self, window: str, plain: Callable[[str], bool]) -> str:
        """``window`` (as written) less its sentences that state a protective aim in the first person and are
        ``plain`` (no term hit), when another sentence is left: the text the intent model scores."""
        said = sentences(window)
        if len(said) < 2:
            return window
        kept = [s for s in said if self.aim(normalise(s)) != "purpose" or not plain(s)]
        return " ".join(kept) if kept and len(kept) < len(said) else window
