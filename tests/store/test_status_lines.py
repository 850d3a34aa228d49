"""`cosci status`'s grounding lines: every figure a number or said in words, never a bare dash."""

from __future__ import annotations

from cosci.grounding.report import NOT_AUDITED, claims_document, grounding_metrics, status_lines
from cosci.store import SessionStore


def _checked(store: SessionStore, payload: dict) -> None:
    store.logs.event("overview_checked", payload, agent="meta_review")


def test_an_audit_with_no_claim_judged_by_both_says_so(store: SessionStore) -> None:
    _checked(store, {"claims_total": 2, "claims_hypothesis_only": 2, "audit": {"status": "done",
                                                                              "overall_score": 0.5},
                     "agreement": {"share": None, "compared": 0}})
    *_, claims, audit = status_lines(store)
    assert claims == "claims       2 in the overview: 2 hypothesis_only"
    assert audit == "audit        done, score 0.50; no claim judged by both it and the support check"
    assert " - " not in audit


def test_an_audit_that_agrees_shows_its_share(store: SessionStore) -> None:
    _checked(store, {"claims_total": 1, "claims_supported": 1, "audit": {"status": "done", "overall_score": 1},
                     "agreement": {"share": 0.5, "compared": 2}})
    assert status_lines(store)[-1] == "audit        done, score 1.00; agrees with the support check on 50% of the " \
                                      "claims both judged"


def test_an_unchecked_audit_has_no_score(store: SessionStore) -> None:
    _checked(store, {"claims_total": 1, "claims_hypothesis_only": 1, "audit": {}})
    assert status_lines(store)[-1] == "audit        unchecked"
    _checked(store, {"claims_total": 1, "claims_hypothesis_only": 1,
                     "audit": {"status": "unchecked", "error": "TruncatedArguments: record_audit"}})
    assert status_lines(store)[-1] == "audit        unchecked: TruncatedArguments: record_audit"


def test_an_overview_without_claims_has_no_audit_score(store: SessionStore) -> None:
    """Fresh-user trial: an overview with 0 claims got an audit score (one stored before the audit was skipped)."""
    _checked(store, {"claims_total": 0, "audit": {"status": "done", "overall_score": 0.7}})
    assert status_lines(store)[-1] == "audit        none: the overview has no claims to audit"


def test_an_older_audit_by_the_writers_own_model_shows_no_score(store: SessionStore) -> None:
    """A session audited before this rule, on the writer's own model, keeps its record but no score is shown."""
    store.logs.event("overview_checked", {
        "claims_total": 2, "claims_hypothesis_only": 2, "agreement": {"share": 1.0, "compared": 1},
        "audit": {"status": "done", "overall_score": 1.0, "model": "cosci-local/smollm2-135m-instruct",
                  "writer_model": "cosci-local/smollm2-135m-instruct", "summary": "Fine.", "overclaims": []}},
        agent="meta_review")
    assert "audit_score" not in grounding_metrics(store) and "audit_agreement" not in grounding_metrics(store)
    assert status_lines(store)[-1].startswith(f"audit        {NOT_AUDITED}")
    doc = claims_document(store)
    assert doc is not None and "overall_score" not in doc["audit"] and doc["agreement"] is None
