"""Pair and mode selection for tournament matches (design.md#tournament, "Mode Selection").

Buckets, tried in this order of preference:

1. **focus** — when a focus hypothesis is given (a new arrival), it meets its nearest-Elo opponent;
2. **new-arrival** (``p_new`` = 0.4) — a hypothesis with fewer than 3 matches meets the nearest-Elo warm one;
3. **close-Elo** (``p_close`` = 0.4) — among warm pairs with ``|ΔElo| < 200``, sampled with weight
   ``exp(-|ΔElo| / 200) * (1 - cosine)``: close in Elo, distant in idea space;
4. **random top-half** (``p_random`` = 0.2) — a random pair from the top half of the leaderboard.

Hypotheses in ``exclude`` (in play in a concurrent tournament round) are never chosen.

A bucket with no candidate falls through to the next, so any pool of two or more players yields a pair unless
every pair is *blocked*: a pair that reached the rematch cap (``ranking.max_matches_per_pair``, design.md#tournament) is
never chosen again, and when no pair is left the tournament has nothing more to learn (stop reason
``stalled``). All randomness comes from the ``random.Random`` passed in (seeded per task), so a retried task
picks the same pair.
"""

from __future__ import annotations

import math
import random
from collections.abc import Callable, Collection, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Literal, Protocol

if TYPE_CHECKING:
    from cosci.config.schema import RankingCfg


class Player(Protocol):
    """What pairing reads of a hypothesis (read-only, so frozen :class:`~cosci.domain.Hypothesis` fits)."""

    @property
    def id(self) -> str: ...
    @property
    def elo(self) -> float: ...
    @property
    def matches_played(self) -> int: ...


Similarity = Callable[[str, str], float]
"""Cosine similarity of two hypotheses' embeddings in [-1, 1]; 0 when unknown."""
Blocked = Callable[[str, str], bool]
"""True for a pair that may not be played (it reached the rematch cap)."""


def never_blocked(a: str, b: str) -> bool:
    """The default :data:`Blocked`: no pair is blocked."""
    return False


@dataclass(frozen=True)
class BlockedPairs:
    """A :data:`Blocked` given as its pairs (each ``(min id, max id)``): a caller scoring thousands of pairs can
    look the few blocked ones up instead of asking once per pair (design.md#scale)."""

    pairs: frozenset[tuple[str, str]]

    def __call__(self, a: str, b: str) -> bool:
        return (min(a, b), max(a, b)) in self.pairs



@dataclass(frozen=True)
class PairingCfg:
    """The Elo-buckets pairing and the mode selection (design.md#tournament); the values come from the ``ranking``
    config (:meth:`from_config`, conf/config.yaml), the same keys by name."""

    p_new: float
    p_close: float
    p_random: float
    new_arrival_matches: int
    close_elo_window: float
    debate_min_matches: int
    debate_elo_gap: float

    @classmethod
    def from_config(cls, ranking: RankingCfg) -> PairingCfg:
        """The pairing settings of a session's ``ranking`` config, by key."""
        return cls(p_new=ranking.p_new, p_close=ranking.p_close, p_random=ranking.p_random,
                   new_arrival_matches=ranking.new_arrival_matches, close_elo_window=ranking.close_elo_window,
                   debate_min_matches=ranking.debate_min_matches, debate_elo_gap=ranking.debate_elo_gap)


@dataclass(frozen=True)
class Pairing:
    a: str
    b: str
    bucket: Literal["focus", "new_arrival", "close_elo", "random_top", "warmup", "uncertainty"]


def _nearest(target: Player, others: Sequence[Player], blocked: Blocked = never_blocked) -> Player | None:
    pool = [p for p in others if p.id != target.id and not blocked(target.id, p.id)]
    return min(pool, key=lambda p: (abs(p.elo - target.elo), p.id)) if pool else None


def _new_arrival(players: Sequence[Player], cfg: PairingCfg, rng: random.Random,
                 blocked: Blocked = never_blocked) -> Pairing | None:
    new = [p for p in players if p.matches_played < cfg.new_arrival_matches]
    warm = [p for p in players if p.matches_played >= cfg.new_arrival_matches]
    new = [p for p in new if _nearest(p, players, blocked)]
    if not new:
        return None
    arrival = rng.choice(sorted(new, key=lambda p: p.id))
    opponent = _nearest(arrival, warm, blocked) or _nearest(arrival, players, blocked)
    return Pairing(arrival.id, opponent.id, "new_arrival") if opponent else None


def _close_elo(players: Sequence[Player], cfg: PairingCfg, rng: random.Random, sim: Similarity,
              blocked: Blocked = never_blocked) -> Pairing | None:
    warm = sorted((p for p in players if p.matches_played >= cfg.new_arrival_matches), key=lambda p: p.id)
    pairs, weights = [], []
    for i, a in enumerate(warm):
        for b in warm[i + 1:]:
            gap = abs(a.elo - b.elo)
            if gap < cfg.close_elo_window and not blocked(a.id, b.id):
                w = math.exp(-gap / cfg.close_elo_window) * max(1.0 - sim(a.id, b.id), 1e-3)
                pairs.append((a.id, b.id))
                weights.append(w)
    if not pairs:
        return None
    first, second = rng.choices(pairs, weights=weights, k=1)[0]
    return Pairing(first, second, "close_elo")


def _random_top(players: Sequence[Player], rng: random.Random, blocked: Blocked = never_blocked) -> Pairing | None:
    ranked = sorted(players, key=lambda p: (-p.elo, p.id))
    top = ranked[: max(2, math.ceil(len(ranked) / 2))]
    pairs = [(a, b) for i, a in enumerate(top) for b in top[i + 1:] if not blocked(a.id, b.id)]
    if not pairs:  # the top half is played out: any pair left on the ladder
        pairs = [(a, b) for i, a in enumerate(ranked) for b in ranked[i + 1:] if not blocked(a.id, b.id)]
    if not pairs:
        return None
    a, b = rng.choice(pairs)
    return Pairing(a.id, b.id, "random_top")


def select_pair(players: Sequence[Player], rng: random.Random, sim: Similarity, cfg: PairingCfg,
                focus_id: str | None = None, blocked: Blocked = never_blocked,
                exclude: Collection[str] = ()) -> Pairing | None:
    """Choose the next match among tournament players not in ``exclude``; None when fewer than two are free or
    every pair is ``blocked``."""
    players = [p for p in players if p.id not in exclude]
    if len(players) < 2:
        return None
    if focus_id:
        focus = next((p for p in players if p.id == focus_id), None)
        opponent = _nearest(focus, players, blocked) if focus else None
        if focus and opponent:
            return Pairing(focus.id, opponent.id, "focus")
    roll = rng.random()
    order = (["new", "close", "random"] if roll < cfg.p_new else
             ["close", "random", "new"] if roll < cfg.p_new + cfg.p_close else ["random", "new", "close"])
    for bucket in order:
        pick = (_new_arrival(players, cfg, rng, blocked) if bucket == "new" else
                _close_elo(players, cfg, rng, sim, blocked) if bucket == "close" else
                _random_top(players, rng, blocked))
        if pick:
            return pick
    return None


def select_mode(a: Player, b: Player, cfg: PairingCfg) -> Literal["debate", "pairwise"]:
    """Debate when either side has fewer than ``cfg.debate_min_matches`` matches or ``|ΔElo| <
    cfg.debate_elo_gap``; otherwise pairwise (design.md#tournament)."""
    if min(a.matches_played, b.matches_played) < cfg.debate_min_matches or abs(a.elo - b.elo) < cfg.debate_elo_gap:
        return "debate"
    return "pairwise"
