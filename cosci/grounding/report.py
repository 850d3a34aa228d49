"""A session's grounding numbers for ``cosci status``, the summary, MLflow and ``final/claims.json``
(``docs/design.md#claim-statuses``).

- evidence counts: :func:`~cosci.grounding.evidence.session_counts` (``evidence_proposed`` / ``_verified`` /
  ``_misquoted`` / ``_unseen``);
- the final overview's claims, their support check and the blind audit: the latest ``overview_checked`` event
  written by the meta-review agent (``claims_total``, ``claims_traceable``, ``claims_<status>`` for every status
  of :data:`~cosci.grounding.claims.STATUSES`, ``audit_score``, ``audit_agreement``, ``support_check_usd``).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import TYPE_CHECKING, Any

from cosci.grounding.claims import STATUSES
from cosci.grounding.evidence import session_counts

if TYPE_CHECKING:
    from cosci.store import SessionStore

CLAIM_METRICS = ("claims_total", "claims_traceable", *(f"claims_{s}" for s in STATUSES))
NO_CLAIMS = "the overview has no claims to audit"
"""Said instead of an audit score when the overview's claim map is empty: the audit is not run (no call) and a
score would rate nothing; an older session's score of an empty claim map is not shown either
(``docs/design.md#claim-statuses``)."""


def checked_overview(store: SessionStore) -> dict[str, Any] | None:
    """The claim map, support check and audit of the session's final overview (None before the overview)."""
    events = store.logs.events("overview_checked")
    return events[-1]["payload"] if events else None


def grounding_metrics(store: SessionStore) -> dict[str, float]:
    """Evidence and claim counts, plus ``audit_score`` (0-1) and ``audit_agreement`` (share of the claims the
    support check answered on which the audit agrees, 0-1) when there are, and ``support_check_usd`` (USD)."""
    out = session_counts(store).metrics()
    checked = checked_overview(store)
    if checked:
        out.update({k: float(checked.get(k, 0)) for k in CLAIM_METRICS if k in checked})
        score = (checked.get("audit") or {}).get("overall_score")
        if isinstance(score, int | float) and checked.get("claims_total"):  # no score of an empty claim map
            out["audit_score"] = float(score)
        share = (checked.get("agreement") or {}).get("share")
        if isinstance(share, int | float):
            out["audit_agreement"] = float(share)
        cost = (checked.get("support_check") or {}).get("cost_usd")
        if isinstance(cost, int | float):
            out["support_check_usd"] = float(cost)
    return out


def claims_document(store: SessionStore) -> dict[str, Any] | None:
    """``final/claims.json``: every claim (claim, section, hypothesis ids, sources, trace and problems, overclaim
    phrases, support verdict and the excerpt it relied on, status), the counts, whether a repair round ran, the
    support check's calls and cost, the audit and its agreement with the support check, the retracted sources
    and the latest reviews resting on retracted evidence (design.md#retractions)."""
    checked = checked_overview(store)
    if checked is None:
        return None
    return {"session_id": store.session_id, **{k: checked.get(k, 0) for k in CLAIM_METRICS},
            "repaired": checked.get("repaired", False), "fallback": checked.get("fallback", False),
            "claims": checked.get("claims", []), "support_check": checked.get("support_check"),
            "audit": checked.get("audit"), "agreement": checked.get("agreement"),
            "retracted_sources": checked.get("retracted_sources", []),
            "reviews_on_retracted_evidence": checked.get("reviews_on_retracted_evidence", [])}


def write_claims(store: SessionStore, folder: Path) -> Path | None:
    """Write ``claims.json`` into ``folder`` (None, and nothing written, before the overview)."""
    doc = claims_document(store)
    if doc is None:
        return None
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / "claims.json"
    path.write_text(json.dumps(doc, indent=2, ensure_ascii=False), encoding="utf-8")
    return path


def claims_line(counts: dict[str, Any]) -> str:
    """``12 in the overview: 3 supported, 1 contradicted, 5 hypothesis_only, ...`` (statuses with a count only)."""
    parts = [f"{int(counts.get(f'claims_{s}', 0))} {s}" for s in reversed(STATUSES) if counts.get(f"claims_{s}")]
    return f"{int(counts.get('claims_total', 0))} in the overview" + (": " + ", ".join(parts) if parts else "")


def status_lines(store: SessionStore) -> list[str]:
    """``cosci status`` lines: evidence, and the overview's claims and audit when written."""
    lines = [f"evidence     {session_counts(store).line()}"]
    checked = checked_overview(store)
    if checked:
        audit = checked.get("audit") or {}
        score = audit.get("overall_score")
        share = (checked.get("agreement") or {}).get("share")
        lines.append(f"claims       {claims_line(checked)}")
        if not checked.get("claims_total"):
            return [*lines, f"audit        none: {NO_CLAIMS}"]
        agreement = (f"agrees with the support check on {share:.0%} of the claims both judged"
                     if isinstance(share, int | float) else "no claim judged by both it and the support check")
        lines.append(f"audit        {audit.get('status', 'done' if score is not None else 'unchecked')}, score "
                     f"{f'{score:.2f}' if isinstance(score, int | float) else 'none'}; {agreement}")
    return lines
