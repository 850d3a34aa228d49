"""One match's plan: the pair (by the configured pairing), the mode, who is shown first, single or dual order.

The ranking agent and the ranking simulator (``bench/ranking_sim.py``) both call :func:`plan_match`, so the
simulator measures the code a session runs. Pairings (``ranking.pairing``, design.md#tournament):

- ``elo_buckets`` — new arrivals, close Elo, random top half (:func:`cosci.tournament.pairing.select_pair`);
- ``uncertainty`` — :func:`cosci.tournament.uncertainty.select_uncertain` on the current Bradley–Terry fit.

The RNG draws happen in a fixed sequence (pair, then order, then dual-order coin), so a task seeded the same
way replays the same plan; a session passes the match's key and its dual-order record, so the dual-order sample
is a hash of the key topped up by a quota (design.md#position-bias).
"""

from __future__ import annotations

import random
from collections.abc import Collection, Mapping, Sequence
from dataclasses import dataclass
from typing import Literal

from cosci.config.schema import RankingCfg
from cosci.tournament.boundary import top_k_chances
from cosci.tournament.bt import BTFit
from cosci.tournament.judging import DualOrderCfg, DualOrderState, presentation_order, wants_dual_order
from cosci.tournament.pairing import Blocked, PairingCfg, Player, Similarity, never_blocked, select_mode, select_pair
from cosci.tournament.uncertainty import SimilarityBlock, UncertaintyCfg, select_uncertain

Pairing = Literal["elo_buckets", "uncertainty"]


@dataclass(frozen=True)
class TournamentCfg:
    """Everything that plans a match; built from the ``ranking`` config (:meth:`from_config`) by the agent and the
    simulator."""

    pairing: Pairing
    buckets: PairingCfg
    uncertainty: UncertaintyCfg
    dual: DualOrderCfg

    @classmethod
    def from_config(cls, ranking: RankingCfg) -> TournamentCfg:
        """The plan settings of a session's ``ranking`` config (the agent and the simulator build them here)."""
        return cls(pairing=ranking.pairing, buckets=PairingCfg.from_config(ranking),
                   uncertainty=UncertaintyCfg.from_config(ranking), dual=DualOrderCfg.from_config(ranking))


@dataclass(frozen=True)
class MatchPlan:
    """``first``/``second``: the presentation order (hypothesis 1 and 2 in the prompt); ``dual``: judge the
    swapped order too."""

    first: str
    second: str
    bucket: str
    mode: Literal["debate", "pairwise"]
    dual: bool


def plan_match(players: Sequence[Player], rng: random.Random, sim: Similarity, cfg: TournamentCfg,
               fit: BTFit | None, focus_id: str | None = None, exclude: Collection[str] = (),
               blocked: Blocked = never_blocked, state: DualOrderState | None = None,
               key: str | None = None, sim_block: SimilarityBlock | None = None,
               shown: Mapping[tuple[str, str], int] | None = None) -> MatchPlan | None:
    """Plan the next match; None when fewer than two players are free.

    Args:
        players: tournament players (Elo in points, matches played).
        fit: the current Bradley–Terry fit (required by ``uncertainty``; without it the Elo buckets are used).
        focus_id: a new arrival to play first.
        exclude: ids in play in a concurrent round, never chosen.
        blocked: pairs that may not be played (the rematch cap, ``ranking.max_matches_per_pair``; design.md#tournament).
        state: the session's dual-order record so far (the quota and the bias escalation of
            :func:`~cosci.tournament.judging.wants_dual_order`; design.md#position-bias); None: the sample alone.
        key: the match's key (seed, task, index): the dual-order sample's coin is its hash, so a resumed task
            draws the same; None: the RNG's draw.
        sim_block: many similarities in one call (the uncertainty pairing's large-pool path; design.md#scale).
        shown: single-order judging calls so far per ``(first, second)``: a rematch is shown in the order judged
            fewer times (:func:`~cosci.tournament.judging.presentation_order`; design.md#judge-memory), and the
            uncertainty pairing values it by the information that order's next verdict adds
            (:func:`~cosci.tournament.uncertainty.rematch_information`); None: the coin alone, every pair valued 1.
    """
    if cfg.pairing == "uncertainty" and fit is not None:
        pair = select_uncertain(players, fit, rng, sim, cfg.uncertainty, focus_id=focus_id, exclude=exclude,
                                blocked=blocked, sim_block=sim_block, shown=shown)
    else:
        pair = select_pair(players, rng, sim, cfg.buckets, focus_id=focus_id, exclude=exclude, blocked=blocked)
    if pair is None:
        return None
    by_id = {p.id: p for p in players}
    pa, pb = by_id[pair.a], by_id[pair.b]
    mode = select_mode(pa, pb, cfg.buckets)
    first, second = presentation_order(pair.a, pair.b, rng, shown)
    straddles = None
    if cfg.dual.sample_on == "boundary" and fit is not None and len(fit.ids) > cfg.uncertainty.top_k:
        chance = top_k_chances(fit, cfg.uncertainty.top_k)
        straddles = all(0.025 <= chance.get(h, 0.0) <= 0.975 for h in (pair.a, pair.b))
    dual = wants_dual_order(mode, pa.elo - pb.elo, cfg.dual, rng, state=state, key=key, boundary=straddles)
    return MatchPlan(first, second, pair.bucket, mode, dual)
