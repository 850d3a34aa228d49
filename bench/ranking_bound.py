"""What an idealised allocation of the same judge calls recovers of the true top 5 (design.md#tournament).

``python -m bench.ranking_bound`` (about 4 minutes of one core at the default 1,000 trials a cell).

P1 asks the tournament for a top-5 recall on :mod:`bench.ranking_sim`'s judge: N = 40 hypotheses with quality
q ~ N(0, 1), and a verdict on a pair (a, b) that picks ``a`` with chance σ(q_a − q_b + ε), ε ~ N(0, 1). This
module asks how much any allocation of ``c·N`` such verdicts could recover if the allocation were freed of what
makes pairing hard: no position bias, no dual-order calls, no rematch cap, and each hypothesis observed
directly instead of through a difference.

A verdict carries Fisher information ``I(Δ) = p'(Δ)² / (p(1 − p))`` about Δ = q_a − q_b, at most
:func:`verdict_information` (Δ = 0: a near-even pair, about 0.171). Each verdict is replaced by one Gaussian
observation of q_a and one of q_b, each of information ``share × I``:

- ``share = 1`` (``direct``): what a hypothesis learns from a near-even verdict against an opponent whose
  quality is known. For a group of m hypotheses that play one another evenly, the variance of a difference is
  m / (V·I) here against (m − 1) / (V·I) from the V verdicts themselves, so this is close to pairwise play among
  the leaders (slightly harder), and easier than play between unequal or uncertain opponents.
- ``share = 2`` (``doubled``): the matrix 2I·(e_a e_aᵀ + e_b e_bᵀ) exceeds the verdict's I·(e_a − e_b)(e_a −
  e_b)ᵀ by I·(e_a + e_b)(e_a + e_b)ᵀ ⪰ 0, so every contrast is known at least as well as from the verdict: a
  generous allowance, twice the information of a single pair's difference.

The posterior is exact (Gaussian prior N(0, 1), Gaussian observations). Allocations: ``uniform`` (the least
observed two), ``boundary`` (the two with the largest φ(z)·σ, z the posterior mean's distance to the midpoint
of the 5th and 6th means over its posterior sd σ: the best of the rules tried, see bench/README.md). Every
hypothesis is first observed ``warmup`` times (the tournament's warm-up of 4 matches). Recall: the share of the
true top 5 among the 5 highest posterior means.

**Under the judge with memory** (``memory=``:class:`Memory`, bench/ranking_judges.py; design.md#judge-memory) a call
is a call on a pair, and the judge answers it as it answers a session: each call observes the two hypotheses it
pairs, shown in the order whose next fresh draw adds more; an order judged before returns a copy of its last verdict
with probability ``repeat`` (no observation: the call is spent, nothing is learned), and the pair's order effect
``u ~ N(0, order_sd²)`` is shared by every fresh draw of the pair (``+u`` in one order, ``−u`` in the other), so it
averages out across the two orders and not within one. Linearised, ``m₁`` and ``m₂`` fresh draws in the two orders
carry ``J(m₁, m₂) = A − B²/C`` about the pair's Δ (``A = (m₁ + m₂)/s²``, ``B = (m₁ − m₂)/s²``, ``C = A + 1/order_sd²``,
``s² = 1/info − order_sd²`` so that a pair's first draw carries ``info``, the information of a draw at noise sd
√(1 + order_sd²), as before); a fresh draw observes each of its two hypotheses with ``share ×`` its increment of
``J``. The allocation is the same rule on pairs: the pair with the largest ``(score_a + score_b) ×`` its next
call's expected increment (copies included) relative to a first draw, which for the independent judge is the two
highest scores. Without ``memory`` (the independent judge) the trial is unchanged: every call a fresh draw of
``info``, the two highest scores, whatever pair they make; a pair the independent judge is asked again answers afresh
(bench/README.md, nineteenth stop: the earlier bound gave the judge with memory this model too, at noise sd √1.25,
and its allocation called one pair up to 155 times in 960 calls).
"""

from __future__ import annotations

import argparse
import math
import time
from dataclasses import dataclass
from typing import TypeVar

import numpy as np
from numpy.typing import NDArray
from scipy.special import expit

N = 40
TOP_K = 5
WARMUP = 4
SHARES = {"direct": 1.0, "doubled": 2.0}
ALLOCATIONS = ("uniform", "boundary")
Counts = TypeVar("Counts", float, NDArray[np.float64])


@dataclass(frozen=True)
class Memory:
    """The judge with memory as the bound sees it (module docstring; bench/ranking_judges.py's ``Judge``).

    Args:
        repeat: P(a call on an order judged before copies that order's last verdict).
        order_sd: sd of the pair's order effect around the mean bias, logits (shared by the pair's fresh draws).
    """

    repeat: float
    order_sd: float

    def information(self, info: float, m1: Counts, m2: Counts) -> Counts:
        """``J(m1, m2)``: the information (per logit²) about a pair's Δ of ``m1`` and ``m2`` fresh draws in its two
        orders (numbers or arrays of one shape), a pair's first draw carrying ``info`` (module docstring)."""
        tau2 = self.order_sd**2
        s2 = 1.0 / info - tau2
        a, b = (m1 + m2) / s2, (m1 - m2) / s2
        return a if tau2 == 0.0 else a - b * b / (a + 1.0 / tau2)

    def increment(self, info: float, m1: Counts, m2: Counts) -> Counts:
        """What one more fresh draw in the first order adds: ``J(m1 + 1, m2) − J(m1, m2)``."""
        return self.information(info, m1 + 1, m2) - self.information(info, m1, m2)


def verdict_information(noise_sd: float = 1.0, points: int = 64) -> float:
    """The largest Fisher information (per logit², over Δ in [−3, 3]) a verdict σ(Δ + ε), ε ~ N(0, noise_sd²),
    carries about Δ; computed by Gauss–Hermite quadrature. About 0.171 at the simulator's noise sd 1 (0.25 for a
    judge without ε)."""
    nodes, weights = np.polynomial.hermite_e.hermegauss(points)
    weights = weights / weights.sum()
    best = 0.0
    for delta in np.linspace(-3.0, 3.0, 121):
        s = expit(delta + noise_sd * nodes)
        p = float(np.dot(weights, s))
        slope = float(np.dot(weights, s * (1.0 - s)))
        best = max(best, slope * slope / (p * (1.0 - p)))
    return best


def trial(seed: int, calls: int, share: float, allocation: str, info: float, warmup: int = WARMUP,
          quality: NDArray[np.float64] | None = None, memory: Memory | None = None,
          log: list[tuple[int, int, bool]] | None = None) -> float:
    """Top-5 recall (0-1) of one trial: ``calls·N`` verdicts, each two observations of information
    ``share·info``; the first ``warmup`` observations of every hypothesis count towards the budget. ``quality``:
    the ``(N,)`` true qualities (default: drawn from the seed), so :mod:`bench.ranking_sim` can bound its own
    trials. ``memory``: the judge with memory (:class:`Memory`, ``boundary`` allocation only; module docstring);
    ``log``: appended ``(first, second, fresh)`` per call after the warm-up (under ``memory`` only)."""
    rng = np.random.default_rng(seed)
    quality = rng.standard_normal(N) if quality is None else np.asarray(quality, np.float64)
    noise = math.sqrt(1.0 / (share * info))
    precision = np.ones(N)  # the N(0, 1) prior
    weighted = np.zeros(N)

    def observe(i: int) -> None:
        precision[i] += 1.0 / noise**2
        weighted[i] += (quality[i] + rng.normal(0.0, noise)) / noise**2

    for _ in range(warmup):
        for i in range(N):
            observe(i)
    if memory is not None:
        _memory_calls(memory, (2 * calls * N - warmup * N) // 2, share, info, quality, precision, weighted, rng,
                      np.random.default_rng([seed, 1]), log)
    for _ in range((2 * calls * N - warmup * N) // 2 if memory is None else 0):
        picks = _next_two(weighted / precision, precision, allocation, rng)
        observe(picks[0])
        observe(picks[1])
    chosen = set(np.argsort(-(weighted / precision))[:TOP_K].tolist())
    return len(chosen & set(np.argsort(-quality)[:TOP_K].tolist())) / TOP_K


def _memory_calls(memory: Memory, calls: int, share: float, info: float, quality: NDArray[np.float64],
                  precision: NDArray[np.float64], weighted: NDArray[np.float64], rng: np.random.Generator,
                  copy_rng: np.random.Generator, log: list[tuple[int, int, bool]] | None) -> None:
    """The ``boundary`` allocation's calls on pairs under the judge with memory (module docstring); updates
    ``precision`` and ``weighted`` in place. ``fresh[i, j]``: fresh draws with ``i`` shown first; ``judged[i, j]``: that
    order was asked (a later call may copy it)."""
    fresh = np.zeros((N, N))
    judged = np.zeros((N, N), bool)
    for _ in range(calls):
        mean = weighted / precision
        order = np.argsort(-mean)
        sd = 1.0 / np.sqrt(precision)
        z = (mean - (mean[order[TOP_K - 1]] + mean[order[TOP_K]]) / 2) / sd
        score = np.exp(-z * z / 2) * sd
        # the expected increment of a call shown (i first, j second), relative to a pair's first draw
        gain = (1.0 - memory.repeat * judged) * memory.increment(info, fresh, fresh.T) / info
        value = (score[:, None] + score[None, :]) * gain
        np.fill_diagonal(value, -1.0)
        a, b = (int(x) for x in np.unravel_index(int(np.argmax(value)), value.shape))
        copied = bool(judged[a, b]) and copy_rng.random() < memory.repeat
        judged[a, b] = True
        if log is not None:
            log.append((a, b, not copied))
        if copied:
            continue
        noise_var = 1.0 / (share * memory.increment(info, float(fresh[a, b]), float(fresh[b, a])))
        fresh[a, b] += 1
        for h in (a, b):
            precision[h] += 1.0 / noise_var
            weighted[h] += (quality[h] + rng.normal(0.0, math.sqrt(noise_var))) / noise_var


def _next_two(mean: NDArray[np.float64], precision: NDArray[np.float64], allocation: str,
              rng: np.random.Generator) -> list[int]:
    if allocation == "uniform":
        score = -precision + 1e-9 * rng.random(N)
    else:
        order = np.argsort(-mean)
        boundary = (mean[order[TOP_K - 1]] + mean[order[TOP_K]]) / 2
        sd = 1.0 / np.sqrt(precision)
        z = (mean - boundary) / sd
        score = np.exp(-z * z / 2) * sd
    return [int(i) for i in np.argsort(-score)[:2]]


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(prog="python -m bench.ranking_bound", description=__doc__.splitlines()[0])
    ap.add_argument("--trials", type=int, default=1000)
    ap.add_argument("--first-trial", type=int, default=0, help="trial seeds first-trial .. first-trial+trials-1")
    ap.add_argument("--budgets", type=int, nargs="+", default=[12, 24], help="judge calls per hypothesis")
    args = ap.parse_args(argv)
    info = verdict_information()
    started = time.perf_counter()
    print(f"{'model':<9}{'allocation':<11}{'calls/h':>8}{'recall':>8}{'± se':>7}")
    for name, share in SHARES.items():
        for allocation in ALLOCATIONS:
            for calls in args.budgets:
                recalls = np.array([trial(seed, calls, share, allocation, info)
                                    for seed in range(args.first_trial, args.first_trial + args.trials)])
                se = recalls.std(ddof=1) / math.sqrt(len(recalls))
                print(f"{name:<9}{allocation:<11}{calls:>8}{recalls.mean():>8.3f}{se:>7.3f}", flush=True)
    print(f"# trials {args.first_trial}-{args.first_trial + args.trials - 1}, N={N}, verdict information "
          f"{info:.3f} per logit², {time.perf_counter() - started:.0f} s")


if __name__ == "__main__":
    main()
