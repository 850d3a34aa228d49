"""What a tool is, for the tool loop and the registry (design.md#tools).

A tool has a :class:`~cosci.llm.port.types.ToolSpec` (name, description, JSON-schema parameters the model sees) and
is awaited with the model's arguments. It returns a :class:`ToolResult` and never raises for an expected
failure (network down, rate limit, bad arguments): those come back as ``is_error=True`` results naming the
source, so the loop continues (design.md#tools). ``urls`` lists every URL the text contains; ``records`` lists the
records the tool returned (a search hit, a fetched page) with their own URL, identifiers and text: only those
are citation sources (design.md#grounding: a link printed inside a page is not a source). ``text`` is untrusted and is
quoted before the model sees it.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Protocol

from cosci.literature import RETRACTION_KINDS, WITHDRAWN
from cosci.llm.port.types import ToolSpec

__all__ = ["RETRACTION_KINDS", "WITHDRAWN", "Source", "Tool", "ToolResult", "stronger_flag"]



def stronger_flag(a: str, b: str) -> str:
    """The stronger of two retraction flags (:data:`RETRACTION_KINDS` order; "" is the weakest)."""
    rank = {k: i for i, k in enumerate(RETRACTION_KINDS)}
    return min((a, b), key=lambda k: rank.get(k, len(RETRACTION_KINDS)))


@dataclass(frozen=True)
class Source:
    """One record a tool returned: what a citation or an evidence item may point to (design.md#grounding).

    Attributes:
        url: the record's own URL (a PubMed / Europe PMC / arXiv landing page, a fetched page's URL).
        text: the record's text as the tool returned it (title, abstract or page text): excerpts are
            checked against it.
        title: the record's title ("" when unknown).
        ids: identifiers as ``"<kind>:<value>"`` (``PMID:…``, ``PMCID:PMC…``, ``DOI:…`` lower-cased,
            ``arXiv:…`` without version, ``corpus:…``).
        tool: the tool that returned it.
        retraction: what the literature says happened to it since (:data:`RETRACTION_KINDS`; "" when nothing is
            known): ``retracted`` (retracted or withdrawn), ``retraction_notice`` (the record is the notice that
            retracts another paper), ``corrected`` (a correction or erratum was published); design.md#retractions.
        notice: where that comes from, one line (``Crossref updated-by: retraction 10.x/y``).
    """

    url: str
    text: str
    title: str = ""
    ids: tuple[str, ...] = ()
    tool: str = ""
    retraction: str = ""
    notice: str = ""

    @property
    def source_id(self) -> str:
        """The record's first identifier, else its URL (stored on reviews and in ``claims.json``)."""
        return self.ids[0] if self.ids else self.url


@dataclass(frozen=True)
class ToolResult:
    """A tool's answer (see module docstring); ``offers``: tools the answer loads into the calling tool loop from
    the next model call on (a tool search's picks, design.md#mcp-servers)."""

    text: str
    urls: tuple[str, ...] = ()
    is_error: bool = False
    source: str = ""
    records: tuple[Source, ...] = ()
    offers: tuple[Tool, ...] = ()


class Tool(Protocol):
    spec: ToolSpec

    async def __call__(self, arguments: dict[str, Any]) -> ToolResult: ...
