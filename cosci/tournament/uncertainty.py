"""Uncertainty-driven pair selection: spend each comparison where it best settles the top k (design.md#tournament).

The scheme measured in design.md#tournament (``bench/ranking_sim.py`` reproduces it on cosci's code):

1. **Warm-up.** A hypothesis with fewer than ``warmup_matches`` (4) matches meets another under-played one, the
   least-played first with random ties — with every hypothesis present from the start these are random perfect
   matchings, round after round; a newcomer later in a session is simply played in.
2. **Boundary rivals.** With the Bradley–Terry fit (:mod:`cosci.tournament.bt`), rank by θ. Every hypothesis
   ``i`` has a rival across the top-k boundary: the (k+1)-th for members, the k-th for outsiders. Its weight is
   ``φ(z_i) / v_i^power`` (``boundary_power``: 1.5), where ``g_i`` = θ_i − θ_rival, ``v_i`` its Laplace variance
   and ``z_i = g_i / √v_i``: large when the side of the boundary ``i`` is on is uncertain. A step that removes
   ``Δv_i ∝ v_i²`` then scores ``φ(z_i)·√v_i``, the rule of ``bench/ranking_bound.py``'s idealised allocation (the
   earlier power 1 scored ``φ(z_i)·v_i``, favouring the least known; design.md#tournament).
3. **Information score.** For a candidate pair (a, b), one more verdict adds Fisher information
   ``p(1 − p)·x xᵀ`` (x = e_a − e_b, p from the fit); the rank-one Laplace update shrinks each ``v_i`` by
   ``p(1 − p)(c_iᵀΣx)² / (1 + p(1 − p) xᵀΣx)`` (c_i = e_i − e_rival). The score is the weighted sum of those
   shrinkages, times a small idea-distance bonus ``1 + distance_bonus·(1 − cosine)`` (the preference for
   distant ideas, kept as a tie-break; design.md#tournament), and (``rematch_information``) times the information
   the pair's next verdict adds at the judge's repeat share (:func:`rematch_information`; design.md#judge-memory).
4. **Draw.** The pair is drawn by a softmax over ``temperature · score / max score`` (``pair_draw: softmax``), or
   (``pair_draw: thompson``) steps 2-3 are computed at one draw of θ from the fit's Gaussian posterior and the
   best pair of that draw is played (:func:`thompson_fit`).

Hypotheses in ``exclude`` (being played by a concurrent round) are never chosen. All randomness comes from
the ``random.Random`` passed in, so a retried task picks the same pair.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Collection, Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np
from numpy.typing import NDArray

from cosci.tournament.boundary import boundary_candidates, candidate_scores, pair_scores
from cosci.tournament.bt import BTFit, Method
from cosci.tournament.pairing import Blocked, BlockedPairs, Pairing, Player, Similarity, never_blocked
from cosci.tournament.rerun import effective_count

if TYPE_CHECKING:
    from cosci.config.schema import RankingCfg


PAIRING_FIT: Method = "laplace"
"""The Bradley–Terry fit the pairing reads after every match (design.md#tournament): the fixed-prior Laplace fit
(mode and inverse Hessian, ~4 ms at 40 hypotheses). Not the leaderboard's ``eb_is``: its importance-sampled
covariance (then 128 draws for 40+ parameters) was too noisy for step 3's products ``c_iᵀΣx`` (their
correlation with the half-win fit's pair scores: 0.78 on average, 0.32 at worst, against 0.9998 for this fit;
``python -m bench.ranking_sim --pair-scores``, bench/README.md); it also costs 25-40× more."""


@dataclass(frozen=True)
class UncertaintyCfg:
    """Args: top_k (the boundary watched; design.md#tournament), warmup_matches, temperature (softmax
    sharpness on scores scaled to max 1), distance_bonus (weight of 1 − cosine, a tie-break); the values come from
    the ``ranking`` config (:meth:`from_config`, the same keys by name)."""

    top_k: int
    warmup_matches: int
    temperature: float
    distance_bonus: float
    pair_candidates: int = 0
    """Pairs are scored among this many hypotheses nearest the boundary when the pool is larger
    (:func:`boundary_candidates`, design.md#scale); 0: the whole pool, always."""
    pair_draw: str = "softmax"
    """How the pair is drawn from the scores: ``softmax`` (step 4) or ``thompson`` (:func:`thompson_pick`)."""
    boundary_power: float = 1.0
    """The power of the gap variance in the boundary weight ``φ(z_i) / v_i^power`` (step 2)."""
    rematch_information: bool = False
    """Scale a pair's score by the information its next verdict carries at the judge's repeat share
    (:func:`rematch_information`; design.md#judge-memory)."""

    @classmethod
    def from_config(cls, ranking: RankingCfg) -> UncertaintyCfg:
        """The uncertainty strategy's settings of a session's ``ranking`` config, by key."""
        return cls(top_k=ranking.top_k, warmup_matches=ranking.warmup_matches, temperature=ranking.temperature,
                   distance_bonus=ranking.distance_bonus, pair_candidates=ranking.pair_candidates,
                   pair_draw=ranking.pair_draw, boundary_power=ranking.boundary_power,
                   rematch_information=ranking.rematch_information)


def _warmup(players: Sequence[Player], cfg: UncertaintyCfg, rng: random.Random,
            focus_id: str | None, blocked: Blocked = never_blocked) -> Pairing | None:
    cold = sorted((p for p in players if p.matches_played < cfg.warmup_matches), key=lambda p: p.id)
    if not cold:
        return None
    focus = next((p for p in cold if p.id == focus_id), None)
    if focus is None:
        fewest = min(p.matches_played for p in cold)
        focus = rng.choice([p for p in cold if p.matches_played == fewest])
    others = ([p for p in cold if p.id != focus.id and not blocked(focus.id, p.id)]
              or [p for p in players if p.id != focus.id and not blocked(focus.id, p.id)])
    if not others:
        return None
    fewest = min(p.matches_played for p in others)
    rival = rng.choice(sorted((p for p in others if p.matches_played == fewest), key=lambda p: p.id))
    return Pairing(focus.id, rival.id, "warmup")


def rematch_information(names: Sequence[str], iu: tuple[NDArray[np.intp], NDArray[np.intp]],
                        shown: Mapping[tuple[str, str], int] | None, repeat: float) -> NDArray[np.float64]:
    """Per pair ``(names[iu[0][k]], names[iu[1][k]])``, the information its next verdict adds, in fresh verdicts.

    A rematch is shown in the order judged fewer times (:func:`cosci.tournament.judging.presentation_order`), so
    it joins that order's ``m = min(shown[a, b], shown[b, a])`` earlier verdicts, whose lags ``d`` correlate
    ``repeat^d`` (:func:`cosci.tournament.rerun.effective_count`): it adds ``eff(m + 1) − eff(m)`` verdicts, 1
    for an order never judged, about 0.14 for a same-order replay at a repeat share of 0.75 (design.md#judge-memory).

    Args:
        shown: single-order judging calls so far per ``(first, second)``; None: every pair 1.
        repeat: the judge's repeat share ρ̂ in [0, 1] (:attr:`cosci.tournament.rerun.RerunEstimate.repeat_used`).
    """
    out = np.ones(iu[0].size)
    if not shown or repeat <= 0.0:
        return out
    pos = {h: i for i, h in enumerate(names)}
    counts = np.zeros((len(names), len(names)), np.intp)
    for (first, second), k in shown.items():
        if first in pos and second in pos:
            counts[pos[first], pos[second]] = k
    m = np.minimum(counts, counts.T)[iu]
    gain = np.asarray([effective_count(j + 1, repeat) - effective_count(j, repeat) for j in range(int(m.max()) + 1)])
    return np.asarray(gain[m], np.float64)


SimilarityBlock = Callable[[Sequence[str]], NDArray[np.float64]]
"""``(L, L)`` cosine similarities of the given ids (0 for an unknown id): one call for many pairs."""


def select_uncertain(players: Sequence[Player], fit: BTFit, rng: random.Random, sim: Similarity,
                     cfg: UncertaintyCfg, focus_id: str | None = None,
                     exclude: Collection[str] = (), blocked: Blocked = never_blocked,
                     sim_block: SimilarityBlock | None = None,
                     shown: Mapping[tuple[str, str], int] | None = None) -> Pairing | None:
    """Choose the next match by the uncertainty scheme; None when fewer than two players are free.

    Args:
        players: tournament players (their ``matches_played`` drives the warm-up).
        fit: a Bradley–Terry fit covering at least these players (others in it are ignored).
        exclude: ids in play elsewhere, never chosen.
        blocked: pairs that may not be played (the rematch cap; design.md#tournament); None when every pair is.
        focus_id: a new arrival to play first while it is warming up.
        sim_block: the similarities of many ids at once; used instead of ``sim`` (one call, not one per pair).
        shown: single-order judging calls so far per ``(first, second)``: with ``cfg.rematch_information`` a
            pair's score is scaled by its next verdict's information at the fit's repeat share
            (:func:`rematch_information`).

    A pool larger than ``cfg.pair_candidates`` (when it is not 0) scores only the pairs among its
    ``pair_candidates`` hypotheses nearest the top-k boundary (:func:`boundary_candidates`; design.md#scale).
    """
    free = sorted((p for p in players if p.id not in exclude), key=lambda p: p.id)
    if len(free) < 2:
        return None
    warm = _warmup(free, cfg, rng, focus_id, blocked)
    if warm:
        return warm
    pos = fit.index()
    ids = [p.id for p in free if p.id in pos]
    if len(ids) < 2:
        return None
    if cfg.pair_candidates and len(ids) > cfg.pair_candidates:
        return _select_large(ids, pos, fit, rng, sim, cfg, blocked, sim_block, shown)
    scores = pair_scores(thompson_fit(fit, rng) if cfg.pair_draw == "thompson" else fit, cfg.top_k,
                         cfg.boundary_power)
    idx = np.asarray([pos[h] for h in ids])
    sub = scores[np.ix_(idx, idx)]
    iu = np.triu_indices(len(ids), 1)
    flat = sub[iu]
    cos = sim_block(ids)[iu] if sim_block is not None else np.asarray(
        [sim(ids[i], ids[j]) for i, j in zip(*iu, strict=True)])
    bonus = 1.0 + cfg.distance_bonus * (1.0 - cos)
    allowed = np.asarray([not blocked(ids[i], ids[j]) for i, j in zip(*iu, strict=True)])
    if not allowed.any():
        return None
    flat = np.where(allowed, flat * bonus * _information(ids, iu, cfg, fit, shown), 0.0)
    if cfg.pair_draw == "thompson":
        pick = int(np.argmax(np.where(allowed, flat, -np.inf)))
        return Pairing(ids[int(iu[0][pick])], ids[int(iu[1][pick])], "uncertainty")
    top = float(flat.max())
    logits = cfg.temperature * flat / top if top > 0 else np.zeros_like(flat)
    weights = np.where(allowed, np.exp(logits - logits.max()), 0.0)
    pick = rng.choices(range(flat.size), weights=weights.tolist(), k=1)[0]
    return Pairing(ids[int(iu[0][pick])], ids[int(iu[1][pick])], "uncertainty")


def _allowed(names: Sequence[str], iu: tuple[NDArray[np.intp], NDArray[np.intp]], blocked: Blocked
             ) -> NDArray[np.bool_]:
    """Which pairs ``(names[iu[0][k]], names[iu[1][k]])`` may be played: all of them without a call per pair when
    nothing is blocked (:func:`~cosci.tournament.pairing.never_blocked`) or the blocked pairs are listed
    (:class:`~cosci.tournament.pairing.BlockedPairs`): 4,950 calls a match at 100 candidates (design.md#scale)."""
    if blocked is never_blocked or isinstance(blocked, BlockedPairs):
        allowed = np.ones(iu[0].size, bool)
        if isinstance(blocked, BlockedPairs) and blocked.pairs:
            pos = {h: i for i, h in enumerate(names)}
            square = np.zeros((len(names), len(names)), bool)
            for a, b in blocked.pairs:
                if a in pos and b in pos:
                    square[pos[a], pos[b]] = square[pos[b], pos[a]] = True
            allowed &= ~square[iu]
        return allowed
    return np.asarray([not blocked(names[i], names[j]) for i, j in zip(*iu, strict=True)], bool)


def thompson_fit(fit: BTFit, rng: random.Random) -> BTFit:
    """The fit with its scores replaced by one draw from its Gaussian posterior ``N(θ, Σ)`` (Thompson sampling,
    ``ranking.pair_draw: thompson``; design.md#tournament): the boundary, the rivals and the win probabilities of
    step 2-3 are those of a plausible truth, and the best-scoring pair of that draw is played. The draw's seed
    comes from ``rng``, so a retried task draws the same."""
    from dataclasses import replace

    gen = np.random.default_rng(rng.getrandbits(64))
    n = len(fit.ids)
    chol = np.linalg.cholesky(fit.cov + 1e-9 * np.eye(n))
    theta = fit.theta + chol @ gen.standard_normal(n)
    return replace(fit, theta=np.asarray(theta, np.float64))


def _information(names: Sequence[str], iu: tuple[NDArray[np.intp], NDArray[np.intp]], cfg: UncertaintyCfg,
                 fit: BTFit, shown: Mapping[tuple[str, str], int] | None) -> NDArray[np.float64] | float:
    """:func:`rematch_information` at the fit's repeat share when ``cfg.rematch_information``; else 1."""
    if not cfg.rematch_information:
        return 1.0
    return rematch_information(names, iu, shown, fit.rerun.repeat_used)


def _select_large(ids: list[str], pos: dict[str, int], fit: BTFit, rng: random.Random, sim: Similarity,
                  cfg: UncertaintyCfg, blocked: Blocked, sim_block: SimilarityBlock | None,
                  shown: Mapping[tuple[str, str], int] | None = None) -> Pairing | None:
    """:func:`select_uncertain` on the ``pair_candidates`` nearest the boundary (its docstring); the same score,
    bonus and softmax, on fewer pairs. When every candidate pair is blocked, the next candidates are tried."""
    among = np.asarray([pos[h] for h in ids], np.intp)
    while among.size >= 2:
        cand = boundary_candidates(fit, cfg.top_k, cfg.pair_candidates, among)
        names = [fit.ids[i] for i in cand]
        iu = np.triu_indices(len(names), 1)
        allowed = _allowed(names, iu, blocked)
        if allowed.any():
            break
        among = np.setdiff1d(among, cand[: max(1, cand.size // 2)])  # the most boundary-weighted half is played out
    else:
        return None
    thompson = cfg.pair_draw == "thompson"
    flat = candidate_scores(thompson_fit(fit, rng) if thompson else fit, cfg.top_k, cand, cfg.boundary_power)[iu]
    cos = sim_block(names)[iu] if sim_block is not None else np.asarray(
        [sim(names[i], names[j]) for i, j in zip(*iu, strict=True)])
    flat = np.where(allowed, flat * (1.0 + cfg.distance_bonus * (1.0 - cos)) * _information(names, iu, cfg, fit, shown),
                    0.0)
    if thompson:
        pick = int(np.argmax(np.where(allowed, flat, -np.inf)))
        return Pairing(names[int(iu[0][pick])], names[int(iu[1][pick])], "uncertainty")
    top = float(flat.max())
    logits = cfg.temperature * flat / top if top > 0 else np.zeros_like(flat)
    weights = np.where(allowed, np.exp(logits - logits.max()), 0.0)
    pick = rng.choices(range(flat.size), weights=weights.tolist(), k=1)[0]
    return Pairing(names[int(iu[0][pick])], names[int(iu[1][pick])], "uncertainty")
