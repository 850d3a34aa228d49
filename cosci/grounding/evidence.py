"""Citations and review evidence checked against the sources tools returned in the same loop (design.md#grounding).

For each item (a hypothesis's :class:`~cosci.records.Citation` or a review's :class:`~cosci.records.Evidence`):

- its URL (and DOI) is reduced to keys (:mod:`cosci.tools.sources`); no source returned by a tool of the loop
  shares a key -> the item is **dropped** (citation integrity, design.md#grounding);
- a source shares a key and the item's excerpt is found in that source's text
  (:func:`~cosci.grounding.excerpts.excerpt_found`) -> kept, ``status="verified"``, ``source_id`` = the source's;
- a source shares a key but the excerpt is missing, paraphrased or invented -> kept, ``status="unverified"``.

Counts per task (:class:`EvidenceCounts`) go into the task result's ``detail["evidence"]``; the session's
counts are the sum over finished tasks (:func:`session_counts`), so a retried task counts once.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import asdict, dataclass
from typing import TYPE_CHECKING, TypeVar

from pydantic import BaseModel

from cosci.grounding.excerpts import excerpt_found
from cosci.store.db import loads
from cosci.tools.base import Source
from cosci.tools.sources import citation_keys, source_keys

if TYPE_CHECKING:
    from cosci.store import SessionStore

M = TypeVar("M", bound=BaseModel)
AGENTS_WITH_EVIDENCE = ("generation", "evolution", "reflection")


@dataclass
class EvidenceCounts:
    """Evidence items (citations and review evidence) proposed by the model, and what became of them."""

    proposed: int = 0
    verified: int = 0
    unverified: int = 0
    dropped: int = 0

    def add(self, other: EvidenceCounts) -> EvidenceCounts:
        return EvidenceCounts(*(a + b for a, b in zip(self.as_tuple(), other.as_tuple(), strict=True)))

    def as_tuple(self) -> tuple[int, int, int, int]:
        return self.proposed, self.verified, self.unverified, self.dropped

    def to_dict(self) -> dict[str, int]:
        return asdict(self)

    def metrics(self) -> dict[str, float]:
        """MLflow metrics ``evidence_proposed`` / ``_verified`` / ``_unverified`` / ``_dropped``."""
        return {f"evidence_{k}": float(v) for k, v in self.to_dict().items()}

    def line(self) -> str:
        """``12 proposed: 5 verified, 4 unverified, 3 dropped`` (status, summary)."""
        return (f"{self.proposed} proposed: {self.verified} verified, {self.unverified} unverified, "
                f"{self.dropped} dropped")


def matching(url: str, doi: str | None, sources: Sequence[Source]) -> list[Source]:
    """The records that ``url`` (or ``doi``) names, in the order tools returned them."""
    keys = citation_keys(url, doi)
    return [r for r in sources if keys & source_keys(r)]


def check_items(items: Sequence[M], sources: Sequence[Source]) -> tuple[list[M], list[str],
                                                                              EvidenceCounts]:
    """Check citations or evidence items (see module docstring).

    Args:
        items: models with ``url``, ``excerpt`` and the hidden ``status`` / ``source_id`` fields (a ``doi``
            field is used when present).
        sources: the records tools returned in the loop (``ToolLoopResult.sources``), plus any article given.

    Returns:
        ``(kept, dropped_urls, counts)``; ``kept`` are copies with ``status`` and ``source_id`` set.
    """
    kept: list[M] = []
    dropped: list[str] = []
    counts = EvidenceCounts(proposed=len(items))
    for item in items:
        url = str(getattr(item, "url", ""))
        records = matching(url, getattr(item, "doi", None), sources)
        if not records:
            dropped.append(url)
            continue
        excerpt = str(getattr(item, "excerpt", None) or "")
        hit = next((r for r in records if excerpt_found(excerpt, r.text)), None)
        status = "verified" if hit else "unverified"
        kept.append(item.model_copy(update={"status": status, "source_id": (hit or records[0]).source_id}))
    counts.dropped = len(dropped)
    counts.verified = sum(1 for k in kept if getattr(k, "status", None) == "verified")
    counts.unverified = len(kept) - counts.verified
    return kept, dropped, counts


def session_counts(store: SessionStore) -> EvidenceCounts:
    """The session's evidence counts: the sum of ``detail["evidence"]`` over its finished tasks."""
    total = EvidenceCounts()
    marks = ",".join("?" * len(AGENTS_WITH_EVIDENCE))
    rows = store.db.query(f"SELECT result FROM tasks WHERE session_id=? AND status='done' AND agent IN ({marks})"
                           " AND result IS NOT NULL", (store.session_id, *AGENTS_WITH_EVIDENCE))
    for row in rows:
        found = (loads(row["result"], {}) or {}).get("detail", {}).get("evidence")
        if isinstance(found, dict):
            total = total.add(EvidenceCounts(**{k: int(found.get(k, 0)) for k in EvidenceCounts().to_dict()}))
    return total
