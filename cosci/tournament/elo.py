"""Elo ratings with the K-factor schedule of design.md#tournament.

Standard Elo (Elo, 1978): the expected score of A against B is ``1 / (1 + 10 ** ((R_b - R_a) / 400))`` and
A's rating moves by ``K * (S_a - E_a)``; B moves by the opposite amount, so every match is zero-sum. K is
``k_factor_new`` (32) while the less experienced player has fewer than ``new_matches_threshold`` (5) matches,
``k_factor_warm`` (16) afterwards. All ratings are in Elo points. A draw (design.md#tournament: the two presentation
orders disagreed) scores 0.5 for both players, Elo's usual draw score.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from cosci.config.schema import RankingCfg


def expected_score(elo_a: float, elo_b: float) -> float:
    """Probability that A beats B under Elo's logistic model (base 10, scale 400)."""
    return 1.0 / (1.0 + 10.0 ** ((elo_b - elo_a) / 400.0))


@dataclass(frozen=True)
class EloRule:
    """The Elo update; an instance is the ``rule`` the store applies inside its match transaction. The values come
    from the ``ranking`` config (:meth:`from_config`; conf/config.yaml, design.md#tournament), never from here.

    Args:
        k_new: K while the less experienced player is new (``ranking.k_factor_new``).
        k_warm: K once both have played ``new_threshold`` matches (``ranking.k_factor_warm``).
        new_threshold: matches below which a player counts as new (``ranking.new_matches_threshold``).
    """

    k_new: float
    k_warm: float
    new_threshold: int

    @classmethod
    def from_config(cls, ranking: RankingCfg) -> EloRule:
        """The rule of the ``ranking`` config: ``k_factor_new``, ``k_factor_warm``, ``new_matches_threshold``."""
        return cls(k_new=ranking.k_factor_new, k_warm=ranking.k_factor_warm,
                   new_threshold=ranking.new_matches_threshold)

    def k_factor(self, matches_a: int, matches_b: int) -> float:
        """K for a match: new if ``min(matches_a, matches_b) < new_threshold``."""
        return self.k_new if min(matches_a, matches_b) < self.new_threshold else self.k_warm

    def __call__(self, elo_a: float, matches_a: int, elo_b: float, matches_b: int,
                 a_score: float | bool) -> tuple[float, float]:
        """Returns ``(delta_a, k)``; B's change is ``-delta_a``. ``a_score``: 1 (or True) win, 0.5 draw, 0 loss."""
        k = self.k_factor(matches_a, matches_b)
        return k * (float(a_score) - expected_score(elo_a, elo_b)), k
