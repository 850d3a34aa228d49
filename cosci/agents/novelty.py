"""The nearest prior work of a hypothesis, found before its full review (``docs/design.md#prior-work``).

:class:`PriorWorkFinder` searches with queries built from the hypothesis (:func:`novelty_queries`: its statement,
then its title and mechanism, ``reflection.prior_work_queries`` of them) through every search whose hits are
articles that the reviewer may use, in the declared search order (:func:`cosci.literature.search_order`: the local
corpus first); a tool that is offline or fails answers an error, which is counted, not raised. The distinct records
found are ranked by their similarity to the hypothesis — the cosine of the session's embedder between the
hypothesis's dedup text and the record's title and text (the measure dedup uses; a hosted embedder's call is
admitted against proximity's share like dedup's), or, when that call is refused, rapidfuzz's ``token_set_ratio`` /
100 — and the ``reflection.prior_work_kept`` nearest are kept with a one-line reason: the similarity, whether it
reaches the embedder's calibrated near-duplicate threshold (design.md#dedup), and the content words the two share.

The full review then receives them as required reading and states whether the hypothesis differs from each
(``record_review.prior_work``); the records count as found by the review, so its evidence may cite them.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

import numpy as np
from rapidfuzz import fuzz

from cosci.agents.tool_loop import result_sources
from cosci.domain import Hypothesis, PriorWork
from cosci.literature import search_order
from cosci.llm.embeddings.embedder import Embedder
from cosci.llm.errors import BudgetExceeded
from cosci.text import clip
from cosci.tools.base import Source, Tool

QUERY_CHARS = 300
"""Characters of each novelty query."""
EMBED_CHARS = 2000
"""Characters of a record's text embedded for its similarity."""
SHARED_WORDS = 5
"""Shared content words named in a record's reason."""
_WORD = re.compile(r"[A-Za-z][A-Za-z0-9-]{3,}")
_COMMON = frozenset({"that", "this", "with", "from", "into", "than", "then", "they", "them", "their", "there",
                     "these", "those", "which", "while", "where", "were", "have", "been", "being", "such", "also",
                     "more", "most", "less", "only", "over", "under", "between", "within", "without", "about", "after",
                     "before", "other"})


def novelty_queries(h: Hypothesis, n: int) -> list[str]:
    """Up to ``n`` distinct queries: the statement, then the title with the mechanism (the title names the idea's
    terms, the mechanism how they connect), then the title with the first entities; each at most
    :data:`QUERY_CHARS`."""
    options = [h.statement, f"{h.title}. {h.mechanism}", f"{h.title} {' '.join(h.entities[:3])}"]
    queries = [" ".join(q.split())[:QUERY_CHARS] for q in options if q.strip()]
    return list(dict.fromkeys(queries))[:n]


def shared_words(a: str, b: str, k: int = SHARED_WORDS) -> list[str]:
    """Up to ``k`` words of at least four letters of ``a`` that ``b`` also has (case-folded), in ``a``'s order."""
    other = {w.lower() for w in _WORD.findall(b)}
    out = [w for w in dict.fromkeys(x.lower() for x in _WORD.findall(a)) if w in other and w not in _COMMON]
    return out[:k]


@dataclass
class Search:
    """What a novelty search did: its queries, the tools asked, those that answered an error (offline, rate limit),
    the records found and the measure used. Stored as the event ``prior_work_searched``."""

    queries: list[str] = field(default_factory=list)
    tools: list[str] = field(default_factory=list)
    errors: dict[str, str] = field(default_factory=dict)
    found: int = 0
    measure: str = ""

    def to_json(self) -> dict[str, Any]:
        return {"queries": self.queries, "tools": self.tools, "errors": self.errors, "found": self.found,
                "measure": self.measure}

    def line(self) -> str:
        """Why nothing was kept, in one line (the report shows it when a hypothesis has no prior work)."""
        if not self.tools:
            return "no literature search was available to the review"
        failed = f"; {', '.join(f'{t}: {e}' for t, e in self.errors.items())}" if self.errors else ""
        return f"{self.found} record(s) found by {', '.join(self.tools)}{failed}"


class PriorWorkFinder:
    """The novelty search of one hypothesis (module docstring), with the reviewer's tools and the session embedder;
    ``threshold``: the embedder's near-duplicate cosine (design.md#dedup)."""

    def __init__(self, tools: Mapping[str, Tool], embedder: Embedder, *, queries: int, results: int, kept: int,
                 threshold: float) -> None:
        self.tools, self.embedder = tools, embedder
        self.n_queries, self.results, self.kept, self.threshold = queries, results, kept, threshold

    async def find(self, h: Hypothesis, task_id: str | None) -> tuple[list[PriorWork], list[Source], Search]:
        """``(nearest records, every record found, what was searched)``; never raises for a tool's failure.

        Raises:
            BudgetBusy: propagated from the embedder (the task runner waits, design.md#budget).
        """
        search = Search(queries=novelty_queries(h, self.n_queries))
        names = [n for n in search_order(articles=True) if n in self.tools] if search.queries else []
        search.tools = names
        found: dict[str, Source] = {}
        for name in names:
            for query in search.queries:
                result = await self.tools[name]({"query": query, "max_results": self.results})
                if result.is_error:
                    search.errors.setdefault(name, clip(result.text, 160))  # at a word boundary
                    continue
                for r in result_sources(result, name):
                    found.setdefault(r.source_id, r)
        records = list(found.values())
        search.found = len(records)
        if not records:
            return [], [], search
        sims, search.measure = await self._similarities(h, records, task_id)
        order = sorted(range(len(records)), key=lambda i: (-sims[i], records[i].source_id))[: self.kept]
        nearest = [self._prior(h, rank, records[i], sims[i], search.measure) for rank, i in enumerate(order, 1)]
        return nearest, records, search

    async def _similarities(self, h: Hypothesis, records: list[Source],
                            task_id: str | None) -> tuple[list[float], str]:
        texts = [f"{r.title}. {r.text[:EMBED_CHARS]}" for r in records]
        try:
            vecs = await self.embedder.embed([h.embedding_text(), *texts], action="novelty", task_id=task_id)
        except BudgetExceeded:
            target = f"{h.title} {h.statement} {h.mechanism}"
            return [fuzz.token_set_ratio(target, t) / 100 for t in texts], "token_set_ratio"
        sims = np.asarray(vecs[1:]) @ np.asarray(vecs[0])
        return [round(float(s), 4) for s in sims], f"cosine:{self.embedder.model}"

    def _prior(self, h: Hypothesis, rank: int, r: Source, sim: float, measure: str) -> PriorWork:
        words = shared_words(f"{h.title} {h.statement} {h.mechanism}", f"{r.title} {r.text}")
        if measure.startswith("cosine"):
            side = "at or above" if sim >= self.threshold else "below"
            near = f"{side} the near-duplicate threshold {self.threshold:.2f}"
        else:
            near = "embedding refused by the budget: word overlap"
        reason = f"similarity {sim:.2f} ({near}); shares: {', '.join(words) if words else 'no content word'}"
        return PriorWork(hypothesis_id=h.id, rank=rank, source_id=r.source_id, url=r.url, title=r.title,
                         text=r.text, tool=r.tool, ids=list(r.ids), similarity=round(sim, 4), measure=measure,
                         reason=reason)


def as_source(p: PriorWork) -> Source:
    """The stored record as the tool returned it (so a review may cite it)."""
    return Source(url=p.url, text=p.text, title=p.title, ids=tuple(p.ids), tool=p.tool)
