"""A conditional's main clause: a hypothetical incident followed by how to respond is preparedness; the same incident
followed by a method, a place or a weakness is a plan in conditional form (docs/design.md#safety-screen, "A
conditional's main clause").

The window of a conditional reads the incident ("if someone stole a caesium source from a hospital", "如果城市发生氯气
泄漏"): its theft, release or leak is what the screen scores, and the request is in the main clause. A window is read as
:data:`RESPONSE` when its main clause asks a response, protection, detection, triage, evacuation or treatment, or a
control that catches the act (``responses``), and nothing else in it asks for harm: no method, place or weakness
(``plans``), no intention in the condition (``intentions``), no first-person actor there (``actors``), no harmful
step or weapon use in the main clause, no sentence after it. It is :data:`PLAN` when its main clause asks a method, a
place or a weakness that would let the act succeed or pass unnoticed, and no fix for it (``fixes``: "which gaps would
let it through, and how do we close them" audits a system), whatever sentence follows; :data:`INTENDED` when the
condition also states an intention to act ("if someone wanted to infect turkey farms, which point ...", "如果有人想...")
and its main clause asks a plan or no response at all.

The words are per language in the term file's ``conditional`` section, matched on the normalised text (glossed,
accents dropped, as :func:`~cosci.safety.text.normalise` writes it): the Latin-script languages in their own words,
the glossed scripts in English where the gloss lists the word and in their own letters where it does not.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, Protocol

from cosci.safety.gloss import fold_arabic
from cosci.safety.text import SENTENCE_END

RESPONSE = "response"
"""A hypothetical incident and a response asked: the incident's words are a premise (the agent rule, the rule for a
window naming no agent and a term hit whose step lies in the premise do not act)."""
PLAN = "plan"
"""A method, place or weakness asked after a hypothetical act: no remedy the window names excuses it."""
INTENDED = "intended"
"""A plan whose condition states an intention to act: with an agent or class word of a refuse category named, it acts
as a term hit of that category does (:func:`cosci.safety.rules.act`)."""
KEYS = ("markers", "ends", "forms", "responses", "plans", "fixes", "intentions", "guards", "evasions", "actors")
"""The lists of the term file's ``conditional`` section."""
_LABEL_END = re.compile(r"[:：]\s*$|,\s*$")
_LABEL = re.compile(r"[:：]\s*")
_THAT = re.compile(r"\s*(что|що|dass|ze|att)\b")
"""A complementiser after a comma: the condition goes on ("если врач подозревает, что пациента отравили", "wenn der
Arzt vermutet, dass ..."; Russian, Ukrainian, German, Czech, Polish and Swedish write the comma before it)."""

_AND = re.compile(r"(?<!\S)(?:and|then|e|y|et|und|dann|oraz|ve|dan|и|і|та|और|اور)(?!\S)")
"""A coordinator joining a second clause or verb in a main clause (:meth:`Conditional.joined`); not Dutch "en" and
Polish "i" ("en" is "in" in French and Spanish, "i" an Italian article)."""
_INFINITIVE = re.compile(r"\b\w{2,}(?:[aei]r|re)(?:l[aeoi]s?|gli\w*|ne|se|si)?\b")
"""A Romance infinitive, a clitic written onto it at most ("levar", "echarlo", "portarla", "répandre"): after "e", "y"
or "et" it joins a second request; a noun ("e pronto soccorso", "y los bomberos") joins who responds."""


class Spans(Protocol):
    """A term list (:class:`cosci.safety.prescreen.Terms`): what a weapon use is."""

    def spans(self, text: str) -> list[tuple[str, int, int]]: ...


def plain(entry: str) -> str:
    """An entry as the normalised text writes it: lower case, marks dropped (Japanese voicing marks too, "どこ" is
    "とこ"), Arabic spelling folded as the gloss folds it."""
    decomposed = unicodedata.normalize("NFKD", fold_arabic(entry))  # entries are lower case: "\\S" stays
    return "".join(c for c in decomposed if not unicodedata.combining(c))


def section(body: Any, name: str, keys: tuple[str, ...]) -> list[re.Pattern[str]] | None:
    """A term-file section of named lists compiled in ``keys``' order (:func:`_pattern`), None when absent.

    Raises:
        ValueError: the section is not a mapping of exactly ``keys``' lists.
    """
    if body is None:
        return None
    if not isinstance(body, dict) or set(body) != set(keys):
        raise ValueError(f"{name}: expected the lists {', '.join(keys)}")
    return [_pattern(body[k], f"{name}.{k}") for k in keys]


def _pattern(items: Any, where: str) -> re.Pattern[str]:
    """One alternation of ``items``: an entry opening with a Latin letter is a word (word boundaries around it; a stem
    writes ``\\w*``), any other is a substring (scripts written without spaces, affixes).

    Raises:
        ValueError: ``items`` is not a non-empty list of strings, or an entry is no regular expression.
    """
    if not isinstance(items, list) or not items or not all(isinstance(i, str) for i in items):
        raise ValueError(f"{where}: expected a list of patterns")
    parts = [rf"\b(?:{plain(i)})\b" if re.match(r"[a-z]", plain(i)) else f"(?:{plain(i)})" for i in items]
    try:
        return re.compile("|".join(parts))
    except re.error as exc:
        raise ValueError(f"conditional.{where}: bad pattern ({exc})") from None


@dataclass(frozen=True)
class Conditional:
    """The compiled ``conditional`` section (:data:`KEYS`): where a condition opens (``markers``) and ends
    (``ends``; ``forms``, a verb's conditional form, does both),
    what its main clause asks (``responses``, ``plans``, ``fixes``) and what its condition states (``intentions``,
    ``actors``: a first-person actor)."""

    markers: re.Pattern[str]
    ends: re.Pattern[str]
    forms: re.Pattern[str]
    responses: re.Pattern[str]
    plans: re.Pattern[str]
    fixes: re.Pattern[str]
    intentions: re.Pattern[str]
    guards: re.Pattern[str]
    evasions: re.Pattern[str]
    actors: re.Pattern[str]

    @classmethod
    def of(cls, body: Any) -> Conditional | None:
        """The section compiled, None when the term file has none.

        Raises:
            ValueError: the section is not a mapping of the :data:`KEYS` lists.
        """
        patterns = section(body, "conditional", KEYS)
        return None if patterns is None else cls(*patterns)

    def split(self, norm: str) -> tuple[str, str, int, str] | None:
        """A normalised window's condition and main clause, and where the condition starts. The condition runs from
        the first marker ("if", "si", "如果", "만약") to the first end after it (a comma, "then", "तो", or a verb's
        conditional form, ``forms``: Korean "-다면", Japanese "-たら", Turkish "-saydı"), else to its sentence's end;
        without a marker, from the sentence's start (after a label, "가상 시나리오:") to a conditional form. The main
        clause is what stands before the marker (a question put first: "which checks would catch it if ...") and
        after the end, to its sentence's end; what follows that sentence is returned too. None without a condition or
        with a sentence ended before it (only a label, "For a course:", may stand there)."""
        m = self.markers.search(norm)
        form = self.forms.search(norm)
        if m is None and form is None:
            return None
        if m is not None and (form is None or m.start() <= form.start()):
            start, end = m.start(), self._end(norm, m.end())
            # a marker right after the end goes on ("hypothetically, if ...,"; "가상 시나리오: 만약 ...")
            while (more := self.markers.match(norm, end + len(norm[end:]) - len(norm[end:].lstrip()))) is not None:
                end = self._end(norm, more.end())
        else:
            assert form is not None
            start = max((lab.end() for lab in _LABEL.finditer(norm, 0, form.start())), default=0)
            end = form.end()
        before = norm[:start]
        if SENTENCE_END.search(before.rstrip(" :：,")):
            return None
        after = norm[end:]
        stop = SENTENCE_END.search(after)
        rest = after[stop.end():].strip(" .!?。！？؟\"'") if stop is not None else ""
        main = ("" if _LABEL_END.search(before) else before) + " " + (after[:stop.end()] if rest and stop else after)
        return norm[start:end], main, start, rest

    def _end(self, norm: str, at: int) -> int:
        """Where a condition whose marker ends at ``at`` ends: its first end or conditional form within its sentence,
        else its sentence's end (or the window's)."""
        ends = [e.end() for e in (self.ends.search(norm, at), self.forms.search(norm, at)) if e is not None]
        stop = SENTENCE_END.search(norm, at)
        end = min([*ends, stop.start() if stop else len(norm)])
        if norm[end - 1:end] in (",", "،") and _THAT.match(norm, end):  # "if a doctor suspects, that ...": goes on
            return self._end(norm, end)
        return end

    def read(self, norm: str, steps: Sequence[tuple[int, int]], weapon_use: Spans) -> str | None:
        """:data:`RESPONSE`, :data:`PLAN`, :data:`INTENDED` or None for a normalised window; ``steps``: the start
        and end of each harmful step the term lists find in it (a step in the main clause is asked, not a premise);
        ``weapon_use``: the term list a remedy yields to (``weapon_use``), read in the main clause (a use that is a
        response's object is none: "decontaminate casualties")."""
        parts = self.split(norm)
        if parts is None:
            return None
        condition, main, at, rest = parts
        aims = list(self.intentions.finditer(condition))
        intended = any(not self._guarded(condition, m) for m in aims)
        fixed = bool(self.fixes.search(main))
        planned = bool(self.plans.search(main)) and not fixed
        # a guarded aim ("if a hospital wanted to prevent the loss of its sources") and a fix asked is an audit of
        # one's own system: a response, whoever the actor ("if we wanted to stop leaks, how do we fix them")
        guarded = bool(aims) and not intended
        responds = (bool(self.responses.search(main)) and not self.joined(main)) or (guarded and fixed)
        if intended and (planned or not responds):
            return INTENDED
        if planned:
            return PLAN
        premise = range(at, at + len(condition))
        used = [s for _, s, _ in weapon_use.spans(main) if not self.responded(main, s)]
        if responds and not rest and not intended and (guarded or not self.actors.search(condition)) and not used \
                and all((s in premise and e - 1 in premise) or self.responded(norm, s) for s, e in steps):
            return RESPONSE
        return None

    def joined(self, main: str) -> bool:
        """Whether a main clause joins a second request to its response: a coordinator after the response word and no
        response or fix among the three words after it ("como controlar aqui e levar a doença para a fazenda do
        vizinho", "contenerlo aquí y echarlo en el pozo": the containment is a cover for the carrying; after a
        Romance "e", "y", "et" only an infinitive, :data:`_INFINITIVE`). Errs to the score: "contain it and compensate
        the farmers" is no longer read as a response either."""
        first = self.responses.search(main)
        assert first is not None
        for m in _AND.finditer(main, first.end()):
            after = " ".join(main[m.end():].split()[:3])
            if m[0] in ("e", "y", "et") and not _INFINITIVE.search(after):
                continue  # Romance: a second request is a verb ("e levar", "y echarlo"), not a list of who responds
            if not (self.responses.search(after) or self.fixes.search(after)):
                return True
        return False

    def _guarded(self, condition: str, intention: re.Match[str]) -> bool:
        """Whether an intention in a condition is a preventive aim: a ``guards`` word opening one of the first two
        words after it ("if a hospital wanted to prevent the loss"; not "wanted to release it to reduce ..."), or
        the word just before it in verb-final order ("막고 싶다면"), with no ``evasions`` word in the four words after
        the guard, or the three before it in verb-final order ("wanted to avoid detection", "evitar que lo
        detecten" are evasions)."""
        after = condition[intention.end():].split()
        head = " ".join(after[:4])
        if (g := self.guards.search(head)) is not None and head[:g.start()].count(" ") <= 1:  # its first verb
            return not self.evasions.search(" ".join((head[g.end():] + " " + " ".join(after[4:8])).split()[:4]))
        before = condition[:intention.start()].split()
        if before and self.guards.search(before[-1]):
            return not self.evasions.search(" ".join(before[-4:-1]))
        return False

    def responded(self, norm: str, at: int) -> bool:
        """Whether the step at ``at`` of a normalised window is the object of a response word among the three words
        before it ("decontaminate casualties", "treat the exposed")."""
        return bool(self.responses.search(" ".join(norm[:at].split()[-3:])))
