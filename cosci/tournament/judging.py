"""Who is shown first, when a pair is judged in both orders, and what the verdicts add up to (design.md#tournament).

LLM judges favour a position (about 13 % of pairwise verdicts flip when the two answers swap places in the
study the issue cites), so the order is never fixed by id: :func:`presentation_order` draws it from the task's
seeded RNG (a retried task replays the same order). :func:`wants_dual_order` says whether a match is judged in
both orders: ``all``; ``close`` — debate matches and pairwise matches within ``elo_gap`` Elo points, the ones
that decide the top; or ``off``. Independently of the policy, a ``sample`` share of the remaining matches is
judged both ways so the session's flip rate is always measured (design.md#position-bias):

- the sample is drawn from a hash of the match's key (:func:`unit_hash`), so a resumed or retried task makes
  the same choice whatever else the session did meanwhile;
- a quota tops it up: after ``n`` matches at least ``floor(n · sample)`` were dual-order (with ``sample`` 0.1 the
  10th match is dual-order if none of the first nine was), so a short session measures a flip rate too;
- once the first-shown win rate's 95 % interval excludes one half (:class:`DualOrderState` ``biased``), close
  pairs are judged in both orders with probability ``biased_share``.

:func:`resolve` turns the per-order verdicts into one outcome: agreement is a win, disagreement a draw (Elo score
0.5), an invalid order is ignored when the other is valid.
"""

from __future__ import annotations

import hashlib
import math
import random
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Literal

if TYPE_CHECKING:
    from cosci.config.schema import RankingCfg

DRAW = "draw"
"""The outcome of a dual-order match whose two orders disagree."""


@dataclass(frozen=True)
class DualOrderCfg:
    """Args: policy (``off`` | ``close`` | ``all``), elo_gap (Elo points: what a close pair is), sample (share of
    the other matches also judged both ways, for the flip-rate statistic, in [0, 1]), biased_share (share of close
    pairs judged both ways once the position bias is significant, in [0, 1]); the values come from the
    ``ranking`` config (:meth:`from_config`)."""

    policy: Literal["off", "close", "all"]
    elo_gap: float
    sample: float
    biased_share: float
    sample_on: Literal["random", "boundary"] = "random"
    """Which matches the sample judges both ways: ``random`` — a ``sample`` share by the match key's hash;
    ``boundary`` — every match whose two hypotheses both sit within their 95 % interval of the top-k line
    (:func:`cosci.tournament.boundary.top_k_chances` in [0.025, 0.975]; tried at bench/README.md's nineteenth
    stop). The quota tops either up."""

    @classmethod
    def from_config(cls, ranking: RankingCfg) -> DualOrderCfg:
        """``ranking.dual_order``, ``ranking.dual_order_elo_gap``, ``ranking.dual_order_sample`` and
        ``ranking.dual_order_biased_share``."""
        return cls(policy=ranking.dual_order, elo_gap=ranking.dual_order_elo_gap, sample=ranking.dual_order_sample,
                   biased_share=ranking.dual_order_biased_share)


@dataclass(frozen=True)
class DualOrderState:
    """What the session measured before this match: ``matches`` played (valid or not), ``dual_matches`` among them
    judged in both orders, and ``biased`` — the first-shown win rate's 95 % interval excludes one half
    (:func:`cosci.tournament.judge_stats.position_bias`)."""

    matches: int
    dual_matches: int
    biased: bool


def unit_hash(key: str) -> float:
    """A number in [0, 1) from sha256 of ``key``: the same key, the same number, in every process."""
    return int.from_bytes(hashlib.sha256(key.encode()).digest()[:8], "big") / 2.0**64


def presentation_order(a: str, b: str, rng: random.Random,
                       shown: Mapping[tuple[str, str], int] | None = None) -> tuple[str, str]:
    """``(shown first, shown second)``: a fair coin from ``rng``, never the ids' order; with ``shown`` (single-order
    judging calls so far per ``(first, second)``) a pair judged more often in one order is shown in the other.

    A judge asked the same prompt again mostly repeats its verdict (design.md#judge-memory: a rerun flips 13.6 %
    of the time); the swapped prompt is answered afresh. So a rematch in the order shown fewer times buys a new
    verdict where the same order would mostly buy the old one again. The coin is drawn either way, so the rest of
    a seeded plan replays the same.
    """
    first, second = (a, b) if rng.random() < 0.5 else (b, a)
    if shown is not None and shown.get((first, second), 0) > shown.get((second, first), 0):
        return second, first
    return first, second


def wants_dual_order(mode: str, elo_gap: float, cfg: DualOrderCfg, rng: random.Random,
                     state: DualOrderState | None = None, key: str | None = None,
                     boundary: bool | None = None) -> bool:
    """True when the match is judged in both orders (module docstring).

    One RNG draw is always consumed, so the rest of a seeded plan replays the same. With ``key`` the sample's coin
    is :func:`unit_hash` of it instead of that draw; with ``state`` the quota and the bias escalation apply
    (without it — the ranking simulator's plain call — neither does).

    Args:
        mode: ``debate`` or ``pairwise``.
        elo_gap: Elo of one side minus the other's, Elo points.
        boundary: with ``cfg.sample_on == "boundary"``, whether the pair straddles the top-k line: it replaces the
            sample's coin (None: the coin).
    """
    coin = rng.random()
    close = mode == "debate" or abs(elo_gap) < cfg.elo_gap
    if cfg.policy == "all" or (cfg.policy == "close" and close):
        return True
    u = unit_hash(key) if key is not None else coin
    if (boundary if cfg.sample_on == "boundary" and boundary is not None else u < cfg.sample):
        return True
    if state is None:
        return False
    if state.biased and close and u < cfg.biased_share:
        return True
    return state.dual_matches < math.floor((state.matches + 1) * cfg.sample + 1e-9)  # the quota


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
