"""A care question: a short question whose object is the care of a case or the response to an incident, asking no
harmful act (docs/design.md#safety-screen, "A care question").

People type short questions: "сибірка шкірна форма у пастуха, яка схема антибіотиків" (cutaneous anthrax in a
shepherd, which antibiotic regimen), "brucellosi da formaggi di malga, che esami fare" (which tests), "sursă veche de
Cs-137 găsită într-un depozit, cum anunțăm CNCAN" (whom to notify). Such a question names an agent and states no
purpose phrase ("for diagnosis"); its object is the purpose. The intent model, reading the original language, scored
them 0.48-0.91 and the agent rule or the rule for a window naming no agent refused them (goals_blind23). A window is
read as a care question (:meth:`Care.reads`) when

- it is short (:data:`CARE_WORDS`) and asks for a care object (``asked``, a question word of ``questions`` at hand,
  :meth:`Care.questioned`): a treatment or regimen, what to do, a diagnosis or a test, contact tracing or who to
  vaccinate, disinfection or cleaning, whom to notify, a source collected or disposed of safely, how a toxin or
  disease produces a symptom, a vaccination campaign carried further ("spread" as the campaign's reach, never the
  agent's); or, at any length, it is a surveillance plan: samples taken (``sampled``) and the results handed on
  (``returned``);
- and nothing outside those phrases is a harmful act (``harmful``: make, grow, spread to people or animals, infect,
  contaminate, poison, release, steal, take without record, avoid a test, skip the care, harm someone; a negation, a
  change put into the agent, survival, a causative); the caller adds no term hit, weapon use or harm to a person
  (:meth:`~cosci.safety.prescreen.Prescreen.cares`).

Then the window's request is a remedy (:attr:`~cosci.safety.rules.Evidence.remedy`): the agent rule and the rule
for a window naming no agent do not act; a term hit (an agent with a harmful step) still does. The lists are the term
file's ``care`` section, matched on the normalised text as the ``conditional`` section's are (an entry opening with a
Latin letter is a word, any other a substring): the Latin-script languages in their own words, the glossed scripts in
English where the gloss writes the word and in their own letters where it does not.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

from cosci.safety.conditional import section

KEYS = ("asked", "sampled", "returned", "questions", "harmful")
"""The lists of the term file's ``care`` section: a care question's object (``asked``), a surveillance plan's sampling
(``sampled``) and its results handed on (``returned``), the question words that ask for the object (``questions``),
and the acts that make a window no care question (``harmful``)."""
QUESTION_WORDS = 3
"""Words between a care object and the question word that asks for it ("яка схема антибіотиків", "chẩn đoán sớm thế
nào", "che esami fare"): the object is what is asked. A care word with no question at hand is as often what a request
defeats or uses ("... so that antibiotics no longer work", "under cover of a vaccine project, ...": on the tuning rows
the care words without a question released 83 harmful requests the term lists did not catch)."""
CARE_WORDS = 20
"""Words a care question may have: one question as typed (goals_blind23's run to 17 words: "disused Co-60 teletherapy
head at our old hospital - who do we call to get it collected safely"). A longer window is read as care only as a
surveillance plan (``sampled`` and ``returned`` both): a long text has room for a request beside its care words, which
the harmful list may not know."""


@dataclass(frozen=True)
class Care:
    """The compiled ``care`` section (:data:`KEYS`)."""

    asked: re.Pattern[str]
    sampled: re.Pattern[str]
    returned: re.Pattern[str]
    questions: re.Pattern[str]
    harmful: re.Pattern[str]

    @classmethod
    def of(cls, body: Any) -> Care | None:
        """The section compiled, None when the term file has none.

        Raises:
            ValueError: the section is not a mapping of the :data:`KEYS` lists.
        """
        patterns = section(body, "care", KEYS)
        return None if patterns is None else cls(*patterns)

    def reads(self, norm: str, words: int) -> tuple[list[str], str]:
        """The care phrases of a normalised window of ``words`` words and the window with each written as underscores
        (what the caller reads for a weapon use); no phrases when it is no care question (module docstring)."""
        if words > CARE_WORDS:
            plan = self.sampled.search(norm) and self.returned.search(norm)
            found = [*self.sampled.finditer(norm), *self.returned.finditer(norm)] if plan else []
        else:
            found = [m for m in (*self.asked.finditer(norm), *self.sampled.finditer(norm)) if self.questioned(norm, m)]
        if not found:
            return [], norm
        rest = list(norm)
        for m in found:  # a word of its own in the phrase's place, so that a word before it still has one after it
            rest[m.start():m.end()] = "_" * (m.end() - m.start())
        blanked = "".join(rest)
        if self.harmful.search(blanked):
            return [], norm
        return list(dict.fromkeys(m.group().strip() for m in found)), blanked

    def questioned(self, norm: str, found: re.Match[str]) -> bool:
        """Whether the care phrase ``found`` in ``norm`` is asked for: a question word (``questions``) in it or within
        :data:`QUESTION_WORDS` words of it, or a question mark closing the sentence within as many words after it."""
        before = norm[:found.start()].split()[-QUESTION_WORDS:]
        after = norm[found.end():].split()[:QUESTION_WORDS]
        near = " ".join([*before, found.group(), *after])
        return bool(self.questions.search(near)) or any(w.endswith(("?", "？", "؟")) for w in [found.group(), *after])
