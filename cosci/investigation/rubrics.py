"""Rubric adjudication, deterministic, no model call (docs/design.md#gates).

A rubric is checked in layers; the first that applies decides:

1. the evaluation failed (non-zero exit, or no valid output): *criterion not assessed because evaluation failed*;
2. the evaluator's correctness flag is false: *criterion not assessed because scientific acceptance failed*;
3. the rubric has ``source_contains`` patterns: it passes when the candidate's sources match every pattern;
4. otherwise a metric–comparator–threshold triple is parsed from its text ("sum_of_radii exceeds 2.6",
   "abs_error at most 0.05", "coverage >= 0.9"): it passes when the evaluator reported that metric as a number and
   the comparison holds. No triple: *no metric threshold found*; a metric the evaluator did not report (or not a
   number): *harness cannot verify* it. Unverifiable never becomes true.
"""

from __future__ import annotations

import math
import operator
import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass

from cosci.investigation.task import Rubric

ALIASES: dict[str, str] = {
    "exceeds": ">", "exceed": ">", "is greater than": ">", "greater than": ">", "more than": ">", "above": ">",
    "over": ">",
    "is higher than": ">", "higher than": ">",
    "at least": ">=", "no less than": ">=", "not less than": ">=", "is at least": ">=",
    "below": "<", "is less than": "<", "less than": "<", "under": "<", "is lower than": "<", "lower than": "<",
    "fewer than": "<",
    "at most": "<=", "no more than": "<=", "not more than": "<=", "does not exceed": "<=", "is at most": "<=",
    "equals": "==", "is equal to": "==", "equal to": "==",
}
"""Natural-language comparators (design.md#gates: "exceeds" is >, "at least" is >=, "below" is <; "exceed" for
"must not exceed")."""
COMPARATORS: dict[str, Callable[[float, float], bool]] = {
    ">": operator.gt, ">=": operator.ge, "<": operator.lt, "<=": operator.le, "==": operator.eq,
    "≥": operator.ge, "≤": operator.le, "!=": operator.ne,
}
_WORDS = "|".join(sorted((re.escape(a).replace(r"\ ", r"\s+") for a in ALIASES), key=len, reverse=True))
METRIC_COMPARISON_RE = re.compile(
    rf"`?(?P<metric>[A-Za-z_][A-Za-z0-9_.]*)`?\s*(?:(?:must|should|shall|will|is|are)\s+)?(?P<neg>not\s+)?"
    rf"(?:be\s+)?(?P<cmp>>=|<=|==|≥|≤|>|<|\b(?:{_WORDS})\b)\s*"
    rf"(?P<value>[-+]?(?:\d+\.?\d*|\.\d+)(?:[eE][-+]?\d+)?)",
    re.IGNORECASE)
"""A metric name, an optional verb and "not", a comparator (symbol or alias), a number."""
NEGATED = {">": "<=", ">=": "<", "<": ">=", "<=": ">", "==": "!="}
"""A comparator after "not" ("must not exceed 0.1" is <= 0.1)."""
FAILED_EVALUATION = "criterion not assessed because evaluation failed"
FAILED_ACCEPTANCE = "criterion not assessed because scientific acceptance failed"
NO_THRESHOLD = "no metric threshold found"


@dataclass(frozen=True)
class Threshold:
    metric: str
    comparator: str
    value: float

    def holds(self, x: float) -> bool:
        return COMPARATORS[self.comparator](x, self.value)

    def __str__(self) -> str:
        return f"{self.metric} {self.comparator} {self.value:g}"


@dataclass(frozen=True)
class RubricStatus:
    """One rubric's outcome on one evaluation: ``passed`` and the reason (what was compared, or why not)."""

    rubric_id: str
    passed: bool
    reason: str


def parse_threshold(text: str, metrics: Mapping[str, object] | None = None) -> Threshold | None:
    """The first metric–comparator–threshold triple in ``text``; when ``metrics`` is given, a triple naming one of
    its metrics wins over an earlier one that does not. None when the text holds none."""
    found: list[Threshold] = []
    for m in METRIC_COMPARISON_RE.finditer(text):
        word = " ".join(m.group("cmp").lower().split())
        cmp = ALIASES.get(word, {"≥": ">=", "≤": "<="}.get(word, word))
        if m.group("neg"):
            cmp = NEGATED[cmp]
        found.append(Threshold(m.group("metric"), cmp, float(m.group("value"))))
    if metrics is not None:
        for t in found:
            if t.metric in metrics:
                return t
    return found[0] if found else None


def _number(value: object) -> float | None:
    if isinstance(value, bool) or not isinstance(value, int | float):
        return None
    return float(value) if math.isfinite(value) else None


def check_sources(patterns: list[str], sources: Mapping[str, str]) -> tuple[bool, str]:
    """Whether every pattern (a regular expression) matches some candidate source file."""
    missing = []
    for p in patterns:
        try:
            rx = re.compile(p, re.MULTILINE)
        except re.error as exc:
            return False, f"source_contains pattern {p!r} is not a regular expression ({exc})"
        if not any(rx.search(text) for text in sources.values()):
            missing.append(p)
    if missing:
        return False, "sources do not contain " + ", ".join(repr(p) for p in missing)
    return True, f"sources contain {', '.join(repr(p) for p in patterns)}"


def adjudicate(rubric: Rubric, *, evaluation_ok: bool, correct: bool, metrics: Mapping[str, object],
               sources: Mapping[str, str]) -> RubricStatus:
    """Adjudicate one rubric (the layers of the module docstring).

    Args:
        evaluation_ok: the program and the evaluator exited 0 and the evaluator's output was valid.
        correct: the evaluator's correctness flag.
        metrics: the evaluator's metrics.
        sources: the candidate's source files, ``{relative path: text}``.
    """
    rid = rubric.id
    if not evaluation_ok:
        return RubricStatus(rid, False, FAILED_EVALUATION)
    if not correct:
        return RubricStatus(rid, False, FAILED_ACCEPTANCE)
    if rubric.source_contains:
        ok, why = check_sources(rubric.source_contains, sources)
        return RubricStatus(rid, ok, why)
    threshold = parse_threshold(rubric.text, metrics)
    if threshold is None:
        return RubricStatus(rid, False, NO_THRESHOLD)
    value = _number(metrics.get(threshold.metric))
    if value is None:
        return RubricStatus(rid, False, f"harness cannot verify {threshold}: the evaluator reported no numeric "
                                        f"{threshold.metric}")
    ok = threshold.holds(value)
    return RubricStatus(rid, ok, f"{threshold.metric} = {value:g}, needs {threshold}")
