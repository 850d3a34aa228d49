"""The hypothesis state machine (design.md#states).

``draft -> reviewed -> in_tournament -> pinned``; any live state may go to ``quarantined`` (safety screening),
``rejected`` (the researcher's rejection) or ``retired`` (superseded: an evolved hypothesis beat it in a match,
:meth:`cosci.store.matches.Matches.apply`). A pinned hypothesis may be unpinned back to the tournament, a
quarantined one released back to draft. Re-entering the current state is a no-op, so a retried action is safe.
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
    "quarantined": {"draft", "rejected"},
    "rejected": set(),
    "retired": set(),
}


def check_transition(hypothesis_id: str, current: str, new: HypothesisState) -> bool:
    """Whether the transition changes anything; raises if it is illegal.

    Returns:
        False when ``new == current`` (an idempotent no-op), True otherwise.

    Raises:
        IllegalTransition: the state machine forbids ``current -> new``.
    """
    if new == current:
        return False
    if new not in ALLOWED.get(current, set()):
        raise IllegalTransition(f"hypothesis {hypothesis_id}: illegal state change {current} -> {new}")
    return True
