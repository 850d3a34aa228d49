"""Rubric adjudication, deterministic, no model call (docs/design.md#gates).

A rubric is checked in layers; the first that fails decides, and a rubric passes only on behaviour:

1. the evaluation failed (non-zero exit, or no valid output): *criterion not assessed because evaluation failed*;
2. the evaluator's correctness flag is false: *criterion not assessed because scientific acceptance failed*;
3. ``source_contains`` patterns must each match the candidate's Python *code*: comments and string literals are
   blanked first (:func:`code_of`), so a comment or a docstring naming a function satisfies nothing. A pattern
   is a condition on the code, never a check alone;
4. ``perturb``: the candidate was run again with other seeds (:class:`Probe`, made by
   :mod:`cosci.investigation.probes` in the sandbox); each answer must be valid, correct and differ from the
   answer at the search seed, which a program printing stored coordinates cannot do. Probes not made: *harness
   cannot verify*;
5. a metric–comparator–threshold triple parsed from its text ("sum_of_radii exceeds 2.6", "abs_error at most
   0.05", "coverage >= 0.9") must hold on a metric the evaluator reported as a number. No triple and no
   ``perturb``: *no metric threshold found* (with ``source_contains`` alone: *a source pattern checks text, not
   behaviour*); a metric the evaluator did not report (or not a number): *harness cannot verify* it.

Unverifiable never becomes true (docs/design.md#gates).
"""

from __future__ import annotations

import io
import math
import operator
import re
import tokenize
from collections.abc import Callable, Mapping, Sequence
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
SOURCE_ONLY = ("a source pattern checks text, not behaviour: the rubric needs a metric threshold or perturb "
               "(harness cannot verify it)")
NOT_PROBED = "harness cannot verify perturb: the perturbed runs were not made"


@dataclass(frozen=True)
class Probe:
    """One perturbed run of a candidate: its ``seed``; ``ok`` (program and evaluator exited 0, valid output) with
    ``reason`` when not; the evaluator's ``correct``; ``differs``: its answer is not the search seed's."""

    seed: int
    ok: bool
    correct: bool
    differs: bool
    reason: str = ""


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
    """Whether every pattern (a regular expression) matches some file of ``sources`` (the candidate's code,
    :func:`code_of`)."""
    missing = []
    for p in patterns:
        try:
            rx = re.compile(p, re.MULTILINE)
        except re.error as exc:
            return False, f"source_contains pattern {p!r} is not a regular expression ({exc})"
        if not any(rx.search(text) for text in sources.values()):
            missing.append(p)
    if missing:
        return False, "the code (comments and string literals aside) does not contain " + ", ".join(
            repr(p) for p in missing)
    return True, f"the code contains {', '.join(repr(p) for p in patterns)}"


def code_text(text: str) -> str | None:
    """Python source with every comment and string literal (docstrings included) blanked to spaces, lines and
    columns kept; None when it does not tokenize (its code cannot be told from its text)."""
    try:
        tokens = list(tokenize.generate_tokens(io.StringIO(text).readline))
    except (tokenize.TokenError, SyntaxError):
        return None
    lines = [list(line) for line in text.splitlines(keepends=True)]
    for t in tokens:
        if t.type not in (tokenize.COMMENT, tokenize.STRING):
            continue
        (sr, sc), (er, ec) = t.start, t.end
        for r in range(sr, er + 1):
            row = lines[r - 1]
            for i in range(sc if r == sr else 0, ec if r == er else len(row)):
                if row[i] != "\n":
                    row[i] = " "
    return "".join("".join(line) for line in lines)


def code_of(sources: Mapping[str, str]) -> dict[str, str]:
    """The code of the candidate's Python files (:func:`code_text`); other files are data or prose, and a file
    that does not tokenize contributes nothing."""
    out = {}
    for rel, text in sources.items():
        if rel.endswith(".py") and (code := code_text(text)) is not None:
            out[rel] = code
    return out


def check_probes(probes: Sequence[Probe] | None) -> tuple[bool, str]:
    """Whether every perturbed run gave a valid, correct answer that differs from the search seed's."""
    if not probes:
        return False, NOT_PROBED
    for p in probes:
        if not p.ok:
            return False, f"perturbed seed {p.seed}: {p.reason or 'the run failed'}"
        if not p.correct:
            return False, f"perturbed seed {p.seed}: the evaluator found the answer incorrect"
        if not p.differs:
            return False, (f"perturbed seed {p.seed}: the same answer as at the search seed (a stored answer, or a "
                           "program that ignores its seed)")
    return True, f"seed(s) {', '.join(str(p.seed) for p in probes)}: a valid, different answer each"


def check_threshold(threshold: Threshold, metrics: Mapping[str, object]) -> tuple[bool, str]:
    """Whether ``threshold`` holds on the reported metric (a metric not reported as a number cannot be verified)."""
    value = _number(metrics.get(threshold.metric))
    if value is None:
        return False, f"harness cannot verify {threshold}: the evaluator reported no numeric {threshold.metric}"
    return threshold.holds(value), f"{threshold.metric} = {value:g}, needs {threshold}"


def adjudicate(rubric: Rubric, *, evaluation_ok: bool, correct: bool, metrics: Mapping[str, object],
               sources: Mapping[str, str], probes: Sequence[Probe] | None = None) -> RubricStatus:
    """Adjudicate one rubric (the layers of the module docstring).

    Args:
        evaluation_ok: the program and the evaluator exited 0 and the evaluator's output was valid.
        correct: the evaluator's correctness flag.
        metrics: the evaluator's metrics.
        sources: the candidate's source files, ``{relative path: text}``.
        probes: the perturbed runs of a rubric with ``perturb`` (None: not made).
    """
    rid = rubric.id
    if not evaluation_ok:
        return RubricStatus(rid, False, FAILED_EVALUATION)
    if not correct:
        return RubricStatus(rid, False, FAILED_ACCEPTANCE)
    passed: list[str] = []
    if rubric.source_contains:
        ok, why = check_sources(rubric.source_contains, code_of(sources))
        if not ok:
            return RubricStatus(rid, False, why)
        passed.append(why)
    if rubric.perturb is not None:
        ok, why = check_probes(probes)
        if not ok:
            return RubricStatus(rid, False, why)
        passed.append(why)
    threshold = parse_threshold(rubric.text, metrics)
    if threshold is None:
        if rubric.perturb is not None:
            return RubricStatus(rid, True, "; ".join(passed))
        return RubricStatus(rid, False, SOURCE_ONLY if rubric.source_contains else NO_THRESHOLD)
    ok, why = check_threshold(threshold, metrics)
    return RubricStatus(rid, ok, "; ".join([*passed, why]) if ok else why)
