"""The claim-to-source check of the final overview: deterministic, no LLM (issue 14; seed 002 "grounded
writing": every claim resolves to a staged source, checked by script; "unverifiable never becomes true").

A *claim* is a substantive sentence (at least :data:`MIN_WORDS` words) of the "Main research directions"
section; headings are not claims. Each claim is checked:

1. it cites at least one ``[H-…]`` id, and every id it cites exists;
2. it cites no hypothesis whose latest review verdict demotes it (``disproved``, ``already_explained``): those
   belong under caveats, never in a main direction;
3. every source label it cites (``[S3]``) exists and is a verified source of one of the hypotheses it cites;
4. every number, gene-like symbol, known entity (drug, gene, cell type: the session's hypothesis entities) and
   quoted title in the sentence occurs in the text of what it cites (the cited hypotheses' fields and the
   cited sources' titles, excerpts and record texts), compared after :func:`~cosci.grounding.excerpts.normalise`.

:func:`check_overview` returns the claim map; :func:`mark_unsupported` appends ``[unsupported]`` to the
claims that fail.
"""

from __future__ import annotations

import re
from dataclasses import asdict, dataclass, field

from cosci.grounding.tokens import normalise as token_normalise

MIN_WORDS = 5
DEMOTING = ("disproved", "already_explained")
"""Verdicts that keep a hypothesis out of the main directions (issue 14)."""
UNSUPPORTED = "[unsupported]"

_HEADING = re.compile(r"^\s{0,3}(#{1,6})\s+(.*)$")
_H_BRACKET = re.compile(r"\[\s*(H-[\w-]+(?:\s*[,;]\s*H-[\w-]+)*)\s*\]")
_S_BRACKET = re.compile(r"\[\s*(S\d+(?:\s*[,;]\s*S\d+)*)\s*\]")
_ID = re.compile(r"H-[\w-]+")
_LABEL = re.compile(r"S\d+")
_SENTENCE = re.compile(r"(?<=[.!?])\s+(?=[A-Z\[(\"“])")
_NUMBER = re.compile(r"(?<![\w.-])\d+(?:[.,]\d+)?(?:\s?%)?(?![\w])")
_SYMBOL = re.compile(r"\b[A-Z][A-Za-z0-9]*\d[A-Za-z0-9]*(?:-[A-Za-z0-9]+)*\b")
_QUOTED = re.compile(r"[\"“]([^\"”]{12,200})[\"”]")
_BULLET = re.compile(r"^\s*(?:[-*+]|\d+[.)])\s+")


@dataclass
class CitableSource:
    """A verified source the overview may cite by ``label`` (``S1``...)."""

    label: str
    source_id: str
    url: str
    title: str
    text: str
    hypothesis_ids: set[str] = field(default_factory=set)


@dataclass
class ClaimContext:
    """What claims may cite: hypothesis texts by id, their latest verdicts, the citable sources by label, and
    the session's entity vocabulary (lower-cased)."""

    hypotheses: dict[str, str]
    verdicts: dict[str, str]
    sources: dict[str, CitableSource]
    entities: set[str]


@dataclass
class Claim:
    """One checked claim (a row of ``final/claims.json``)."""

    claim: str
    hypothesis_ids: list[str]
    sources: list[dict[str, str]]
    status: str
    problems: list[str]
    offset: int = -1
    """Where the sentence ends in the overview it was read from (not in ``claims.json``)."""

    def to_dict(self) -> dict[str, object]:
        out = asdict(self)
        out.pop("offset")
        return out


def section(markdown: str, title: str) -> tuple[int, int]:
    """Character span ``(start, end)`` of the body under the heading starting with ``title`` (case-insensitive),
    up to the next heading of the same or a higher level; ``(0, 0)`` when absent."""
    lines = markdown.splitlines(keepends=True)
    pos, start, level = 0, -1, 0
    for line in lines:
        m = _HEADING.match(line)
        if m and start < 0 and m.group(2).strip().lower().startswith(title):
            start, level = pos + len(line), len(m.group(1))
        elif m and start >= 0 and len(m.group(1)) <= level:
            return start, pos
        pos += len(line)
    return (start, pos) if start >= 0 else (0, 0)


def claims_in(markdown: str) -> list[tuple[str, list[str], int]]:
    """The substantive sentences of "Main research directions", exactly as written, each with the ``[H-…]`` ids
    of its line (a sentence citing none inherits its bullet's or paragraph line's) and its end offset in
    ``markdown``."""
    start, end = section(markdown, "main research directions")
    found: list[tuple[str, list[str], int]] = []
    pos = start
    for line in markdown[start:end].splitlines(keepends=True):
        line_start, pos = pos, pos + len(line)
        if not line.strip() or _HEADING.match(line):
            continue
        line_ids = _ids(line)
        cursor = line_start
        for sentence in _SENTENCE.split(_BULLET.sub("", line).strip()):
            at = markdown.index(sentence, cursor)
            cursor = at + len(sentence)
            plain = _S_BRACKET.sub("", _H_BRACKET.sub("", sentence))
            if len(re.findall(r"[A-Za-z]{2,}", plain)) >= MIN_WORDS:
                found.append((sentence.strip(), _ids(sentence) or line_ids, cursor))
    return found


def _ids(text: str) -> list[str]:
    return list(dict.fromkeys(i for m in _H_BRACKET.finditer(text) for i in _ID.findall(m.group(1))))


def normalise(text: str) -> str:
    """Text for term checks: :func:`cosci.grounding.tokens.normalise` (``1-10`` stays two numbers)."""
    return token_normalise(text)


def occurs(term: str, haystack: str) -> bool:
    """Whether ``term`` occurs in the normalised ``haystack`` as a whole token (not inside a longer one)."""
    t = normalise(term)
    return bool(t) and re.search(rf"(?<![\w.]){re.escape(t)}(?!\w)", haystack) is not None


def terms(sentence: str, entities: set[str]) -> list[str]:
    """Numbers, gene-like symbols, known entities and quoted titles a sentence states."""
    plain = _S_BRACKET.sub(" ", _H_BRACKET.sub(" ", sentence))
    found = [m.group(0).strip() for m in _NUMBER.finditer(plain)]
    found += [m.group(0) for m in _SYMBOL.finditer(plain)]
    low = normalise(plain)
    found += sorted(e for e in entities if len(e) > 3 and re.search(rf"(?<!\w){re.escape(e)}(?!\w)", low))
    found += [m.group(1) for m in _QUOTED.finditer(plain)]
    return list(dict.fromkeys(found))


def check_claim(sentence: str, ctx: ClaimContext, ids: list[str] | None = None, offset: int = -1) -> Claim:
    """Check one claim (see module docstring) and return it with its status and problems; ``ids`` are the
    hypotheses it cites (default: those in the sentence), ``offset`` where it ends in the overview."""
    ids = _ids(sentence) if ids is None else ids
    labels = list(dict.fromkeys(s for m in _S_BRACKET.finditer(sentence) for s in _LABEL.findall(m.group(1))))
    problems: list[str] = []
    if not ids:
        problems.append("cites no hypothesis")
    for hid in ids:
        if hid not in ctx.hypotheses:
            problems.append(f"unknown hypothesis id {hid}")
        elif ctx.verdicts.get(hid) in DEMOTING:
            problems.append(f"{hid}'s latest review verdict is {ctx.verdicts[hid]}: not a main direction")
    cited: list[CitableSource] = []
    for label in labels:
        src = ctx.sources.get(label)
        if src is None:
            problems.append(f"unknown source {label}")
        elif not src.hypothesis_ids & set(ids):
            problems.append(f"source {label} is not a verified source of the hypotheses this sentence cites")
        else:
            cited.append(src)
    texts = [ctx.hypotheses[i] for i in ids if i in ctx.hypotheses]
    texts += [f"{s.title}\n{s.text}" for s in cited]
    haystack = normalise("\n".join(texts))
    missing = [t for t in terms(sentence, ctx.entities) if not occurs(t, haystack)]
    problems += [f"'{t}' is not in the cited record text" for t in missing]
    sources = [{"label": s.label, "source_id": s.source_id, "url": s.url} for s in cited]
    return Claim(sentence, ids, sources, "unsupported" if problems else "supported", problems, offset)


def check_overview(markdown: str, ctx: ClaimContext) -> list[Claim]:
    """The claim map of an overview: every claim of "Main research directions", checked."""
    return [check_claim(s, ctx, ids, end) for s, ids, end in claims_in(markdown)]


def mark_unsupported(markdown: str, claims: list[Claim]) -> str:
    """``markdown`` (the text ``claims`` were read from) with :data:`UNSUPPORTED` after each unsupported claim."""
    for c in sorted(claims, key=lambda c: -c.offset):
        if c.status == "unsupported" and 0 <= c.offset <= len(markdown):
            markdown = f"{markdown[:c.offset]} {UNSUPPORTED}{markdown[c.offset:]}"
    return markdown


def repair_list(claims: list[Claim]) -> list[str]:
    """One line per failing claim: the sentence and what is wrong with it (sent back to the writer once)."""
    return [f"\"{c.claim}\" — {'; '.join(c.problems)}" for c in claims if c.status == "unsupported"]


def totals(claims: list[Claim]) -> dict[str, int]:
    """``claims_total`` / ``claims_supported`` / ``claims_unsupported`` (MLflow metrics, claims.json)."""
    bad = sum(1 for c in claims if c.status == "unsupported")
    return {"claims_total": len(claims), "claims_supported": len(claims) - bad, "claims_unsupported": bad}
