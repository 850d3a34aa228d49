"""The falsification contract's concreteness check, deterministic (``docs/design.md#falsification``).

A hypothesis records the experiment that decides it, the result predicted if it holds and the result that would
refute it (:class:`cosci.records.RecordHypothesis`). :func:`check_result` says whether one result is concrete: not
empty, not hedged (a hedge word of :mod:`cosci.grounding.tokens` or a ``vague`` phrase), naming a measurable
quantity (a number, a unit or a ``quantities`` pattern) and a direction or threshold (a direction word, a sign, a
number or a ``directions`` pattern). The patterns are ``conf/falsification_terms.yaml`` (named by
``reflection.falsification_terms``). It is a word list, not an understanding of the sentence: the full review's own
judgement is the finer pass, and the check only caps testability when the refuting result fails it.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import cache

from cosci.domain import Hypothesis
from cosci.errors import CosciError
from cosci.grounding.term_files import compile_patterns, read_term_file
from cosci.grounding.tokens import token_class, tokenize

KEY = "reflection.falsification_terms"
LISTS = ("quantities", "directions", "vague")


class FalsificationTermsError(CosciError):
    """The falsification term file is missing or malformed."""


@dataclass(frozen=True)
class Terms:
    quantities: tuple[re.Pattern[str], ...]
    directions: tuple[re.Pattern[str], ...]
    vague: tuple[re.Pattern[str], ...]


@dataclass(frozen=True)
class ResultCheck:
    """One result's check: ``concrete`` and, when not, ``problems`` (short phrases: ``empty``, ``hedged ('may')``,
    ``no measurable quantity``, ``no direction or threshold``)."""

    concrete: bool
    problems: tuple[str, ...]

    @property
    def why(self) -> str:
        return "; ".join(self.problems)


@dataclass(frozen=True)
class ContractCheck:
    """The check of a hypothesis's contract: its experiment named, its predicted and its refuting result checked."""

    experiment: bool
    predicted: ResultCheck
    refuting: ResultCheck

    @property
    def concrete(self) -> bool:
        return self.experiment and self.predicted.concrete and self.refuting.concrete

    def line(self) -> str:
        """One line for the review prompt and the review's notes."""
        if self.concrete:
            return "concrete: the experiment is named; both results name a measurable quantity and a direction."
        parts = [] if self.experiment else ["no decisive experiment"]
        if not self.predicted.concrete:
            parts.append(f"predicted result: {self.predicted.why}")
        if not self.refuting.concrete:
            parts.append(f"refuting result: {self.refuting.why}")
        return "not concrete: " + "; ".join(parts) + "."


@cache
def load_terms(name: str) -> Terms:
    """The term file ``name`` (relative to ``conf/`` or absolute), compiled.

    Raises:
        FalsificationTermsError: missing, not YAML, or not three lists of patterns.
    """
    data = read_term_file(name, KEY, LISTS, FalsificationTermsError)
    return Terms(*(compile_patterns(data.get(k), KEY, k, FalsificationTermsError) for k in LISTS))


def check_result(text: str, terms: Terms) -> ResultCheck:
    """Whether one predicted or refuting result is concrete (module docstring)."""
    plain = " ".join((text or "").split())
    if not plain:
        return ResultCheck(False, ("empty",))
    classes = [(t.raw, token_class(t)) for t in tokenize(plain)]
    kinds = {k for _, k in classes}
    problems: list[str] = []
    hedges = [raw for raw, k in classes if k == "hedge"] + [m.group(0) for p in terms.vague if (m := p.search(plain))]
    if hedges:
        problems.append(f"hedged ({', '.join(repr(h) for h in dict.fromkeys(hedges))})")
    if not ({"number", "unit"} & kinds or any(p.search(plain) for p in terms.quantities)):
        problems.append("no measurable quantity")
    if not ({"number", "sign", "direction"} & kinds or any(p.search(plain) for p in terms.directions)):
        problems.append("no direction or threshold")
    return ResultCheck(not problems, tuple(problems))


def check_contract(h: Hypothesis, terms: Terms) -> ContractCheck:
    """The check of ``h``'s falsification contract (a hypothesis stored before it has empty fields: not concrete)."""
    return ContractCheck(bool(h.decisive_experiment.strip()), check_result(h.predicted_result, terms),
                         check_result(h.refuting_result, terms))
