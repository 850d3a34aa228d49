"""The article an observation review tests a hypothesis against: an independent
observation, not a confirmatory one (``docs/design.md#independent-observation-review``).

Chosen in this order, and the review records which case applied (``how``):

1. ``given`` — the task's payload ``article`` (title / abstract / url), when given;
2. ``independent`` — the first source of a search built from the hypothesis's predictions (its anticipated
   outcomes and first entities) over the searches whose hits are articles, in the declared search order
   (:func:`cosci.literature.search_order`: the local corpus, PubMed, Europe PMC, arXiv), that is
   *not* among the sources the hypothesis cites or its reviews cite as evidence
   (``reflection.observation_search_results`` sources asked of each search);
3. ``cited_fallback`` — only when no search found such a source: the most relevant source the hypothesis or its
   reviews cite — verified items first, then by rapidfuzz ``token_set_ratio`` (0-100) between the item's title
   and excerpt and the hypothesis's title and statement — read again through the literature tool that serves
   its identifier (PubMed efetch by PMID, Europe PMC by PMID / PMCID / DOI, arXiv by id, the local corpus by id
   or DOI); if no tool can read it, the text a tool returned for it earlier in the session (events
   ``sources_found``).

With none of these, the mode is skipped and :meth:`ArticleFinder.find` says why.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from rapidfuzz import fuzz

from cosci.agents.tool_loop import result_sources
from cosci.domain import Hypothesis
from cosci.literature import search_order
from cosci.store import SessionStore
from cosci.tools.base import Source, Tool
from cosci.tools.sources import citation_keys, source_keys

CITED_TRIED = 3
"""Cited sources tried, most relevant first, before falling back to a search."""
ARTICLE_CHARS = 12000
"""Characters of article text given to the prompt."""


@dataclass(frozen=True)
class Article:
    """The article's source and how it was chosen (``given`` | ``independent`` | ``cited_fallback``)."""

    source: Source
    how: str

    def to_json(self) -> dict[str, Any]:
        """Stored on the review row (``reviews.article``): title, abstract, url, source_id, how."""
        r = self.source
        return {"title": r.title, "abstract": r.text[:ARTICLE_CHARS], "url": r.url, "source_id": r.source_id,
                "how": self.how}

    def prompt_text(self) -> str:
        r = self.source
        lines = [f"Title: {r.title}" if r.title else "", f"Source: {r.source_id}",
                 f"URL: {r.url}" if r.url else "", f"Text: {r.text[:ARTICLE_CHARS]}"]
        return "\n".join(line for line in lines if line)


def given_article(payload: Any) -> Article | None:
    """The payload's article as an :class:`Article` (None unless it has a title or an abstract)."""
    if not isinstance(payload, dict) or not (payload.get("abstract") or payload.get("title")):
        return None
    url = str(payload.get("url", ""))
    keys = sorted(k for k in citation_keys(url) if "//" not in k) if url else []
    text = str(payload.get("abstract") or payload.get("title"))
    return Article(Source(url=url, text=text, title=str(payload.get("title", "")), ids=tuple(keys)), "given")


def prediction_query(h: Hypothesis) -> str:
    """A search built from what the hypothesis predicts (its anticipated outcomes, else its title) and its first
    entities, at most 300 characters."""
    return " ".join(" ".join([h.anticipated_outcomes or h.title, *h.entities[:3]]).split())[:300]


class ArticleFinder:
    """Finds the article for a hypothesis with the agent's tools and the session store; ``results``: sources
    asked of each search (``reflection.observation_search_results``)."""

    def __init__(self, tools: Mapping[str, Tool], store: SessionStore, results: int = 5) -> None:
        self.tools, self.store, self.results = tools, store, results

    async def find(self, h: Hypothesis, payload: Any = None) -> tuple[Article | None, str]:
        """The article and how it was chosen, or None and the reason (see module docstring)."""
        if (given := given_article(payload)) is not None:
            return given, "given"
        cited = self.cited(h)
        own = set().union(*(self._keys(item) for item in cited)) if cited else set()
        tried = []
        for name in search_order(articles=True):
            if name not in self.tools:
                continue
            tried.append(name)
            result = await self.tools[name]({"query": prediction_query(h), "max_results": self.results})
            outside = [r for r in result_sources(result, name) if not source_keys(r) & own]
            if outside:
                return Article(outside[0], "independent"), "independent"
        for item in cited[:CITED_TRIED]:
            rec = await self.read(self._keys(item))
            if rec is not None:
                return Article(rec, "cited_fallback"), "cited_fallback"
        searched = (f"no search returned a source the hypothesis does not cite ({', '.join(tried)})" if tried
                    else "no search tool is allowed")
        return None, f"no article: {searched}, and {len(cited)} cited source(s) could not be read"

    @staticmethod
    def _keys(item: dict[str, Any]) -> set[str]:
        return citation_keys(str(item.get("url", "")), item.get("doi")) | (
            {str(item["source_id"])} if item.get("source_id") else set())

    def cited(self, h: Hypothesis) -> list[dict[str, Any]]:
        """Cited sources of the hypothesis and its reviews: verified first, then by relevance."""
        items = [c for c in h.citations if c.get("url")]
        for review in self.store.hypotheses.reviews(h.id):
            items += [e for e in review.evidence if e.get("url")]
        target = f"{h.title} {h.statement}"

        def rank(item: dict[str, Any]) -> tuple[int, float]:
            about = f"{item.get('title', '')} {item.get('claim', '')} {item.get('excerpt', '')}"
            return (0 if item.get("status") == "verified" else 1, -fuzz.token_set_ratio(about, target))

        return sorted(items, key=rank)

    async def read(self, keys: set[str]) -> Source | None:
        """The source named by ``keys``: through a tool that reads it, else as a tool returned it earlier."""
        for key in sorted(k for k in keys if ":" in k and "//" not in k):
            for tool in self.tools.values():
                fetch = getattr(tool, "fetch", None)
                if fetch is not None and key.split(":", 1)[0] in getattr(tool, "fetch_kinds", ()):
                    rec = await fetch(key)
                    if rec is not None:
                        return rec
        for e in reversed(self.store.logs.events("sources_found")):
            for r in e["payload"].get("records", []):
                rec = Source(url=r["url"], text=r["text"], title=r.get("title", ""),
                                   ids=tuple(r.get("ids", ())), tool=r.get("tool", ""))
                if keys & source_keys(rec):
                    return rec
        return None
