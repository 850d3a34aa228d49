"""The rematch cap (``ranking.max_matches_per_pair``, design.md#tournament, design.md#termination): the one owner of
the rule the ranking agent applies when a round chooses its pairs and the Supervisor applies when it asks whether any
pair is left (none left, and the pool cannot grow: stop reason ``stalled``).

The rule: a pair (ids in either order) is at the cap once its matches played plus its matches waiting in a provider
batch (queued or submitted, not yet applied; design.md#batches) reach the cap. A waiting match counts as played, so
a round never chooses a pair whose cap its own batch will reach.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Collection, Iterable, Mapping

Pair = tuple[str, str]
"""A pair of hypothesis ids, ``(min id, max id)``."""


def pair_key(a: str, b: str) -> Pair:
    """The pair of ``a`` and ``b`` in either order."""
    return (a, b) if a <= b else (b, a)


def reached(matches: int, cap: int) -> bool:
    """Whether a pair with ``matches`` (played and waiting) is at the rematch cap ``cap`` (≥ 1)."""
    return matches >= cap


def capped_pairs(played: Mapping[Pair, int], waiting: Iterable[tuple[str, str]], cap: int,
                 known: Collection[Pair] | None = None) -> frozenset[Pair]:
    """The pairs at the cap.

    Args:
        played: matches played per pair (``(min id, max id)`` keys).
        waiting: one ``(a, b)`` per match waiting in a provider batch, ids in any order.
        cap: ``ranking.max_matches_per_pair``.
        known: the pairs already at the cap on ``played`` alone, when the caller keeps them current
            (:class:`cosci.supervisor.state.PoolState`); None: found here from ``played``.
    """
    full = set(known) if known is not None else {p for p, n in played.items() if reached(n, cap)}
    pending = Counter(pair_key(a, b) for a, b in waiting)
    full.update(p for p, n in pending.items() if reached(played.get(p, 0) + n, cap))
    return frozenset(full)


def open_pairs(members: Collection[str], full: Iterable[Pair]) -> int:
    """Pairs of ``members`` (tournament players) not at the cap, given the pairs at the cap (``full``)."""
    total = len(members) * (len(members) - 1) // 2
    return total - sum(1 for a, b in full if a in members and b in members)
