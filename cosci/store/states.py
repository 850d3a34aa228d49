"""The hypothesis state machine (design.md#states).

``draft -> reviewed -> in_tournament -> pinned``; any live state may go to ``quarantined`` (safety screening),
``rejected`` (the researcher's rejection or a refuting lab result) or ``retired`` (superseded: an evolved hypothesis
beat it in a match, :meth:`cosci.store.matches.Matches.apply`); a retired one may still be rejected (a refuting
result is about the idea). A pinned hypothesis may be unpinned back to the tournament, a quarantined one only
released back to draft (``cosci release``): it takes no rating, result or rejection before, so its text never
becomes a rejected direction. A withdrawn result (``cosci result --withdraw``) moves its hypothesis back to the
state the result moved it from (:data:`WITHDRAWAL`), the one way out of ``rejected``. Re-entering the current state
is a no-op, so a retried action is safe.
"""

from __future__ import annotations

from cosci.domain import HypothesisState
from cosci.errors import IllegalTransition

_LIVE_EXITS = {"quarantined", "rejected", "retired"}
ALLOWED: dict[str, set[str]] = {
    "draft": {"reviewed"} | _LIVE_EXITS,
    "reviewed": {"in_tournament"} | _LIVE_EXITS,
    "in_tournament": {"pinned"} | _LIVE_EXITS,
    "pinned": {"in_tournament", "retired", "rejected"},
    "quarantined": {"draft"},
    "rejected": set(),
    "retired": {"rejected"},
}
WITHDRAWAL: dict[str, set[str]] = {
    "rejected": {"draft", "reviewed", "in_tournament", "pinned", "retired"},
    "pinned": {"in_tournament"},
}
"""The moves a withdrawn result undoes: from the state a result moved its hypothesis to (refuted: rejected,
supported: pinned) back to the one it had (design.md#experimental-results)."""


def check_transition(hypothesis_id: str, current: str, new: HypothesisState, *, withdrawal: bool = False) -> bool:
    """Whether the transition changes anything; raises if it is illegal. ``withdrawal``: the move undoes a
    withdrawn result (:data:`WITHDRAWAL` is allowed too).

    Returns:
        False when ``new == current`` (an idempotent no-op), True otherwise.

    Raises:
        IllegalTransition: the state machine forbids ``current -> new``.
    """
    if new == current:
        return False
    allowed = ALLOWED.get(current, set()) | (WITHDRAWAL.get(current, set()) if withdrawal else set())
    if new not in allowed:
        raise IllegalTransition(f"hypothesis {hypothesis_id}: illegal state change {current} -> {new}")
    return True
