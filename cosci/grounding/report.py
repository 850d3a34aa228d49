"""A session's grounding numbers for ``cosci status``, the summary, MLflow and ``final/claims.json``
(``docs/design.md#claim-statuses``).

- evidence counts: :func:`~cosci.grounding.evidence.session_counts` (``evidence_proposed`` / ``_verified`` /
  ``_misquoted`` / ``_unseen``);
- the final overview's claims, their support check and the blind audit: the latest ``overview_checked`` event
  written by the meta-review agent (``claims_total``, ``claims_traceable``, ``claims_<status>`` for every status
  of :data:`~cosci.grounding.claims.STATUSES`, ``audit_score``, ``audit_agreement``, ``support_check_usd``); the
  audit's score and agreement only when an independent model audited (:data:`NOT_AUDITED`).
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


NOT_AUDITED = "not audited: no independent model"
"""Said instead of an audit score when the models config maps the auditor and the writer to one model (the
embedded model's config maps every tier to it): no audit call is made, and an older session's audit that ran on
the writer's own model shows no score either: a model grading its own text is not an audit
(``docs/design.md#claim-statuses``)."""


def independent(audit: dict[str, Any]) -> bool:
    """Whether a stored audit ran on a model other than the writer's (its ``model`` and ``writer_model``); a
    record that names neither cannot say, and is read as it was written."""
    model, writer = audit.get("model"), audit.get("writer_model")
    return not (model and writer and model == writer)


def audit_score(checked: dict[str, Any]) -> float | None:
    """The audit's score (0-1) when there is one to show: claims to audit, an independent auditor and a valid
    record; None otherwise."""
    audit = checked.get("audit") or {}
    score = audit.get("overall_score")
    if not checked.get("claims_total") or not independent(audit) or not isinstance(score, int | float):
        return None
    return float(score)


def audit_words(checked: dict[str, Any]) -> str:
    """The audit in one phrase for the summary, ``cosci status`` and the report: ``none: the overview has no claims
    to audit``, ``not audited: no independent model (the writer's model X is the only one)``, ``done, score
    0.62`` or ``unchecked`` (with why, when known)."""
    audit = checked.get("audit") or {}
    if not checked.get("claims_total"):
        return f"none: {NO_CLAIMS}"
    if not independent(audit):
        return f"{NOT_AUDITED} (the writer's model {audit.get('writer_model')} is the only one the models config has)"
    score = audit_score(checked)
    if score is not None:  # an audit in the short form says so (design.md#budget, "The short audit")
        return f"done{' (abridged)' if str(audit.get('error', '')).startswith('Abridged') else ''}, score {score:.2f}"
    return "unchecked" + (f": {' '.join(str(audit['error']).split())[:200]}" if audit.get("error") else "")


def shown_audit(audit: dict[str, Any] | None) -> dict[str, Any] | None:
    """The stored audit as ``claims.json`` shows it: an older session's audit by the writer's own model keeps its
    models and loses its score and findings (status ``not audited``)."""
    if not audit or independent(audit):
        return audit
    return {"status": "not audited", "model": audit.get("model"), "writer_model": audit.get("writer_model"),
            "error": NOT_AUDITED}


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
        score = audit_score(checked)  # none of an empty claim map, nor of the writer's own model
        if score is not None:
            out["audit_score"] = score
        share = (checked.get("agreement") or {}).get("share")
        if isinstance(share, int | float) and score is not None:
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
            "audit": shown_audit(checked.get("audit")),
            "agreement": checked.get("agreement") if independent(checked.get("audit") or {}) else None,
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
        share = (checked.get("agreement") or {}).get("share")
        lines.append(f"claims       {claims_line(checked)}")
        if audit_score(checked) is None:
            return [*lines, f"audit        {audit_words(checked)}"]
        agreement = (f"agrees with the support check on {share:.0%} of the claims both judged"
                     if isinstance(share, int | float) else "no claim judged by both it and the support check")
        lines.append(f"audit        {audit_words(checked)}; {agreement}")
    return lines
