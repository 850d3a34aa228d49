"""What every literature tool shares: the record shape, the text the model reads, arguments and errors.

A search answer is plain text, one numbered record per hit with its fields and URL; ``urls`` is computed from
the final text by :func:`urls_in`, so it lists exactly the URLs the text contains (record URLs and any URL
quoted inside an abstract or page). Expected failures never raise out of a tool: :class:`ToolBase` turns
:class:`~cosci.tools.http.SourceError`, :class:`ArgumentError` and :class:`~cosci.tools.ssrf.UnsafeUrl` into
``is_error`` results that name the source and suggest the other sources (design.md#tools).
"""

from __future__ import annotations

import html
import re
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from cosci.errors import CosciError
from cosci.llm.port.types import ToolSpec
from cosci.tools.base import Source, ToolResult
from cosci.tools.http import ApiClient, SourceError, describe
from cosci.tools.sources import to_source
from cosci.tools.ssrf import UnsafeUrl

MAX_RESULTS_CAP = 20
"""Upper bound on ``max_results`` whatever the model asks."""
ABSTRACT_CHARS = 2000
"""Characters of an abstract shown per record."""
MAX_QUERY_CHARS = 500

_URL_RE = re.compile(r"https?://[^\s<>\"'`{}|\\^]+", re.IGNORECASE)
_TRAILING = ".,;:!?'\"*"
_TAG_RE = re.compile(r"<[^>]+>")


class ArgumentError(CosciError):
    """The model's arguments are unusable; the message says which argument and why."""


def urls_in(text: str) -> tuple[str, ...]:
    """Every http(s) URL in ``text``, in order, without duplicates.

    Trailing sentence punctuation is dropped, and a closing bracket only when it is unbalanced, so
    ``https://doi.org/10.1016/S0140-6736(24)02600-X`` stays whole while ``(see https://x.org/a)`` gives
    ``https://x.org/a``.
    """
    found: list[str] = []
    for match in _URL_RE.finditer(text):
        url = match.group(0)
        while url and (url[-1] in _TRAILING or _unbalanced(url)):
            url = url[:-1]
        if len(url) > len("https://") and url not in found:
            found.append(url)
    return tuple(found)


def _unbalanced(url: str) -> bool:
    """Whether ``url`` ends with a closing bracket that has no opening one."""
    pairs = {")": "(", "]": "["}
    last = url[-1]
    return last in pairs and url.count(pairs[last]) < url.count(last)


def clean(text: Any) -> str:
    """Plain one-paragraph text: tags stripped, entities unescaped, whitespace collapsed."""
    if text is None:
        return ""
    return " ".join(html.unescape(_TAG_RE.sub(" ", str(text))).split())


def mapping(value: Any) -> dict[str, Any]:
    """``value`` when it is a JSON object, else ``{}`` (a missing or mistyped field of an API answer)."""
    return value if isinstance(value, dict) else {}


def first_year(text: Any) -> int | None:
    """The first plausible 4-digit year (1800-2199) in ``text``, or None."""
    match = re.search(r"\b(1[89]\d\d|2[01]\d\d)\b", str(text or ""))
    return int(match.group(1)) if match else None


@dataclass(frozen=True)
class LiteratureHit:
    """One hit of a literature source.

    Attributes:
        id: the source's identifier (PMID, Europe PMC id, arXiv id, corpus id).
        title: title, whitespace-normalised.
        url: the landing page of the record ("" when the source has none).
        id_label: how the id is named in the text (``"PMID"``, ``"arXiv"``).
        source: the database the record comes from, where the source mixes several (Europe PMC's ``MED``).
        abstract: the abstract or summary, plain text.
        journal: journal or venue.
        year: publication year.
        doi: bare DOI (``10.1186/...``).
        authors: author names, in order.
        abstract_label: how ``abstract`` is named in the text (``"Snippet"`` for web hits).
        other_ids: further identifiers the source gives, as ``"<kind>:<value>"`` (an S2 paper's ``PMID:…``,
            ``PMCID:PMC…``, ``arXiv:…``): a record from another source with one of them is the same record
            (design.md#tools: merge by identifier).
        retraction: a retraction flag the source itself reports (:data:`cosci.tools.base.RETRACTION_KINDS`, "" when
            none; design.md#retractions).
        notice: where the flag comes from, one line.
        passages: open-access full-text passages shown under the abstract, ``"[<section>] <text>"`` (those
            matching the query; design.md#full-text).
        full_text: the whole open-access full text ("" when none was read): excerpts are checked against it too.
    """

    id: str
    title: str
    url: str
    id_label: str = "id"
    source: str = ""
    abstract: str = ""
    journal: str = ""
    year: int | None = None
    doi: str = ""
    authors: tuple[str, ...] = ()
    abstract_label: str = "Abstract"
    other_ids: tuple[str, ...] = ()
    retraction: str = ""
    notice: str = ""
    passages: tuple[str, ...] = ()
    full_text: str = ""

    def to_text(self, number: int) -> str:
        """The record as the model reads it (a numbered block)."""
        meta = [f"{self.id_label}: {self.id}"] if self.id else []
        meta += [f"Source: {self.source}"] if self.source else []
        meta += [f"Journal: {self.journal}"] if self.journal else []
        meta += [f"Year: {self.year}"] if self.year else []
        meta += [f"DOI: {self.doi}"] if self.doi else []
        lines = [f"{number}. {self.title or '(untitled)'}"]
        if meta:
            lines.append("   " + " | ".join(meta))
        if self.authors:
            shown = ", ".join(self.authors[:6]) + (" et al." if len(self.authors) > 6 else "")
            lines.append(f"   Authors: {shown}")
        lines.append(f"   URL: {self.url}" if self.url else "   URL: (none)")
        if self.retraction:
            lines.append(f"   Notice: {self.retraction.replace('_', ' ').upper()} ({self.notice})")
        if self.abstract:
            abstract = self.abstract
            if len(abstract) > ABSTRACT_CHARS:
                abstract = abstract[:ABSTRACT_CHARS].rsplit(" ", 1)[0] + " …"
            lines.append(f"   {self.abstract_label}: {abstract}")
        if self.passages:
            lines.append("   Full text (open access), the passages matching the query:")
            lines += [f"   - {p}" for p in self.passages]
        return "\n".join(lines)


def format_records(source: str, query: str, records: Sequence[LiteratureHit], total: int | None,
                   note: str = "") -> str:
    """The whole answer of a search: a header line, then the numbered records."""
    if not records:
        return f'{source}: no results for "{query}". Try broader or different keywords, or another source.'
    of = f" of {total}" if total is not None and total >= len(records) else ""
    head = f'{source}: {len(records)}{of} results for "{query}"' + (f" ({note})" if note else "") + "."
    return "\n\n".join([head, *(r.to_text(i) for i, r in enumerate(records, 1))])


def search_parameters(what: str) -> dict[str, Any]:
    """The JSON schema of a search tool's arguments (``query`` required, ``max_results`` optional)."""
    return {
        "type": "object",
        "properties": {
            "query": {"type": "string", "description": what},
            "max_results": {"type": "integer", "minimum": 1, "maximum": MAX_RESULTS_CAP,
                            "description": "How many records to return (default: the session's setting)."},
        },
        "required": ["query"],
        "additionalProperties": False,
    }


def query_argument(arguments: dict[str, Any]) -> str:
    """The ``query`` argument, stripped. Raises: ArgumentError when missing, empty or not a string."""
    query = arguments.get("query")
    if not isinstance(query, str) or not query.strip():
        raise ArgumentError("'query' must be a non-empty string")
    return " ".join(query.split())[:MAX_QUERY_CHARS]


def max_results_argument(arguments: dict[str, Any], default: int) -> int:
    """``max_results`` clamped to 1..MAX_RESULTS_CAP (numeric strings accepted). Raises: ArgumentError."""
    value = arguments.get("max_results")
    if value is None:
        return max(1, min(default, MAX_RESULTS_CAP))
    if isinstance(value, str) and value.strip().isdigit():
        value = int(value.strip())
    if isinstance(value, float) and value.is_integer():
        value = int(value)
    if isinstance(value, bool) or not isinstance(value, int):
        raise ArgumentError("'max_results' must be an integer")
    return max(1, min(value, MAX_RESULTS_CAP))


class ToolBase:
    """Shared behaviour of cosci's tools: results, error results, and offline answers.

    Attributes:
        spec: what the model sees.
        alternatives: other tool names suggested when this one fails (set by the registry).
        network: the tool needs the network (answers "unavailable (offline mode)" when ``offline``).
    """

    spec: ToolSpec
    network: bool = True

    def __init__(self, *, offline: bool = False) -> None:
        self.offline = offline
        self.alternatives: tuple[str, ...] = ()

    @property
    def name(self) -> str:
        return self.spec.name

    def result(self, text: str, records: Sequence[Source] = ()) -> ToolResult:
        """A successful answer; ``urls`` are the URLs found in ``text``, ``records`` the citable records."""
        return ToolResult(text=text, urls=urls_in(text), source=self.name, records=tuple(records))

    def error(self, message: str, *, unavailable: bool = False) -> ToolResult:
        """An error answer naming this tool and suggesting the alternatives."""
        head = f"{self.name} is unavailable: {message}" if unavailable else f"{self.name} failed: {message}"
        return ToolResult(text=f"{head}; {self.suggestion()}", urls=urls_in(head), is_error=True,
                          source=self.name)

    def offline_error(self) -> ToolResult:
        """The answer of a network tool in offline mode (no request is made)."""
        text = f"{self.name} is unavailable (offline mode): no network requests are made; {self.suggestion()}"
        return ToolResult(text=text, is_error=True, source=self.name)

    async def __call__(self, arguments: dict[str, Any]) -> ToolResult:
        raise NotImplementedError

    def suggestion(self) -> str:
        """``"try a, b or c instead."`` over :attr:`alternatives`, or what to do when there is none."""
        alts = [a for a in self.alternatives if a != self.name]
        if not alts:
            return "no other source is available, so rely on what is already known and say so."
        listed = alts[0] if len(alts) == 1 else ", ".join(alts[:-1]) + " or " + alts[-1]
        return f"try {listed} instead."

    def handle(self, exc: Exception) -> ToolResult:
        """The error result for an expected failure (see module docstring)."""
        if isinstance(exc, SourceError):
            if exc.kind == "offline":
                return self.offline_error()
            return self.error(str(exc), unavailable=exc.kind == "unavailable")
        if isinstance(exc, ArgumentError):
            return self.error(f"invalid arguments: {exc}")
        if isinstance(exc, UnsafeUrl):
            return self.error(f"URL refused: {exc}")
        raise exc


class SearchTool(ToolBase):
    """A search over one source: subclasses set ``spec`` and implement :meth:`search`; those that can read one
    record by identifier set ``fetch_kinds`` and implement :meth:`lookup` (design.md#grounding: the observation
    article)."""

    label: str = "source"
    fetch_kinds: tuple[str, ...] = ()
    """Identifier kinds :meth:`fetch` reads (``"PMID"``, ``"PMCID"``, ``"DOI"``, ``"arXiv"``, ``"corpus"``)."""

    def __init__(self, *, default_max_results: int = 5, offline: bool = False) -> None:
        super().__init__(offline=offline)
        self.default_max_results = default_max_results

    async def search(self, query: str, max_results: int) -> tuple[list[LiteratureHit], int | None, str]:
        """Records for ``query``, the source's total hit count (or None), and a note for the header.

        Raises:
            SourceError: the source failed (network, HTTP, unparseable body).
        """
        raise NotImplementedError

    async def lookup(self, kind: str, value: str) -> LiteratureHit | None:
        """The record with identifier ``kind:value`` (None when the source has none).

        Raises:
            SourceError: the source failed.
        """
        return None

    async def fetch(self, key: str) -> Source | None:
        """The record named by ``key`` (``"PMID:123"``...), or None: unknown kind, offline, not found, or the
        source failed (a failed fetch never raises)."""
        kind, _, value = key.partition(":")
        if kind not in self.fetch_kinds or not value or (self.network and self.offline):
            return None
        try:
            rec = await self.lookup(kind, value)
        except (SourceError, ArgumentError, UnsafeUrl, ValueError, TypeError, KeyError, AttributeError):
            return None
        return to_source(rec, self.name) if rec is not None else None

    async def __call__(self, arguments: dict[str, Any]) -> ToolResult:
        if self.network and self.offline:
            return self.offline_error()
        try:
            query = query_argument(arguments)
            n = max_results_argument(arguments, self.default_max_results)
            records, total, note = await self.search(query, n)
        except (SourceError, ArgumentError, UnsafeUrl) as exc:
            return self.handle(exc)
        except (TypeError, AttributeError, KeyError) as exc:  # an answer of an unexpected shape
            return self.error(f"the {self.label} answer had an unexpected shape ({describe(exc)})")
        shown = records[:n]
        return self.result(format_records(self.label, query, shown, total, note),
                           [to_source(r, self.name) for r in shown if r.url or r.id])


class ApiSearch(SearchTool):
    """A search over one HTTP API, sent through its :class:`~cosci.tools.http.ApiClient` (``client``)."""

    def __init__(self, client: ApiClient, *, default_max_results: int = 5, offline: bool = False) -> None:
        super().__init__(default_max_results=default_max_results, offline=offline)
        self.client = client
