"""Who is shown first, when a pair is judged in both orders, and what the verdicts add up to (design.md#tournament).

LLM judges favour a position (about 13 % of pairwise verdicts flip when the two answers swap places in the
study the issue cites), so the order is never fixed by id: :func:`presentation_order` draws it from the task's
seeded RNG (a retried task replays the same order). :func:`wants_dual_order` says whether a match is judged in
both orders: ``all``; ``close`` — debate matches and pairwise matches within ``elo_gap`` Elo points, the ones
that decide the top; or ``off``. Independently of the policy, a ``sample`` share of the remaining matches is
judged both ways so the session's flip rate is always measured. :func:`resolve` turns the per-order verdicts
into one outcome: agreement is a win, disagreement a draw (Elo score 0.5), an invalid order is ignored when
the other is valid.
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Literal

if TYPE_CHECKING:
    from cosci.config.schema import RankingCfg

DRAW = "draw"
"""The outcome of a dual-order match whose two orders disagree."""


@dataclass(frozen=True)
class DualOrderCfg:
    """Args: policy (``off`` | ``close`` | ``all``), elo_gap (Elo points, ``close`` only), sample (share of the
    other matches also judged both ways, for the flip-rate statistic, in [0, 1]); the values come from the
    ``ranking`` config (:meth:`from_config`)."""

    policy: Literal["off", "close", "all"]
    elo_gap: float
    sample: float

    @classmethod
    def from_config(cls, ranking: RankingCfg) -> DualOrderCfg:
        """``ranking.dual_order``, ``ranking.dual_order_elo_gap`` and ``ranking.dual_order_sample``."""
        return cls(policy=ranking.dual_order, elo_gap=ranking.dual_order_elo_gap, sample=ranking.dual_order_sample)


def presentation_order(a: str, b: str, rng: random.Random) -> tuple[str, str]:
    """``(shown first, shown second)``: a fair coin from ``rng``, never the ids' order."""
    return (a, b) if rng.random() < 0.5 else (b, a)


def wants_dual_order(mode: str, elo_gap: float, cfg: DualOrderCfg, rng: random.Random) -> bool:
    """True when the match is judged in both orders (one RNG draw is always consumed, so replay is stable)."""
    coin = rng.random()
    if cfg.policy == "all":
        return True
    if cfg.policy == "close" and (mode == "debate" or abs(elo_gap) < cfg.elo_gap):
        return True
    return coin < cfg.sample


def resolve(winners: Sequence[str | None]) -> str | None:
    """One outcome from the per-order winners: the agreed winner id, :data:`DRAW`, or None (no valid verdict)."""
    valid = [w for w in winners if w is not None]
    if not valid:
        return None
    return valid[0] if all(w == valid[0] for w in valid) else DRAW


def score_of(a: str, outcome: str | None) -> float | None:
    """Elo/BT score of ``a`` for an outcome: 1 a won, 0.5 draw, 0 the other won, None invalid."""
    if outcome is None:
        return None
    return 0.5 if outcome == DRAW else (1.0 if outcome == a else 0.0)
