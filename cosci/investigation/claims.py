"""The claim-to-source check of an investigation's findings, deterministic (docs/design.md#evidence).

The same check the session overview uses (:mod:`cosci.grounding.claims`: its term extraction and whole-token
matching after normalisation), with evidence rows as the sources: a finding that states a number (or another
checkable term) must cite at least one evidence row (``[E3]``), every row it cites must exist, and every term it
states must occur in the text of the rows it cites. Anything else is ``unsupported``; unverifiable never becomes
true.
"""

from __future__ import annotations

import re
from dataclasses import asdict, dataclass

from cosci.grounding.claims import normalise, occurs, terms

UNSUPPORTED = "[unsupported]"
"""The mark after a finding that failed the check."""
ROW_LABEL = re.compile(r"\[\s*(E\d+(?:\s*[,;]\s*E\d+)*)\s*\]")


@dataclass
class Finding:
    """One checked finding (a row of ``claims.json``)."""

    claim: str
    rows: list[str]
    status: str
    problems: list[str]

    def to_dict(self) -> dict[str, object]:
        return asdict(self)


def check_finding(sentence: str, rows: dict[str, str]) -> Finding:
    """Check one sentence against the evidence rows ``{label: text}``."""
    labels = list(dict.fromkeys(x for m in ROW_LABEL.finditer(sentence) for x in re.findall(r"E\d+", m.group(1))))
    plain = re.sub(r"\bE\d+\b", " ", ROW_LABEL.sub(" ", sentence))  # row labels are citations, not terms
    stated = terms(plain, set())
    problems = [f"unknown evidence row {x}" for x in labels if x not in rows]
    if stated and not labels:
        problems.append("states " + ", ".join(repr(t) for t in stated[:5]) + " but cites no evidence row")
    haystack = normalise("\n".join(rows[x] for x in labels if x in rows))
    if labels:
        problems += [f"{t!r} is not in the cited row(s)" for t in stated if not occurs(t, haystack)]
    return Finding(sentence.strip(), labels, "unsupported" if problems else "supported", problems)


def check_findings(findings: list[str], rows: dict[str, str]) -> list[Finding]:
    return [check_finding(f, rows) for f in findings if f.strip()]


def marked(findings: list[Finding]) -> list[str]:
    """The findings as written, with :data:`UNSUPPORTED` after each that failed."""
    return [f.claim + (f" {UNSUPPORTED}" if f.status == "unsupported" else "") for f in findings]
