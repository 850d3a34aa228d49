"""``cosci export <id> --format bibtex|ris``: the works a session's results rest on, for a reference manager
(design.md#reference-managers).

The works are those cited by the first :data:`TOP` hypotheses of the current standing (:mod:`cosci.store.standing`;
quarantined and out-of-ranking hypotheses are not exported) and those the final overview's claims cite (the latest
``overview_checked`` event's claim sources, looked up among every hypothesis's citations). Only citations cosci
kept are exported: each named a record a tool returned (``verified`` or ``misquoted``; an unseen URL was dropped
when the hypothesis was recorded, design.md#grounding). Citations of one paper — the same DOI, or the same URL
without its fragment — are one work; the pages cited (a corpus PDF's ``#page=N``) and the hypotheses citing it are
in its note. BibTeX is written by ``bibtexparser`` (v2), RIS by ``rispy``, so both read back with them.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import urlsplit

from cosci.grounding.report import checked_overview
from cosci.store import SessionStore
from cosci.store.standing import standing

TOP = 10
"""Hypotheses of the standing whose citations are exported (the leaderboard a reader looks at first)."""
KEPT = ("verified", "misquoted")
_PAGE = re.compile(r"#page=(\d+)$")


@dataclass
class Work:
    """One cited paper: its title, DOI (bare, "" when unknown), web URL ("" for a local file), year, the pages
    cited (1-based), and ``cited_by`` lines (``H-… (verified)``)."""

    title: str
    doi: str = ""
    url: str = ""
    year: int | None = None
    pages: list[int] = field(default_factory=list)
    cited_by: list[str] = field(default_factory=list)

    @property
    def key(self) -> str:
        """A citation key made from the DOI, else the URL or title (letters, digits and ``_``)."""
        base = self.doi or self.url or self.title or "work"
        return "cosci_" + re.sub(r"[^A-Za-z0-9]+", "_", base).strip("_")[:60]

    def note(self, session_id: str) -> str:
        pages = f"; pages cited: {', '.join(map(str, sorted(set(self.pages))))}" if self.pages else ""
        return f"cosci session {session_id}: cited by {', '.join(self.cited_by)}{pages}"


def _paper_key(citation: dict[str, Any]) -> str:
    doi = str(citation.get("doi") or "").strip().lower()
    if doi:
        return "doi:" + doi
    return "url:" + str(citation.get("url") or "").split("#", 1)[0].rstrip("/").lower()


def _citations(store: SessionStore, top: int) -> list[tuple[str, dict[str, Any]]]:
    """``(hypothesis id, citation)`` of the top hypotheses, then of the overview's claim sources."""
    by_id = {h.id: h for h in store.hypotheses.all()}
    current = standing(store)
    chosen = [(hid, c) for hid in current.ids(top) for c in by_id[hid].citations]
    ranked = {e.id for e in current.ranked}
    claims = (checked_overview(store) or {}).get("claims") or []
    sources = [s for c in claims for s in c.get("sources") or []]
    ids, urls = {s.get("source_id") for s in sources} - {None}, {s.get("url") for s in sources} - {None}
    for hid in (h for h in by_id if h in ranked):  # the overview cites ranked hypotheses' sources
        chosen += [(hid, c) for c in by_id[hid].citations if c.get("source_id") in ids or c.get("url") in urls]
    return [(hid, c) for hid, c in chosen if c.get("status") in KEPT and c.get("url")]


def works(store: SessionStore, top: int = TOP) -> list[Work]:
    """The works the session's results cite (see module docstring), in first-cited order."""
    out: dict[str, Work] = {}
    for hid, c in _citations(store, top):
        url = str(c["url"])
        web = url if urlsplit(url).scheme in ("http", "https") else ""
        work = out.setdefault(_paper_key(c), Work(title=str(c.get("title") or "").strip(),
                                                  doi=str(c.get("doi") or "").strip(), url=web,
                                                  year=c.get("year") if isinstance(c.get("year"), int) else None))
        if m := _PAGE.search(url):
            work.pages.append(int(m.group(1)))
        line = f"{hid} ({c.get('status')})"
        if line not in work.cited_by:
            work.cited_by.append(line)
    return list(out.values())


def bibtex(store: SessionStore) -> str:
    """:func:`works` as BibTeX ``@misc`` entries (title, doi, url, year, pages, note), written by bibtexparser."""
    import bibtexparser
    from bibtexparser.model import Entry, Field

    session_id = store.sessions.get().id
    library = bibtexparser.Library()
    for w in works(store):
        fields = [Field("title", "{" + w.title + "}" if w.title else "{Untitled}")]
        fields += [Field(k, v) for k, v in (("doi", w.doi), ("url", w.url)) if v]
        if w.year:
            fields.append(Field("year", str(w.year)))
        if w.pages:
            fields.append(Field("pages", ", ".join(map(str, sorted(set(w.pages))))))
        fields.append(Field("note", "{" + w.note(session_id) + "}"))
        library.add(Entry("misc", w.key, fields))
    return str(bibtexparser.write_string(library))


def ris(store: SessionStore) -> str:
    """:func:`works` as RIS records (``GEN``: TI, DO, UR, PY, SP, N1, ID), written by rispy."""
    import rispy

    session_id = store.sessions.get().id
    entries = []
    for w in works(store):
        entry: dict[str, Any] = {"type_of_reference": "GEN", "id": w.key, "title": w.title or "Untitled",
                                 "notes": [w.note(session_id)]}
        if w.doi:
            entry["doi"] = w.doi
        if w.url:
            entry["urls"] = [w.url]
        if w.year:
            entry["year"] = str(w.year)
        if w.pages:
            entry["start_page"] = str(min(w.pages))
        entries.append(entry)
    return str(rispy.dumps(entries))
