"""What the paper may state, gathered before any model call (docs/design.md#paper): the evidence rows of the run
(``E1``... as ``report.md`` has them), the run facts (``F1``...: workers, cycles, gates, the selected program, cost,
from ``summary.json``), the references (the seeded session hypotheses' verified, not retracted citations, as
BibTeX) and the figures, plotted from the evidence with matplotlib and listed in ``figures.json``.
"""

from __future__ import annotations

import json
import re
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from cosci.domain import evidence_interval_label
from cosci.investigation.report import fmt

MEAN_ROW = re.compile(r"^(?P<name>.+?): mean (?P<metric>\S+) (?P<mean>-?[\d.]+), (?:\d+ % interval "
                      r"\[(?P<low>-?[\d.]+), (?P<high>-?[\d.]+)\]|no interval \(one seed\)), n = (?P<n>\d+)")
GAIN_ROW = re.compile(r"^gain of (?P<name>.+?): (?P<mean>-?[\d.]+), (?:\d+ % interval "
                      r"\[(?P<low>-?[\d.]+), (?P<high>-?[\d.]+)\]|no interval \(one seed\)), n = (?P<n>\d+)")


@dataclass(frozen=True)
class Point:
    """A number of one evidence row: ``kind`` ``mean`` or ``gain``; ``low``/``high`` None without an interval."""

    label: str
    kind: str
    name: str
    mean: float
    low: float | None
    high: float | None


def parse_row(label: str, text: str) -> Point | None:
    """The mean or gain of an evidence row written by :func:`cosci.investigation.report.evidence_rows`; None for a
    row of another shape."""
    for kind, pattern in (("gain", GAIN_ROW), ("mean", MEAN_ROW)):
        if m := pattern.match(text):
            low, high = m.group("low"), m.group("high")
            return Point(label, kind, m.group("name"), float(m.group("mean")), None if low is None else float(low),
                         None if high is None else float(high))
    return None


LEVEL = re.compile(r", (?P<level>\d+) % interval \[")


def interval_name(rows: dict[str, str]) -> str:
    """The name of the evidence rows' intervals (:func:`cosci.domain.evidence_interval_label` at the level the rows
    print), for the paper's figure captions; ``"no interval (one seed)"`` when no row has one (the rows' own
    wording)."""
    levels = sorted({int(m.group("level")) for text in rows.values() if (m := LEVEL.search(text))})
    return evidence_interval_label(levels[0] / 100) if levels else "no interval (one seed)"


def run_facts(summary: dict[str, Any]) -> dict[str, str]:
    """``F1``...: the run's own record (what was done, not a finding), each a sentence with its numbers; the last
    says which designed baselines and ablations ran and why the others did not (docs/design.md#evidence)."""
    sel, gates = summary["selected"], summary.get("gates") or {}
    facts = [f"{summary['workers']} worker(s) x {summary['cycles']} cycle(s) each; {summary['cycles_run']} cycles "
             f"run; isolation {summary.get('isolation')}",
             "gate outcomes per cycle: " + "; ".join(f"{k}: {v}" for k, v in gates.items()),
             f"selected program: {sel['label']}, search score {fmt(sel['score'])}; the initial program's search "
             f"score {fmt(summary.get('initial_score'))}",
             f"cost of the investigation's model calls: {summary.get('cost_usd', 0.0):.4f} USD"]
    if designs := summary.get("designed"):
        run = [d for d in designs if d.get("program")]
        facts.append(f"designed evidence: {len(designs)} baseline/ablation proposal(s) from the code diff; "
                     f"{len(run)} passed the filter and the script's checks and ran over the evidence seeds ("
                     + "; ".join(f"{d['kind']} '{d['title']}'" for d in run) + "); not run: "
                     + ("; ".join(f"{d['kind']} '{d['title']}' ({d['note']})" for d in designs
                                  if not d.get("program")) or "none"))
    return {f"F{i}": text for i, text in enumerate(facts, 1)}


def evidence(run_root: Path) -> tuple[dict[str, str], dict[str, str], dict[str, Any]]:
    """``(rows, facts, summary)`` of a finished run.

    Raises:
        FileNotFoundError: the run has no ``summary.json`` (not finished).
    """
    summary = json.loads((run_root / "summary.json").read_text(encoding="utf-8"))
    rows = {r["label"]: r["text"] for r in summary.get("evidence") or []}
    return rows, run_facts(summary), summary


# --- references -------------------------------------------------------------------------------------------
@dataclass
class Reference:
    key: str
    title: str
    url: str
    year: int | None = None
    doi: str | None = None
    support: str | None = None
    hypotheses: list[str] = field(default_factory=list)

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


def references(citations: list[tuple[str, dict[str, Any]]]) -> list[Reference]:
    """One reference per distinct URL among ``(hypothesis id, citation dict)``: verified, not retracted ones only
    (a misquoted or withdrawn source is no reference). Keys are ``<first title word><year>`` (``a``, ``b``... when
    taken)."""
    by_url: dict[str, Reference] = {}
    taken: set[str] = set()
    for hid, c in citations:
        if c.get("status") != "verified" or c.get("retraction") or not c.get("url"):
            continue
        if (ref := by_url.get(c["url"])) is not None:
            ref.hypotheses.append(hid)
            continue
        word = next((w for w in re.findall(r"[A-Za-z]{3,}", c.get("title") or "") ), "ref").lower()
        base = f"{word}{c.get('year') or ''}"
        key = next(k for k in (base, *(f"{base}{s}" for s in "abcdefghijklmnopqrstuvwxyz")) if k not in taken)
        taken.add(key)
        by_url[c["url"]] = Reference(key, c.get("title") or c["url"], c["url"], c.get("year"), c.get("doi"),
                                     c.get("support"), [hid])
    return list(by_url.values())


def session_citations(data_dir: Path, session: str | None, seeded: list[str]) -> list[tuple[str, dict[str, Any]]]:
    """The citations of the seeded hypotheses in their session's store ([] without a session)."""
    if not session or not seeded:
        return []
    from cosci.session.folder import SessionFolder

    with SessionFolder.existing(data_dir, session).store(read_only=True) as store:
        found = [(hid, store.hypotheses.get(hid)) for hid in seeded]
    return [(hid, c) for hid, h in found if h is not None for c in h.citations]


def bibtex(refs: list[Reference]) -> str:
    """``references.bib``: one ``@misc`` per reference (title, url, year, doi, and the session's support verdict as a
    note)."""
    out = []
    for r in refs:
        fields = [("title", "{" + tex_escape(r.title) + "}"), ("howpublished", "\\url{" + url_escape(r.url) + "}")]
        fields += [("year", str(r.year))] if r.year else []
        fields += [("doi", r.doi)] if r.doi else []
        fields.append(("note", f"cited by {', '.join(r.hypotheses)}; session support check: "
                               f"{r.support or 'unchecked'}"))
        out.append(f"@misc{{{r.key},\n" + ",\n".join(f"  {k} = {{{v}}}" for k, v in fields) + "\n}\n")
    return "\n".join(out)


TEX_SPECIAL = {"\\": r"\textbackslash{}", "{": r"\{", "}": r"\}", "$": r"\$", "&": r"\&", "#": r"\#", "_": r"\_",
               "%": r"\%", "~": r"\textasciitilde{}", "^": r"\textasciicircum{}"}


TEX_UNICODE = {"≥": r"$\geq$", "≤": r"$\leq$", "±": r"$\pm$", "×": r"$\times$", "−": "-", "→": r"$\to$",
               "≈": r"$\approx$", "≠": r"$\neq$", "∞": r"$\infty$", "°": r"$^\circ$", "µ": r"$\mu$",
               "α": r"$\alpha$", "β": r"$\beta$", "γ": r"$\gamma$", "δ": r"$\delta$", "ε": r"$\epsilon$",
               "λ": r"$\lambda$", "μ": r"$\mu$", "π": r"$\pi$", "σ": r"$\sigma$", "Δ": r"$\Delta$"}
"""Symbols pdflatex's default UTF-8 input does not set, written as math (accented Latin letters and typographic
quotes it sets itself)."""


TEX_UNSET = set("ÐðĐđŊŋÞþĄąĘęĮįŲųĦħĸĿŀŉŦŧſ")
"""Latin letters pdflatex's default (OT1) encoding cannot set: measured by compiling U+00C0-U+017F with TeX Live
2022 (Debian 12)."""
TEX_SET = {chr(c) for c in range(0xC0, 0x180)} - TEX_UNSET | set("–—‘’“”…")


def _char(ch: str) -> str:
    if ch in TEX_SPECIAL:
        return TEX_SPECIAL[ch]
    if ch in TEX_UNICODE:
        return TEX_UNICODE[ch]
    return ch if ch.isascii() or ch in TEX_SET else f"[U+{ord(ch):04X}]"


def tex_escape(text: str) -> str:
    """``text`` with LaTeX's special characters escaped (a model's text is never markup), the symbols of
    :data:`TEX_UNICODE` written as math, and any other character the engine cannot set (CJK, emoji, Cyrillic,
    the letters of :data:`TEX_UNSET`) written as its code point, ``[U+4E2D]``, so the paper compiles whatever
    the model wrote."""
    return "".join(_char(ch) for ch in text)


def url_escape(url: str) -> str:
    return re.sub(r"([%#{}\\])", r"\\\1", url)
