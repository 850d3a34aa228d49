"""The final overview's claims and what was checked about each (``docs/design.md#claim-statuses``).

A *claim* is a substantive sentence (at least :data:`MIN_WORDS` words) of the summary or the main research
directions (the checked headings of :data:`cosci.domain.OVERVIEW`); headings are not claims. Three checks, each
named by what it verifies:

1. **Trace** (deterministic, :func:`check_claim`): ``traceable`` when it cites at least one ``[H-…]`` id, every id
   it cites exists and (in a main direction) none is demoted by its latest review (``disproved``,
   ``already_explained``), every source
   label it cites (``[S3]``) is a verified source of one of those hypotheses, and every number, gene-like symbol,
   known entity and quoted title in it occurs in what it cites; else ``untraceable``, with the problems.
2. **Overclaim guards** (deterministic, :mod:`cosci.grounding.guards`): overclaiming phrases found in it.
3. **Support** (a model, :mod:`cosci.grounding.support`): for a traceable claim that cites a source, whether the
   cited sources' verified excerpts and record texts support it; a verdict that does not rest on a quote of
   those sources is ``unchecked``.

The status shown (:meth:`Claim.settle`), worst first: ``untraceable``; ``contradicted`` / ``not_supported`` (the
support check); ``overclaim`` (a guard hit, whatever the support check says: a supported claim that says
"proves" still overclaims); ``hypothesis_only`` (it cites hypotheses but no source: nothing outside the models'
own text backs it); ``unchecked`` (the support check could not answer); ``partially_supported``; ``supported``.
:func:`mark_statuses` writes the status after each claim in the overview.
"""

from __future__ import annotations

import re
from dataclasses import asdict, dataclass, field

from cosci import domain
from cosci.grounding.guards import Guards, is_trial
from cosci.grounding.tokens import normalise as token_normalise

MIN_WORDS = 5
DEMOTING = ("disproved", "already_explained")
"""Verdicts that keep a hypothesis out of the main directions."""
STATUSES = ("untraceable", "contradicted", "not_supported", "overclaim", "hypothesis_only", "unchecked",
            "partially_supported", "supported")
"""Claim statuses, worst first (see module docstring)."""
SUPPORT_VERDICTS = ("supported", "partially_supported", "not_supported", "contradicted")

_HEADING = re.compile(r"^\s{0,3}(#{1,6})\s+(.*)$")
_H_BRACKET = re.compile(r"\[\s*(H-[\w-]+(?:\s*[,;]\s*H-[\w-]+)*)\s*\]")
_S_BRACKET = re.compile(r"\[\s*(S\d+(?:\s*[,;]\s*S\d+)*)\s*\]")
_ID = re.compile(r"H-[\w-]+")
_LABEL = re.compile(r"S\d+")
_SENTENCE = re.compile(r"(?<=[.!?])\s+(?=[A-Z\[(\"“])")
_NUMBER = re.compile(r"(?<![\w.-])\d+(?:[.,]\d+)?(?:\s?%)?(?![\w])")
_SYMBOL = re.compile(r"\b[A-Z][A-Za-z0-9]*\d[A-Za-z0-9]*(?:-[A-Za-z0-9]+)*\b")
_QUOTED = re.compile(r"[\"“]([^\"”]{12,200})[\"”]")
STORE_NOTE = "From the session store:"
"""The opening of a line cosci writes from its own records (Elo, review verdicts, what was done): a fact of the
session, not a claim about the world, so never checked as one (design.md#claim-statuses)."""
STORE_NOTES = (STORE_NOTE, "Reviews (from the session store):")
_BULLET = re.compile(r"^\s*(?:[-*+]|\d+[.)])\s+")
_MARK = re.compile(rf"\s\[(?:{'|'.join(STATUSES)})\]")


@dataclass
class CitableSource:
    """A verified source the overview may cite by ``label`` (``S1``...): its verified excerpts and record text."""

    label: str
    source_id: str
    url: str
    title: str
    text: str
    hypothesis_ids: set[str] = field(default_factory=set)
    excerpts: list[str] = field(default_factory=list)
    tool: str = ""

    @property
    def trial(self) -> bool:
        return is_trial(self.title, self.text, self.tool)


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
    """One claim and its checks (a row of ``final/claims.json``)."""

    claim: str
    section: str
    hypothesis_ids: list[str]
    sources: list[dict[str, str]]
    trace: str
    problems: list[str]
    overclaim: list[str] = field(default_factory=list)
    support: str = ""
    """The support check's verdict (``SUPPORT_VERDICTS``), ``unchecked``, or "" when it did not apply."""
    relied_on: str = ""
    support_note: str = ""
    status: str = ""
    offset: int = -1
    """Where the sentence ends in the overview it was read from (not in ``claims.json``)."""

    @property
    def labels(self) -> list[str]:
        return [s["label"] for s in self.sources]

    @property
    def checkable(self) -> bool:
        """Whether the support check applies: traceable and citing at least one source."""
        return self.trace == "traceable" and bool(self.sources)

    def settle(self) -> Claim:
        """Set :attr:`status` from the checks (see module docstring)."""
        if self.trace == "untraceable":
            self.status = "untraceable"
        elif self.support in ("contradicted", "not_supported"):
            self.status = self.support
        elif self.overclaim:
            self.status = "overclaim"
        elif not self.sources:
            self.status = "hypothesis_only"
        else:
            self.status = self.support if self.support in SUPPORT_VERDICTS else "unchecked"
        return self

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


def claims_in(markdown: str) -> list[tuple[str, list[str], int, str]]:
    """The substantive sentences of the checked sections, exactly as written, each with the ``[H-…]`` ids of
    its line (a sentence citing none inherits its bullet's or paragraph line's), its end offset in ``markdown``
    and its section."""
    found: list[tuple[str, list[str], int, str]] = []
    for title in (h.lower() for h in domain.OVERVIEW.checked):
        start, end = section(markdown, title)
        pos = start
        for line in markdown[start:end].splitlines(keepends=True):
            line_start, pos = pos, pos + len(line)
            if not line.strip() or _HEADING.match(line) or _BULLET.sub("", line).strip().startswith(STORE_NOTES):
                continue
            line_ids, cursor = _ids(line), line_start
            for sentence in _SENTENCE.split(_BULLET.sub("", line).strip()):
                at = markdown.index(sentence, cursor)
                cursor = at + len(sentence)
                plain = _S_BRACKET.sub("", _H_BRACKET.sub("", sentence))
                if len(re.findall(r"[A-Za-z]{2,}", plain)) >= MIN_WORDS:
                    found.append((sentence.strip(), _ids(sentence) or line_ids, cursor, title))
    return found


def _ids(text: str) -> list[str]:
    return list(dict.fromkeys(i for m in _H_BRACKET.finditer(text) for i in _ID.findall(m.group(1))))


def labels_in(sentence: str) -> list[str]:
    """The source labels a sentence cites (``[S1]``, ``[S2, S3]``)."""
    return list(dict.fromkeys(s for m in _S_BRACKET.finditer(sentence) for s in _LABEL.findall(m.group(1))))


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
    found += sorted(e for e in entities if len(e) > 3 and re.search(rf"(?<!\w){re.escape(normalise(e))}(?!\w)", low))
    found += [m.group(1) for m in _QUOTED.finditer(plain)]
    return list(dict.fromkeys(found))


def _trace(sentence: str, ctx: ClaimContext, ids: list[str],
           demoted_allowed: bool = False) -> tuple[list[str], list[CitableSource]]:
    problems: list[str] = []
    if not ids:
        problems.append("cites no hypothesis")
    for hid in ids:
        if hid not in ctx.hypotheses:
            problems.append(f"unknown hypothesis id {hid}")
        elif ctx.verdicts.get(hid) in DEMOTING and not demoted_allowed:
            problems.append(f"{hid}'s latest review verdict is {ctx.verdicts[hid]}: not a main direction")
    cited: list[CitableSource] = []
    for label in labels_in(sentence):
        src = ctx.sources.get(label)
        if src is None:
            problems.append(f"unknown source {label}")
        elif not src.hypothesis_ids & set(ids):
            problems.append(f"source {label} is not a verified source of the hypotheses this sentence cites")
        else:
            cited.append(src)
    texts = [ctx.hypotheses[i] for i in ids if i in ctx.hypotheses]
    texts += ["\n".join([s.title, *s.excerpts, s.text]) for s in cited]
    haystack = normalise("\n".join(texts))
    problems += [f"'{t}' is not in the cited record text" for t in terms(sentence, ctx.entities)
                 if not occurs(t, haystack)]
    return problems, cited


def check_claim(sentence: str, ctx: ClaimContext, ids: list[str] | None = None, offset: int = -1,
                guards: Guards | None = None, where: str | None = None) -> Claim:
    """Trace one claim and run the overclaim guards (see module docstring); ``ids`` are the hypotheses it cites
    (default: those in the sentence), ``offset`` where it ends in the overview, ``where`` its section's heading,
    lower case (default: the main research directions, ``domain.OVERVIEW.directions``)."""
    ids = _ids(sentence) if ids is None else ids
    directions = domain.OVERVIEW.directions.lower()
    where = directions if where is None else where
    problems, cited = _trace(sentence, ctx, ids, demoted_allowed=where != directions)
    hits = guards.hits(sentence, any(s.trial for s in cited)) if guards else []
    sources = [{"label": s.label, "source_id": s.source_id, "url": s.url} for s in cited]
    return Claim(sentence, where, ids, sources, "untraceable" if problems else "traceable", problems, hits,
                 offset=offset).settle()


def check_overview(markdown: str, ctx: ClaimContext, guards: Guards | None = None) -> list[Claim]:
    """The claim map of an overview: every claim of the checked sections, traced and guarded."""
    return [check_claim(s, ctx, ids, end, guards, where) for s, ids, end, where in claims_in(markdown)]


def mark_statuses(markdown: str, claims: list[Claim]) -> str:
    """``markdown`` (the text ``claims`` were read from) with ``[status]`` after each claim."""
    for c in sorted(claims, key=lambda c: -c.offset):
        if c.status and 0 <= c.offset <= len(markdown):
            markdown = f"{markdown[:c.offset]} [{c.status}]{markdown[c.offset:]}"
    return markdown


def unmarked(markdown: str) -> str:
    """``markdown`` without the status marks :func:`mark_statuses` wrote (what a blind reader gets)."""
    return _MARK.sub("", markdown)


def repair_list(claims: list[Claim]) -> list[str]:
    """One line per claim a script found wrong (untraceable or overclaiming): the sentence and what is wrong
    with it (sent back to the writer once)."""
    out = []
    for c in claims:
        problems = [*c.problems, *(f"overclaiming language '{h}'" for h in c.overclaim)]
        if problems:
            out.append(f"\"{c.claim}\" — {'; '.join(problems)}")
    return out


def totals(claims: list[Claim]) -> dict[str, int]:
    """``claims_total``, ``claims_traceable`` and ``claims_<status>`` for every status (MLflow, claims.json)."""
    out = {"claims_total": len(claims), "claims_traceable": sum(c.trace == "traceable" for c in claims)}
    out |= {f"claims_{s}": sum(c.status == s for c in claims) for s in STATUSES}
    return out
