"""The simulated LLM judges of the ranking benches: independent, and with memory (design.md#judge-memory).

A judge returns the score of the hypothesis shown first (1 it won, 0 it lost, 0.5 a tie) for a pair whose true
logit difference is ``Δ = q_first − q_second``. Two models (``--judge`` of ``python -m bench.ranking_sim``):

- ``independent`` — every call a fresh draw at ``Δ + β`` (β the regime's first-position bias): the model every
  ranking figure before issue 52 rests on.
- ``memory`` — a real LLM judge asked the same pair again mostly repeats itself:

  * **rerun memory**: a call on an ordered pair (same two hypotheses, same one shown first) that was judged
    before repeats that order's last verdict with probability :data:`REPEAT`, else draws afresh (and the fresh
    draw becomes the one a later call may repeat). So a rerun changes its verdict with probability
    ``(1 − REPEAT)·P(two fresh draws differ)``: at an even pair 0.125 without ties and 0.15 with the coverage
    bench's 13 % ties, about the 13.6 % mean flip rate of repeated identical pairwise judgements measured on 29
    tasks with two OpenAI judges (50 reruns a question; "The Coin Flip Judge? Reliability and Bias in LLM-as-a-Judge
    Evaluation", arXiv 2606.13685, 2026), whose questions ranged up to 20 % and beyond;
  * **an order effect that varies by pair**: the first-shown hypothesis gains ``β_pair ~ N(β, ORDER_SD²)``
    logits, drawn once per unordered pair. The mean β is the regime's bias (0.3 by default in the recall rows;
    GPT-4o-mini picked the first-shown answer in 72 % of questions, about 0.9 logits, in the same study); the
    spread stands for the finding that position bias varies by judge, task and the quality gap (Shi et al.,
    "Judging the Judges: A Systematic Study of Position Bias in LLM-as-a-Judge", arXiv 2406.07791, ACL 2025);
  * **ties**: as the base draw has them (the coverage bench's Davidson judge, ν = 0.3; the recall simulator's
    judge has none, as before).

  Across orders a pair keeps no memory: the swapped order is another prompt. What the session measures of its
  own judge (:mod:`cosci.tournament.rerun`, ``cosci status``) is printed beside these values.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass, field

import numpy as np

from cosci.tournament.rerun import SIMULATED_ORDER, SIMULATED_REPEAT

REPEAT = SIMULATED_REPEAT
"""P(a rerun of an ordered pair repeats that order's last verdict): a rerun flip rate of 0.125-0.15 at an even
pair, about the 13.6 % measured (module docstring; design.md#judge-memory)."""
ORDER_SD = SIMULATED_ORDER[1]
"""sd across pairs of the first-position bias, logits: per pair first-shown rates at an even pair of 0.34-0.78 at a
mean bias of 0.3 (module docstring)."""
JUDGES = ("independent", "memory")

Fresh = Callable[[float, np.random.Generator], float]
"""A fresh draw: ``(logit of the first-shown's advantage, rng) -> score of the first-shown`` (1, 0 or 0.5)."""


def logistic(u: float, rng: np.random.Generator, sd: float = 1.0) -> float:
    """The recall simulator's draw: the first-shown wins with chance σ(u + ε), ε ~ N(0, sd²); no ties."""
    logit = u + sd * rng.normal()  # the noise first, then the coin: the draws of the earlier simulator
    return 1.0 if rng.random() < 1.0 / (1.0 + math.exp(-logit)) else 0.0


def davidson(u: float, rng: np.random.Generator, nu: float = 0.3) -> float:
    """The coverage bench's draw: P(win) ∝ e^(u/2), P(loss) ∝ e^(−u/2), P(tie) ∝ ν."""
    pw, pl = math.exp(0.5 * u), math.exp(-0.5 * u)
    x = rng.random() * (pw + pl + nu)
    return 1.0 if x < pw else 0.0 if x < pw + pl else 0.5


@dataclass
class Judge:
    """One trial's judge (stateful: its memory of earlier verdicts and of each pair's order effect).

    Args:
        model: ``independent`` or ``memory`` (module docstring).
        bias: the mean first-position bias β, logits.
        fresh: the fresh draw (:func:`logistic` or :func:`davidson`).
        rng: the trial's judge RNG.
        repeat: P(a rerun of an ordered pair repeats its last verdict) under ``memory``.
        order_sd: sd across pairs of β under ``memory``, logits.
    """

    model: str
    bias: float
    fresh: Fresh
    rng: np.random.Generator
    repeat: float = REPEAT
    order_sd: float = ORDER_SD
    last: dict[tuple[str, str], float] = field(default_factory=dict)
    pair_bias: dict[tuple[str, str], float] = field(default_factory=dict)

    def __post_init__(self) -> None:
        if self.model not in JUDGES:
            raise ValueError(f"judge model must be one of {', '.join(JUDGES)} (got {self.model!r})")

    def __call__(self, first: str, second: str, delta: float) -> float:
        """The score of ``first`` shown before ``second``; ``delta`` = true θ_first − θ_second, logits."""
        if self.model == "independent":
            return self.fresh(delta + self.bias, self.rng)
        key = (first, second)
        if key in self.last and self.rng.random() < self.repeat:
            return self.last[key]
        pair = (min(first, second), max(first, second))
        if pair not in self.pair_bias:
            self.pair_bias[pair] = self.bias + self.order_sd * float(self.rng.normal())
        self.last[key] = self.fresh(delta + self.pair_bias[pair], self.rng)
        return self.last[key]
