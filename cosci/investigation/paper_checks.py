"""The deterministic checks of a written paper (docs/design.md#paper).

- **claims**: every sentence (title, abstract, sections) is a claim. A sentence that states a number or another
  checkable term (:func:`cosci.grounding.claims.terms`, the session overview's term extraction) must cite an
  evidence row or run fact (``[E3]``, ``[F1]``); each row it cites must exist; each number it states must equal a
  number of the cited rows rounded to the sentence's own precision (``2.15`` and ``2.1`` match ``2.1474``;
  ``2.16`` and ``2.2`` do not); each other term must occur in them. Statuses: ``traced`` (it states terms and
  all are in its cited rows), ``cited`` (it cites references only: the session's support check judged those
  sources against their hypothesis, not this sentence, so its support is ``unchecked``), ``plain`` (no checkable
  term, no citation), ``untraced`` (a problem above).
  Nothing is ever called supported.
- **citations**: every ``\\cite`` key of the LaTeX is in ``references.bib``.
- **figures**: every ``\\ref{fig:...}`` names a figure of the manifest whose file exists, and every
  ``\\includegraphics`` file exists.
- **length**: the body has at most ``paper.max_words`` words (the page limit, counted in words so it holds without
  a TeX engine).
- **compile**: the TeX engine builds the PDF; with none installed the check is ``skipped`` and says so.
- **pages**: the built PDF's body (pages before the appendix) has at most ``paper.max_pages`` pages
  (:func:`cosci.investigation.paper_latex.check_pages`); ``skipped`` when no PDF was built.
"""

from __future__ import annotations

import re
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from cosci.grounding.claims import normalise, occurs, terms
from cosci.investigation.paper_records import RecordPaper

ROWS = re.compile(r"\[\s*([EF]\d+(?:\s*[,;]\s*[EF]\d+)*)\s*\]")
CITE = re.compile(r"\[@([\w:.-]+)\]")
FIG = re.compile(r"\[fig:([\w-]+)\]")
NUMBER = re.compile(r"(?<![\w.\-])(?:-(?=\d))?\d+(?:\.\d+)?(?!\w)")


@dataclass
class Claim:
    """One row of ``claims_grounding.json``."""

    where: str
    sentence: str
    rows: list[str]
    citations: list[str]
    figures: list[str]
    status: str
    problems: list[str] = field(default_factory=list)

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


@dataclass
class Check:
    """One check's result: ``status`` ``pass``, ``fail`` or ``skipped`` (with ``failures`` saying why)."""

    name: str
    status: str
    failures: list[str] = field(default_factory=list)

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


def sentences(paper: RecordPaper) -> list[tuple[str, str]]:
    """``(where, sentence)`` of every claim of the paper, in reading order."""
    out = [("title", paper.title)] + [(f"abstract {i}", s) for i, s in enumerate(paper.abstract, 1)]
    for k, sec in enumerate(paper.sections, 1):
        out += [(f"section {k} ({sec.heading}) sentence {i}", s) for i, s in enumerate(sec.sentences, 1)]
    return [(w, s.strip()) for w, s in out if s.strip()]


def numbers(text: str) -> list[str]:
    return NUMBER.findall(text)


def matches(stated: str, row_numbers: list[float]) -> bool:
    """Whether the number ``stated`` equals one of ``row_numbers`` rounded to ``stated``'s decimals."""
    decimals = len(stated.split(".", 1)[1]) if "." in stated else 0
    value = float(stated)
    return any(abs(round(y, decimals) - value) < 0.5 * 10 ** -(decimals + 3) for y in row_numbers)


def check_claim(where: str, sentence: str, rows: dict[str, str]) -> Claim:
    """Check one sentence against the rows ``{label: text}`` (module docstring)."""
    labels = list(dict.fromkeys(x for m in ROWS.finditer(sentence) for x in re.findall(r"[EF]\d+", m.group(1))))
    cites, figs = list(dict.fromkeys(CITE.findall(sentence))), list(dict.fromkeys(FIG.findall(sentence)))
    plain = FIG.sub(" ", CITE.sub(" ", ROWS.sub(" ", sentence)))
    nums = numbers(plain)
    others = [t for t in terms(plain, set()) if not re.fullmatch(r"\d+(?:[.,]\d+)?(?:\s?%)?", t)]
    problems = [f"unknown evidence row {x}" for x in labels if x not in rows]
    if (nums or others) and not labels:
        problems.append("states " + ", ".join(repr(t) for t in [*nums, *others][:5]) + " but cites no evidence row")
    elif labels:
        cited = "\n".join(rows[x] for x in labels if x in rows)
        row_numbers = [float(n) for n in numbers(cited)]
        problems += [f"{n} matches no number of {', '.join(labels)} at its precision" for n in nums
                     if not matches(n, row_numbers)]
        problems += [f"{t!r} is not in {', '.join(labels)}" for t in others if not occurs(t, normalise(cited))]
    if problems:
        status = "untraced"
    elif nums or others:
        status = "traced"
    else:
        status = "cited" if cites else "plain"
    return Claim(where, sentence, labels, cites, figs, status, problems)


def check_claims(paper: RecordPaper, rows: dict[str, str]) -> tuple[list[Claim], Check]:
    claims = [check_claim(w, s, rows) for w, s in sentences(paper)]
    failures = [f"{c.where}: {'; '.join(c.problems)} -- \"{c.sentence[:160]}\"" for c in claims if c.problems]
    return claims, Check("claims", "fail" if failures else "pass", failures)


def check_citations(tex: str, keys: set[str]) -> Check:
    used = [k.strip() for m in re.finditer(r"\\cite\{([^}]*)\}", tex) for k in m.group(1).split(",")]
    dangling = list(dict.fromkeys(k for k in used if k not in keys))
    return Check("citations", "fail" if dangling else "pass",
                 [f"\\cite{{{k}}} resolves to no entry of references.bib" for k in dangling])


def check_figures(tex: str, manifest: dict[str, str], figures_dir: Path) -> Check:
    """``manifest``: figure id -> file name under ``figures_dir``."""
    failures = []
    for fid in dict.fromkeys(re.findall(r"\\ref\{fig:([^}]*)\}", tex)):
        if fid not in manifest:
            failures.append(f"figure fig:{fid} is referenced but is not in the figure manifest "
                            f"(figures: {', '.join(manifest) or 'none'})")
        elif not (figures_dir / manifest[fid]).is_file():
            failures.append(f"figure fig:{fid}: its file figures/{manifest[fid]} does not exist")
    for rel in dict.fromkeys(re.findall(r"\\includegraphics(?:\[[^]]*\])?\{([^}]*)\}", tex)):
        if not (figures_dir.parent / rel).is_file():
            failures.append(f"\\includegraphics{{{rel}}}: the file does not exist")
    return Check("figures", "fail" if failures else "pass", failures)


def check_length(paper: RecordPaper, max_words: int) -> Check:
    words = sum(len(s.split()) for _, s in sentences(paper))
    return Check("length", "fail" if words > max_words else "pass",
                 [f"the paper has {words} words, over paper.max_words ({max_words})"] if words > max_words else [])
