"""A session's grounding numbers for ``cosci status``, the summary, MLflow and ``final/claims.json``
(design.md#grounding).

- evidence counts: :func:`~cosci.grounding.evidence.session_counts` (``evidence_proposed`` / ``_verified`` /
  ``_unverified`` / ``_dropped``);
- the claim check of the final overview and its audit: the latest ``overview_checked`` event written by the
  meta-review agent (``claims_total`` / ``claims_supported`` / ``claims_unsupported``, ``audit_score``).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import TYPE_CHECKING, Any

from cosci.grounding.evidence import session_counts

if TYPE_CHECKING:
    from cosci.store import SessionStore

CLAIM_METRICS = ("claims_total", "claims_supported", "claims_unsupported")


def checked_overview(store: SessionStore) -> dict[str, Any] | None:
    """The claim map and audit of the session's final overview (None before the overview)."""
    events = store.logs.events("overview_checked")
    return events[-1]["payload"] if events else None


def grounding_metrics(store: SessionStore) -> dict[str, float]:
    """Evidence and claim metrics (counts), plus ``audit_score`` (0-1) when an audit was recorded."""
    out = session_counts(store).metrics()
    checked = checked_overview(store)
    if checked:
        out.update({k: float(checked.get(k, 0)) for k in CLAIM_METRICS})
        score = (checked.get("audit") or {}).get("overall_score")
        if isinstance(score, int | float):
            out["audit_score"] = float(score)
    return out


def claims_document(store: SessionStore) -> dict[str, Any] | None:
    """``final/claims.json``: every claim (claim, hypothesis ids, sources, status, problems), the totals,
    whether a repair round ran, and the audit."""
    checked = checked_overview(store)
    if checked is None:
        return None
    return {"session_id": store.session_id, **{k: checked.get(k, 0) for k in CLAIM_METRICS},
            "repaired": checked.get("repaired", False), "fallback": checked.get("fallback", False),
            "claims": checked.get("claims", []), "audit": checked.get("audit")}


def write_claims(store: SessionStore, folder: Path) -> Path | None:
    """Write ``claims.json`` into ``folder`` (None, and nothing written, before the overview)."""
    doc = claims_document(store)
    if doc is None:
        return None
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / "claims.json"
    path.write_text(json.dumps(doc, indent=2, ensure_ascii=False), encoding="utf-8")
    return path


def status_lines(store: SessionStore) -> list[str]:
    """``cosci status`` lines: evidence, and the overview's claims and audit when written."""
    counts = session_counts(store)
    lines = [f"evidence     {counts.line()}"]
    checked = checked_overview(store)
    if checked:
        score = (checked.get("audit") or {}).get("overall_score")
        lines.append(f"claims       {checked.get('claims_total', 0)} in the overview: "
                     f"{checked.get('claims_supported', 0)} supported, {checked.get('claims_unsupported', 0)} "
                     f"unsupported; audit score {score if score is not None else '-'}")
    return lines
