"""What the novelty search of one hypothesis searched and found, in two sentences a researcher reads
(docs/design.md#prior-work).

The search is stored as the event ``prior_work_searched`` (:class:`cosci.agents.novelty.Search`: ``queries``,
``tools``, ``errors`` (tool -> its error answer), ``found``, ``kept``). A tool's error answer is written for the
model (``pubmed_search is unavailable: cannot connect (ConnectError: [Errno -2] Name or service not known); try
europe_pmc_search, …``) and every search of a session offline fails the same way, so the report never shows it
raw: :func:`failure` reduces it to a short plain reason, :func:`summary` groups the tools by reason and says each
reason once per hypothesis. Plain functions over plain values, so any page (the static report, a web view) can
call them.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from cosci.text import clip, counted

QUERY_SHOWN = 90
"""Characters of each query shown (cut at a word boundary): enough to recognise it; the queries are the
hypothesis's own statement and title (docs/design.md#prior-work)."""
REASON_CHARS = 80
"""Characters of a failure reason not recognised by :data:`REASONS` (cut at a word boundary)."""
OFFLINE = "not searched: offline"
"""The phrase for a tool that made no request because the session runs with ``tools.offline=true``."""
REASONS: tuple[tuple[re.Pattern[str], str], ...] = (
    (re.compile(r"offline mode", re.I), ""),
    (re.compile(r"Name or service not known|name resolution|nodename nor servname|getaddrinfo|Errno -[235]\b",
                re.I), "no network, the server's name did not resolve"),
    (re.compile(r"timed? ?out|timeout", re.I), "the server did not answer in time"),
    (re.compile(r"cannot connect|ConnectError|connection (refused|reset)", re.I), "could not connect to the server"),
    (re.compile(r"Retry-After|\b429\b|rate.?limit", re.I), "the server asked to slow down (rate limit)"),
    (re.compile(r"HTTP (\d{3})"), r"the server answered HTTP \1"),
    (re.compile(r"not valid JSON", re.I), "the server's answer could not be read"),
)
"""A tool's error answer -> its plain reason, the first pattern that matches (the transport errors
:mod:`cosci.tools.http` raises); "" marks offline mode."""


def failure(error: str, tool: str = "") -> str:
    """The plain phrase for one tool's error answer: :data:`OFFLINE`, or ``search failed: <reason>`` with a reason
    from :data:`REASONS`, else the message itself without the tool's name, the exception's class and errno, or the
    alternatives suggested to the model, cut at a word boundary to :data:`REASON_CHARS`."""
    for pattern, reason in REASONS:
        if found := pattern.search(error):
            return f"search failed: {found.expand(reason)}" if reason else OFFLINE
    text = re.sub(rf"^\s*{re.escape(tool)}\s+(is unavailable|failed)\s*:?\s*", "", error) if tool else error
    text = text.split(";")[0]  # the suggestion to the model: "; try a, b or c instead."
    text = re.sub(r"\s*\([^()]*\b\w*(Error|Exception)\b[^()]*\)", "", text)  # "(ConnectError: [Errno …] …)"
    text = re.sub(r"\b\w*(Error|Exception):\s*|\[Errno [^\]]*\]\s*", "", text).strip(" :,.") or "an error"
    return f"search failed: {clip(text, REASON_CHARS)}"


def names(items: Sequence[str]) -> str:
    """``a``, ``a and b``, ``a, b and c``."""
    return items[0] if len(items) == 1 else f"{', '.join(items[:-1])} and {items[-1]}"


@dataclass(frozen=True)
class PriorSearch:
    """One hypothesis's novelty search said in two sentences: ``searched`` (the tools and queries) and ``found``
    (how many records, or none, or why a tool was not searched)."""

    searched: str
    found: str

    def __str__(self) -> str:
        return f"{self.searched} {self.found}".strip()


def _queries(queries: Sequence[str]) -> str:
    if not queries:
        return ""
    shown = "; ".join(f"“{clip(q, QUERY_SHOWN)}”" for q in queries)
    return f" for {counted(len(queries), 'query', 'queries')} made from the hypothesis: {shown}"


def _found(found: int, kept: int, tools: Sequence[str], errors: Mapping[str, str]) -> str:
    groups: dict[str, list[str]] = {}
    for tool in tools:
        if tool in errors:
            groups.setdefault(failure(str(errors[tool]), tool), []).append(tool)
    answered = [t for t in tools if t not in errors]
    parts = []
    if answered:
        by = f" by {names(answered)}" if groups else ""
        nearest = "the nearest" if kept == 1 else f"the nearest {kept}"
        listed = f" ({nearest} listed below)" if kept else ""
        parts.append(f"{counted(found, 'record')} found{by}{listed}" if found else f"none found{by}")
    for phrase, failed in groups.items():
        who = f"all {counted(len(tools), 'search', 'searches')}" if len(failed) == len(tools) else names(failed)
        parts.append(f"{phrase} ({who})")
    text = "; ".join(parts)
    return f"{text[:1].upper()}{text[1:]}."


def summary(event: Mapping[str, Any] | None) -> PriorSearch | None:
    """The :class:`PriorSearch` of a ``prior_work_searched`` payload; None when there is none (the search has not
    run). A payload from before ``tools``/``errors`` were stored gives its ``line``, cut at a word boundary."""
    if not event:
        return None
    tools = [str(t) for t in event.get("tools") or []]
    if not tools:
        if "tools" in event:
            return PriorSearch("No literature search was available to the review.", "")
        return PriorSearch(clip(str(event.get("line", "")), 300), "")
    errors = {str(k): str(v) for k, v in (event.get("errors") or {}).items()}
    searched = f"Searched {names(tools)}{_queries([str(q) for q in event.get('queries') or []])}."
    kept = len(event.get("kept") or [])
    return PriorSearch(searched, _found(int(event.get("found") or 0), kept, tools, errors))
