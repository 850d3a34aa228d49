"""Citations and review evidence checked against the sources tools returned in the same loop
(``docs/design.md#excerpt-verification``).

For each item (a hypothesis's :class:`~cosci.records.Citation` or a review's :class:`~cosci.records.Evidence`):

- its URL (and DOI) is reduced to keys (:mod:`cosci.tools.sources`); no source returned by a tool of the loop
  shares a key -> the item is **unseen** and dropped (the model named a paper it was never shown);
- a source shares a key and the item's excerpt is a faithful quote of that source's text
  (:func:`~cosci.grounding.excerpts.check_excerpt`) -> kept, ``status="verified"``, ``source_id`` = the source's;
- a source shares a key but the excerpt is missing, changed, paraphrased or invented -> kept,
  ``status="misquoted"`` (a real paper, a wrong quote), with ``mismatch`` saying what differs.

Counts per task (:class:`EvidenceCounts`) go into the task result's ``detail["evidence"]``; the session's
counts are the sum over finished tasks (:func:`session_counts`), so a retried task counts once. Tasks finished
before this distinction stored ``unverified`` / ``dropped``: they count as ``misquoted`` / ``unseen``.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import asdict, dataclass
from typing import TYPE_CHECKING, Any, TypeVar

from pydantic import BaseModel

from cosci.grounding.excerpts import ExcerptMatch, check_excerpt
from cosci.records import ExcerptStatus
from cosci.store.db import loads
from cosci.tools.base import WITHDRAWN, Source, stronger_flag
from cosci.tools.sources import citation_keys, doi_key, source_keys

if TYPE_CHECKING:
    from cosci.store import SessionStore
    from cosci.tools.retractions import RetractionCheck

M = TypeVar("M", bound=BaseModel)
AGENTS_WITH_EVIDENCE = ("generation", "evolution", "reflection")
OLD_NAMES = {"unverified": "misquoted", "dropped": "unseen"}
"""Count names of records written before misquoted and unseen were told apart."""


@dataclass
class EvidenceCounts:
    """Evidence items (citations and review evidence) proposed by the model, and what became of them."""

    proposed: int = 0
    verified: int = 0
    misquoted: int = 0
    unseen: int = 0

    def add(self, other: EvidenceCounts) -> EvidenceCounts:
        return EvidenceCounts(*(a + b for a, b in zip(self.as_tuple(), other.as_tuple(), strict=True)))

    def as_tuple(self) -> tuple[int, int, int, int]:
        return self.proposed, self.verified, self.misquoted, self.unseen

    def to_dict(self) -> dict[str, int]:
        return asdict(self)

    @classmethod
    def from_dict(cls, found: dict[str, Any]) -> EvidenceCounts:
        """Counts from a task's ``detail["evidence"]`` (old names read as the new ones)."""
        named = {OLD_NAMES.get(k, k): v for k, v in found.items()}
        return cls(**{k: int(named.get(k, 0) or 0) for k in cls().to_dict()})

    def metrics(self) -> dict[str, float]:
        """MLflow metrics ``evidence_proposed`` / ``_verified`` / ``_misquoted`` / ``_unseen``."""
        return {f"evidence_{k}": float(v) for k, v in self.to_dict().items()}

    def line(self) -> str:
        """``12 proposed: 5 verified, 4 misquoted, 3 unseen`` (status, summary)."""
        return (f"{self.proposed} proposed: {self.verified} verified, {self.misquoted} misquoted, "
                f"{self.unseen} unseen")


def matching(url: str, doi: str | None, sources: Sequence[Source]) -> list[Source]:
    """The records that ``url`` (or ``doi``) names, in the order tools returned them."""
    keys = citation_keys(url, doi)
    return [r for r in sources if keys & source_keys(r)]


def best_match(excerpt: str, records: Sequence[Source]) -> tuple[Source, ExcerptMatch]:
    """The record the excerpt quotes faithfully, else the one it comes closest to, with the verdict."""
    verdicts = [(r, check_excerpt(excerpt, r.text)) for r in records]
    hit = next(((r, v) for r, v in verdicts if v.verified), None)
    return hit or max(verdicts, key=lambda rv: rv[1].score)


def check_items(items: Sequence[M], sources: Sequence[Source]) -> tuple[list[M], list[str],
                                                                              EvidenceCounts]:
    """Check citations or evidence items (see module docstring).

    Args:
        items: models with ``url``, ``excerpt`` and the hidden ``status`` / ``source_id`` / ``mismatch``
            fields (a ``doi`` field is used when present).
        sources: the records tools returned in the loop (``ToolLoopResult.sources``), plus any article given.

    Returns:
        ``(kept, unseen_urls, counts)``; ``kept`` are copies with ``status``, ``source_id`` and ``mismatch`` set.
    """
    kept: list[M] = []
    unseen: list[str] = []
    counts = EvidenceCounts(proposed=len(items))
    for item in items:
        url = str(getattr(item, "url", ""))
        records = matching(url, getattr(item, "doi", None), sources)
        if not records:
            unseen.append(url)
            continue
        record, verdict = best_match(str(getattr(item, "excerpt", None) or ""), records)
        status: ExcerptStatus = "verified" if verdict.verified else "misquoted"
        if any(getattr(k, "source_id", None) == record.source_id and getattr(k, "excerpt", None) ==
               getattr(item, "excerpt", None) for k in kept):
            continue  # the same paper quoted the same way through another of its URLs: one citation
        kept.append(item.model_copy(update={"status": status, **_doi_of(item, record),
                                            "source_id": record.source_id,
                                            "mismatch": None if verdict.verified else verdict.reason,
                                            "retraction": record.retraction or None,
                                            "retraction_notice": record.notice or None}))
    counts.unseen = len(unseen)
    counts.verified = sum(1 for k in kept if getattr(k, "status", None) == "verified")
    counts.misquoted = len(kept) - counts.verified
    counts.proposed = len(kept) + len(unseen)
    return kept, unseen, counts


def _doi_of(item: BaseModel, record: Source) -> dict[str, str]:
    """``{"doi": …}`` for an item with an empty ``doi`` field whose record carries a DOI (a page of a reference
    manager's PDF, a PubMed hit): the citation then names its paper however the model wrote it
    (design.md#reference-managers); ``{}`` otherwise."""
    if "doi" not in type(item).model_fields or getattr(item, "doi", None):
        return {}
    doi = next((i.removeprefix("DOI:") for i in record.ids if i.startswith("DOI:")), "")
    return {"doi": doi} if doi else {}


async def flag_retractions(items: Sequence[M], sources: Sequence[Source], check: RetractionCheck | None) -> list[M]:
    """``items`` (kept by :func:`check_items`) with the session's retraction check applied to their records
    (design.md#retractions): the identifiers of every record an item names, and its DOI, are asked once per
    session; the stronger of that answer and the flag the search hit carried is kept."""
    if check is None:
        return list(items)
    out: list[M] = []
    for item in items:
        ids = [i for r in matching(str(getattr(item, "url", "")), getattr(item, "doi", None), sources)
               for i in r.ids]
        if doi := getattr(item, "doi", None):
            ids.append(doi_key(str(doi)))
        flag, notice = await check.flag(ids)
        had = getattr(item, "retraction", None) or ""
        if flag and stronger_flag(flag, had) == flag and flag != had:
            item = item.model_copy(update={"retraction": flag, "retraction_notice": notice})
        out.append(item)
    return out


def withdrawn(item: object) -> bool:
    """Whether an item's source (a model, or its stored dict) is retracted or is a retraction notice (never
    supporting evidence, design.md#retractions)."""
    flag = item.get("retraction") if isinstance(item, dict) else getattr(item, "retraction", None)
    return flag in WITHDRAWN


def rests_on_withdrawn(evidence: Sequence[object]) -> bool:
    """A review's main evidence is retracted: at least half of its kept evidence items (verified or misquoted) name
    a withdrawn source (design.md#retractions)."""
    kept = [e for e in evidence if (e.get("status") if isinstance(e, dict) else getattr(e, "status", None))]
    return bool(kept) and 2 * sum(1 for e in kept if withdrawn(e)) >= len(kept)


def session_counts(store: SessionStore) -> EvidenceCounts:
    """The session's evidence counts: the sum of ``detail["evidence"]`` over its finished tasks."""
    total = EvidenceCounts()
    marks = ",".join("?" * len(AGENTS_WITH_EVIDENCE))
    rows = store.db.query(f"SELECT result FROM tasks WHERE session_id=? AND status='done' AND agent IN ({marks})"
                           " AND result IS NOT NULL", (store.session_id, *AGENTS_WITH_EVIDENCE))
    for row in rows:
        found = (loads(row["result"], {}) or {}).get("detail", {}).get("evidence")
        if isinstance(found, dict):
            total = total.add(EvidenceCounts.from_dict(found))
    return total
