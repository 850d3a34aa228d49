"""The session's retraction check: each cited record looked up once in Crossref and Europe PMC
(design.md#retractions).

A search hit may already carry a flag (Europe PMC publication types, OpenAlex ``is_retracted``, Crossref update
notices). A citation's record is also checked, once per session and identifier, against Crossref's update
metadata (by DOI: ``updated-by``, ``update-to``, ``relation``; :func:`cosci.tools.crossref.updates_of`) and
Europe PMC's publication types (by PMID, PMCID or DOI; :func:`cosci.tools.europe_pmc.retraction_of`). Answers
are memoised by identifier (and the HTTP cache keeps the bodies, so a resumed session asks again without
sending). Offline, or when a source fails, that source says nothing: the flag is what the others said.
"""

from __future__ import annotations

import asyncio
from collections.abc import Iterable

from cosci.tools.base import stronger_flag
from cosci.tools.common import SearchTool

Flag = tuple[str, str]
"""``(flag, notice)``: a :data:`cosci.tools.base.RETRACTION_KINDS` value (or "") and where it comes from."""
NONE: Flag = ("", "")


class RetractionCheck:
    """Flags of identifiers, asked of Crossref (DOIs) and Europe PMC (PMIDs, PMCIDs, DOIs) once each.

    Args:
        checkers: the tools asked and the identifier kinds each reads, e.g.
            ``[(crossref_lookup, ("DOI",)), (europe_pmc_search, ("PMID", "PMCID", "DOI"))]``.
    """

    def __init__(self, checkers: Iterable[tuple[SearchTool, tuple[str, ...]]]) -> None:
        self.checkers = tuple(checkers)
        self._memo: dict[tuple[str, str], Flag] = {}
        self._lock = asyncio.Lock()
        self.lookups = 0
        """Lookups asked of the tools this session (a memoised answer is not asked again)."""

    async def _ask(self, tool: SearchTool, key: str) -> Flag:
        memo = (tool.name, key)
        async with self._lock:
            if memo in self._memo:
                return self._memo[memo]
        self.lookups += 1
        kind, _, value = key.partition(":")
        try:
            hit = await tool.lookup(kind, value) if not (tool.network and tool.offline) else None
        except Exception:  # a failed check says nothing (module docstring); it never fails the task
            hit = None
        found = (hit.retraction, hit.notice) if hit is not None and hit.retraction else NONE
        async with self._lock:
            self._memo[memo] = found
        return found

    async def flag(self, ids: Iterable[str]) -> Flag:
        """The strongest flag any checker gives any of ``ids`` (``"DOI:…"``, ``"PMID:…"``…), or ``("", "")``."""
        keys = list(dict.fromkeys(ids))
        asks = [(tool, key) for tool, kinds in self.checkers for key in keys if key.partition(":")[0] in kinds]
        best = NONE
        for found in await asyncio.gather(*(self._ask(t, k) for t, k in asks)):
            if found[0] and stronger_flag(found[0], best[0]) == found[0] and found[0] != best[0]:
                best = found
        return best
