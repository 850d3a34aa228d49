"""What the final overview is written from and checked against (design.md#grounding), for
:mod:`cosci.agents.metareview`.

- The top hypotheses are split by their latest review verdict: a ``disproved`` or ``already_explained``
  hypothesis goes to the caveats, never to the main directions (:func:`split_by_verdict`).
- Each hypothesis is shown with its latest verdict and scores and its *verified* sources (citations and review
  evidence whose excerpt was found in the tool text), labelled ``S1``, ``S2``… (:class:`OverviewMaterial`).
- The same material is the :class:`~cosci.grounding.claims.ClaimContext` the validator checks claims against:
  a hypothesis's text is its fields, its stored facts (Elo, matches, mode) and its reviews; a source's text
  is its title, its verified excerpts and the text a tool returned for it (events ``sources_found``).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from itertools import pairwise
from typing import Any

from cosci import domain
from cosci.domain import Hypothesis, Review
from cosci.grounding.claims import DEMOTING, CitableSource, ClaimContext, section
from cosci.grounding.evidence import rests_on_withdrawn, withdrawn
from cosci.safety.quoting import quote_untrusted
from cosci.store import SessionStore

_HEADING2 = re.compile(r"^\s{0,3}##\s+", re.M)
_IDS = re.compile(r"H-[0-9a-f]{12}")


def latest_reviews(store: SessionStore, hyps: list[Hypothesis]) -> dict[str, Review | None]:
    """The newest review of each hypothesis (None when it has none)."""
    return {h.id: next(iter(store.hypotheses.reviews(h.id, limit=1)), None) for h in hyps}


def split_by_verdict(top: list[Hypothesis], latest: dict[str, Review | None]) -> tuple[list[Hypothesis],
                                                                                        list[Hypothesis]]:
    """``(main, caveats)``: caveats are those whose latest verdict is in :data:`DEMOTING` (order kept)."""
    demoted = [h for h in top if (r := latest.get(h.id)) is not None and r.verdict in DEMOTING]
    return [h for h in top if h not in demoted], demoted


def review_line(review: Review | None) -> str:
    """``missing_piece (novelty 0.80, correctness 0.60)`` or ``not reviewed``."""
    if review is None:
        return "not reviewed"
    scores = ", ".join(f"{k} {v:.2f}" for k, v in review.scores.items() if v is not None)
    return f"{review.verdict}" + (f" ({scores})" if scores else "")


@dataclass
class OverviewMaterial:
    """The hypotheses, their latest reviews and verified sources, as prompt blocks and as a claim context."""

    store: SessionStore
    hyps: list[Hypothesis]
    latest: dict[str, Review | None]
    sources: dict[str, CitableSource] = field(default_factory=dict)
    retracted: dict[str, list[dict[str, Any]]] = field(default_factory=dict)
    """Hypothesis id -> its citations and review evidence whose source is retracted or a retraction notice: never a
    citable source of the overview (design.md#retractions)."""

    def __post_init__(self) -> None:
        found = self._records()
        by_id: dict[str, CitableSource] = {}
        for h in self.hyps:
            items = [c for c in h.citations if c.get("status") == "verified"]
            for r in self.store.hypotheses.reviews(h.id):
                items += [e for e in r.evidence if e.get("status") == "verified"]
            if withdrawn_items := [i for i in items if withdrawn(i)]:
                self.retracted[h.id] = withdrawn_items
            for item in (i for i in items if not withdrawn(i)):
                sid = str(item.get("source_id") or item.get("url"))
                if sid not in by_id:
                    title, text, tool = found.get(sid, ("", "", ""))
                    by_id[sid] = CitableSource(f"S{len(by_id) + 1}", sid, str(item.get("url", "")),
                                               str(item.get("title", "")) or title, text, tool=tool)
                src = by_id[sid]
                src.hypothesis_ids.add(h.id)
                if (excerpt := str(item.get("excerpt") or "").strip()) and excerpt not in src.excerpts:
                    src.excerpts.append(excerpt)
        self.sources = {s.label: s for s in by_id.values()}

    def _records(self) -> dict[str, tuple[str, str, str]]:
        """``source_id -> (title, text, tool)`` of every record a tool returned in the session."""
        out: dict[str, tuple[str, str, str]] = {}
        for e in self.store.logs.events("sources_found"):
            for r in e["payload"].get("records", []):
                key = (r.get("ids") or [r.get("url", "")])[0]
                out.setdefault(key, (str(r.get("title", "")), str(r.get("text", "")), str(r.get("tool", ""))))
        return out

    def retraction_summary(self) -> dict[str, Any]:
        """For the claim map: the retracted sources per hypothesis, and the latest reviews whose main evidence is
        retracted (design.md#retractions)."""
        sources = [{"hypothesis_id": hid, "url": i.get("url"), "source_id": i.get("source_id"),
                    "retraction": i.get("retraction"), "notice": i.get("retraction_notice")}
                   for hid, items in self.retracted.items() for i in items]
        reviews = [{"hypothesis_id": hid, "review_id": r.id} for hid, r in self.latest.items()
                   if r is not None and rests_on_withdrawn(r.evidence)]
        return {"retracted_sources": sources, "reviews_on_retracted_evidence": reviews}

    def labels_of(self, hid: str) -> list[CitableSource]:
        return [s for s in self.sources.values() if hid in s.hypothesis_ids]

    def hypothesis_text(self, h: Hypothesis) -> str:
        """Everything a claim citing ``h`` may state: its fields, record facts and reviews."""
        reviews = "\n".join(r.brief() for r in self.store.hypotheses.reviews(h.id))
        return "\n".join([h.title, h.statement, h.mechanism, " ".join(h.entities), h.anticipated_outcomes,
                          h.novelty_argument, f"Elo {h.elo:.0f} after {h.matches_played} matches; mode "
                          f"{h.mode}. Latest review verdict: {review_line(self.latest.get(h.id))}.", reviews])

    def context(self, known: list[Hypothesis]) -> ClaimContext:
        """The validator's context: texts of every ``known`` hypothesis, the verdicts, the sources."""
        texts = {h.id: self.hypothesis_text(h) if h in self.hyps else f"{h.title}\n{h.statement}" for h in known}
        verdicts = {hid: r.verdict for hid, r in self.latest.items() if r is not None}
        entities = {e.lower() for h in known for e in h.entities if e.strip()}
        return ClaimContext(texts, verdicts, self.sources, entities)

    def block(self, h: Hypothesis, quoted: str, rationales: str) -> str:
        """One hypothesis for the prompt: quoted text, latest verdict and scores, latest review, sources."""
        review = self.latest.get(h.id)
        lines = [quoted, f"Latest review verdict and scores: {review_line(review)}"]
        if not h.grounded:
            lines.append(f"Grounding: {h.grounding_note}")
        if review is not None:
            lines.append("Latest review: " + quote_untrusted(review.brief(), f"review-{review.id}"))
            if rests_on_withdrawn(review.evidence):
                lines.append("Flag: the latest review's main evidence is retracted; do not rely on its verdict")
        if h.id in self.retracted:
            listed = "\n".join(f"{i.get('title') or i.get('url')} {i.get('url')} ({i.get('retraction_notice')})"
                               for i in self.retracted[h.id])
            lines.append("Retracted sources (never evidence, do not cite them as support):\n"
                         + quote_untrusted(listed, f"retracted-{h.id}"))
        sources = self.labels_of(h.id)
        if sources:
            listed = "\n".join(f"[{s.label}] {s.title or s.source_id} ({s.source_id}) {s.url}\n"
                               f"Verified excerpt: {s.excerpts[0] if s.excerpts else s.text[:300]}"
                               for s in sources)
            lines.append("Verified sources of this hypothesis:\n" + quote_untrusted(listed, f"sources-{h.id}"))
        if rationales:
            lines.append(f"Recent debate rationales:\n{quote_untrusted(rationales, 'rationales-' + h.id)}")
        return "\n".join(lines)


def annotate_directions(markdown: str, latest: dict[str, Review | None]) -> str:
    """After each ``##`` direction of the main research directions (``domain.OVERVIEW.directions``), a line
    from the store giving the latest verdict and scores of every hypothesis the direction cites (so each
    direction shows them)."""
    start, end = section(markdown, domain.OVERVIEW.directions.lower())
    body = markdown[start:end]
    heads = [m.start() for m in _HEADING2.finditer(body)]
    if not heads:
        return markdown
    parts, bounds = [body[: heads[0]]], [*heads, len(body)]
    for a, b in pairwise(bounds):
        chunk = body[a:b]
        ids = [i for i in dict.fromkeys(_IDS.findall(chunk)) if i in latest]
        if ids:
            note = "- Reviews (from the session store): " + "; ".join(f"[{i}] {review_line(latest[i])}" for i in ids)
            chunk = chunk.rstrip("\n") + "\n" + note + "\n\n"
        parts.append(chunk)
    return markdown[:start] + "".join(parts) + markdown[end:]
