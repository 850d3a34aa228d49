"""The tournament's sections, ``ranking`` (conf/ranking/) and ``termination``: what :mod:`cosci.tournament` and
:mod:`cosci.agents.ranking` are built from (design.md#tournament, #termination).
"""

from __future__ import annotations

import math
from typing import Literal

from pydantic import Field, model_validator

from cosci.config.schema.base import (
    MAX_COUNT,
    MAX_ELO,
    Unit,
    _Strict,
)


class RankingCfg(_Strict):
    elo_initial: float = Field(
        ge=0, le=MAX_ELO,
        description="Elo rating of a hypothesis entering the tournament, Elo points (design.md#tournament)."
    )
    k_factor_new: float = Field(
        gt=0, le=1_000, description="K while the less experienced player is new, Elo points (design.md#tournament)."
    )
    k_factor_warm: float = Field(
        gt=0, le=1_000, description="K once both players are experienced, Elo points (design.md#tournament)."
    )
    new_matches_threshold: int = Field(
        ge=0, le=MAX_COUNT, description="A player with fewer matches than this is new (design.md#tournament: 5)."
    )
    p_new: Unit = Field(description="Probability of the new-arrival pairing bucket (design.md#tournament: 0.4).")
    p_close: Unit = Field(description="Probability of the close-Elo pairing bucket (design.md#tournament: 0.4).")
    p_random: Unit = Field(description="Probability of the random top-half bucket (design.md#tournament: 0.2).")
    new_arrival_matches: int = Field(
        ge=0, le=MAX_COUNT, description="Fewer matches than this makes a new arrival (design.md#tournament: 3)."
    )
    close_elo_window: float = Field(
        gt=0, le=MAX_ELO, description="Max |ΔElo| for the close-Elo bucket, Elo points (design.md#tournament)."
    )
    debate_min_matches: int = Field(
        ge=0, le=MAX_COUNT, description="Debate when either side has fewer matches (design.md#tournament: 2)."
    )
    debate_elo_gap: float = Field(
        ge=0, le=MAX_ELO, description="Debate when |ΔElo| is below this, Elo points (design.md#tournament: 50)."
    )
    matches_per_round: int = Field(gt=0, le=1_000, description="Matches played by one RunTournamentRound task.")
    max_matches_per_pair: int = Field(
        gt=0, le=100, description="Rematch cap: matches one pair may play; a pair at the cap is not chosen again"
        " (design.md#termination: the leaderboard cannot change once every pair is at the cap -> stop reason stalled)."
    )
    researcher_weight: int = Field(
        ge=1, le=100, description="Judge verdicts one researcher preference (`cosci rate A B --prefer`) counts as in "
        "the Bradley–Terry fit (design.md#researcher-ratings: one more than the rematch cap, 4).")
    batch: bool = Field(description="Send low-stakes matches through the provider's message-batch "
                        "API (design.md#batches; only for tiers with models.tiers.<t>.batch).")
    batch_top_chance: Unit = Field(description="A match the pairing chose is batched when each hypothesis's chance "
                                   "of belonging to the top_k, by the Bradley–Terry fit's uncertainty, is at most "
                                   "this (0-1; design.md#batches: 0.1).")
    batch_size: int = Field(gt=0, description="Fewest queued matches a batch is submitted with, except the session's "
                            "last batch (design.md#batches: 4).")
    batch_poll_seconds: float = Field(ge=0, description="Seconds between polls of a submitted batch.")
    # pairing, dual-order judging, Bradley–Terry (cosci/tournament/; design.md#tournament)
    pairing: Literal["elo_buckets", "uncertainty"] = Field(
        description="Pair selection: elo_buckets (new arrivals, close Elo, random top half) or uncertainty (the "
        "pair that most narrows the BT top-k boundary; design.md#tournament).")
    top_k: int = Field(ge=1,
                       description="Top-k boundary the uncertainty pairing settles (design.md#tournament: 5).")
    warmup_matches: int = Field(ge=0,
                                description="Matches before a hypothesis leaves warm-up (design.md#tournament: 4).")
    temperature: float = Field(gt=0,
                               description="Softmax sharpness over pair scores scaled to max 1 (tuned on the "
                               "simulator).")
    pair_draw: Literal["softmax", "thompson"] = Field(
        description="How the uncertainty pairing draws the pair: softmax (of temperature over the pair scores) or "
        "thompson (the best pair of the scores at one draw from the fit's posterior; design.md#tournament).")
    boundary_power: float = Field(ge=0, description="Power of the gap variance in the uncertainty pairing's boundary "
                                  "weight phi(z) / v^power (design.md#tournament).")
    rematch_information: bool = Field(description="The uncertainty pairing scales a pair's score by the information "
                                      "its next verdict adds at the judge's repeat share (design.md#judge-memory).")
    distance_bonus: float = Field(ge=0,
                                  description="Weight of idea distance (1 - cosine) as a tie-break "
                                  "(design.md#tournament).")
    dual_order: Literal["off", "close", "all"] = Field(
        description="Judge in both orders: off, close (debates and pairwise within "
        "dual_order_elo_gap), or all matches (design.md#tournament).")
    dual_order_elo_gap: float = Field(ge=0, description="|ΔElo| under which a pairwise match is "
                                      "judged in both orders with dual_order=close, Elo points.")
    dual_order_sample: Unit = Field(description="Share of other matches judged in both orders to measure the "
                                    "judge's flip rate, drawn by a hash of the match key and topped up to at least "
                                    "floor(n * share) after n matches (design.md#position-bias: 0.1).")
    dual_order_biased_share: Unit = Field(description="Share of close pairs (debates and pairwise within "
                                          "dual_order_elo_gap) judged in both orders once the first-shown win "
                                          "rate's 95 % interval excludes 0.5 (design.md#position-bias: 0.5).")
    judges: list[str] = Field(description="Judge tiers (models.tiers) the matches are split between, one per match "
                              "by a hash of its key; empty: one judge, the tier conf/agents and models.agent_tiers "
                              "route ranking to (design.md#judges).")
    bt_prior_sd: float = Field(gt=0, description="SD of the Bradley–Terry N(0, sd²) prior, logits.")
    bt_refit_stride: int = Field(ge=1, description="Refit cadence: the Bradley–Terry fit is redone once "
                                 "⌈players / bt_refit_stride⌉ valid verdicts are new since the last fit (every verdict "
                                 "up to this many players), hypotheses (design.md#scale: 100).")
    bt_leaderboard_growth: float = Field(ge=0, description="Above bt_refit_stride players, the leaderboard's "
                                         "Bradley–Terry fit (the stored intervals bt_stable reads) is redone once the "
                                         "valid verdicts grew by this fraction of those it was fitted on, or at the "
                                         "pairing's cadence while its top k is CI-separated; 0 = the pairing's "
                                         "cadence, a fraction (design.md#scale: 0.05).")
    pair_candidates: int = Field(ge=0, description="The uncertainty pairing scores the pairs among this many "
                                 "hypotheses nearest the top-k boundary when the pool is larger; 0 = the whole pool, "
                                 "hypotheses (design.md#scale: 100).")
    first_position_flag: Unit = Field(description="A first-position win rate further than this from 0.5 whose 95 % "
                                      "interval includes 0.5 gets a 'not significant' note; a significant one a "
                                      "warning (design.md#position-bias).")

    @model_validator(mode="after")
    def _buckets_sum_to_one(self) -> RankingCfg:
        total = self.p_new + self.p_close + self.p_random
        if not math.isclose(total, 1.0, abs_tol=1e-6):
            raise ValueError(f"p_new + p_close + p_random must sum to 1 (got {total:.3f})")
        return self


class TerminationCfg(_Strict):
    elo_stability_k: int = Field(gt=0, le=1_000, description="Top-K watched for stability (design.md#termination: 5).")
    elo_stability_n: int = Field(ge=2, le=1_000, description="Snapshots that must agree (design.md#termination: 3).")
    elo_stability_eps: float = Field(
        gt=0, le=MAX_ELO, description="Max Elo change within the window, Elo points (design.md#termination)."
    )
    min_hypotheses_before_stable: int = Field(
        ge=0, le=MAX_COUNT, description="Guard: hypotheses needed before ELO_STABLE (design.md#termination)."
    )
    min_matches_before_stable: int = Field(
        ge=0, le=MAX_COUNT, description="Guard: matches needed before ELO_STABLE (design.md#termination)."
    )
    snapshot_every_matches: int = Field(
        gt=0, le=MAX_COUNT, description="An Elo snapshot is taken every this many matches."
    )
    stall_streak: int = Field(
        gt=0, le=1000, description="Growth tasks in a row (generation or evolution) that add no hypothesis, only"
        " duplicates, after which the pool counts as unable to grow (stop reason stalled; design.md#termination)."
    )
    stability_rule: Literal["elo", "bt", "either"] = Field(
        default="either", description="Which stability rule may stop the session: the Elo rule, the "
        "Bradley–Terry rule (top-k unchanged for bt_stability_n refits and separated by its CIs), or either "
        "(design.md#termination; both are logged).")
    bt_stability_n: int = Field(default=3, ge=1, description="BT refits the top-k set must stay unchanged.")
