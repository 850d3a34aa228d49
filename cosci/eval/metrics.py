"""Evaluation metrics of one answer set (pipeline leaderboard or baseline list) and their confidence intervals.

- **Inspiration recall** (deterministic): the share of an item's true inspiration papers (corpus record ids)
  that the hypotheses cite — any hypothesis, and the top-k by rank. A citation counts when its URL is a
  corpus record's synthetic URL (:func:`cosci.eval.moose_chem.id_of_url`).
- **Hypothesis match**: the judge's 0-5 score of each of the top-k hypotheses against the ground truth
  (:mod:`cosci.eval.judge`); reported as best-of-k and the 1-based rank of the best-matching hypothesis.
  Invalid judge answers are left out (and counted); no valid score leaves the metric missing (NaN).
- **Confidence intervals**: a two-stage percentile cluster bootstrap in numpy (items resampled with
  replacement, then each drawn item's seeds resampled with replacement; the statistic is the mean), 95 % by
  default, 2,000 resamples. The two stages follow the usual hierarchical bootstrap for clustered data
  (Davison & Hinkley 1997, "Bootstrap Methods and their Application", §3.8); scipy.stats.bootstrap has no
  clustered resampling, hence numpy.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from cosci.eval.moose_chem import id_of_url

TOP_KS = (1, 3, 5)
"""The k of the top-k metrics (design.md#eval)."""


def cited_ids(citations: Sequence[Mapping[str, Any]]) -> list[str]:
    """Corpus record ids cited by one hypothesis (its citations' ``url``), in order, without duplicates."""
    out = (id_of_url(str(c.get("url", ""))) for c in citations)
    return list(dict.fromkeys(i for i in out if i))


def recall(truth: Sequence[str], cited: Sequence[Sequence[str]]) -> float:
    """Share in [0, 1] of ``truth`` ids cited by any of ``cited`` (one id list per hypothesis); NaN when
    ``truth`` is empty."""
    if not truth:
        return math.nan
    found = {i for ids in cited for i in ids}
    return sum(1 for t in set(truth) if t in found) / len(set(truth))


def inspiration_recall(truth: Sequence[str], ranked: Sequence[Sequence[str]],
                       ks: Sequence[int] = TOP_KS) -> dict[str, float]:
    """``recall_any`` over all hypotheses and ``recall_at_<k>`` over the first k of ``ranked`` (best first).

    Args:
        truth: the item's true inspiration record ids.
        ranked: cited record ids per hypothesis, best-ranked hypothesis first.
    """
    out = {"recall_any": recall(truth, ranked)}
    out.update({f"recall_at_{k}": recall(truth, ranked[:k]) for k in ks})
    return out


def match_metrics(scores: Sequence[int | None], ks: Sequence[int] = TOP_KS) -> dict[str, float]:
    """Best-of-k judge scores (0-5) and the 1-based rank of the best match among the top max(ks).

    Args:
        scores: judge scores by leaderboard rank (best first); None for an invalid judge answer.

    Returns:
        ``match_best_at_<k>`` (NaN if no valid score among the first k), ``match_best_rank`` (NaN if none
        valid; the first rank wins ties), ``judge_invalid`` (count of None).
    """
    out: dict[str, float] = {}
    for k in ks:
        valid = [s for s in scores[:k] if s is not None]
        out[f"match_best_at_{k}"] = float(max(valid)) if valid else math.nan
    valid_ranked = [(s, i) for i, s in enumerate(scores[:max(ks)]) if s is not None]
    out["match_best_rank"] = float(min(valid_ranked, key=lambda p: (-p[0], p[1]))[1] + 1) if valid_ranked else math.nan
    out["judge_invalid"] = float(sum(1 for s in scores if s is None))
    return out


@dataclass(frozen=True)
class Interval:
    """A mean with its bootstrap interval; ``n`` observations (item x seed) behind it."""

    mean: float
    low: float
    high: float
    n: int

    def text(self, digits: int = 2) -> str:
        if self.n == 0 or math.isnan(self.mean):
            return "n/a"
        return f"{self.mean:.{digits}f} [{self.low:.{digits}f}, {self.high:.{digits}f}]"


EVAL_INTERVAL = "95 % percentile bootstrap interval, 2,000 resamples"
"""The short name of ``cosci eval``'s intervals (:func:`bootstrap_ci` at its defaults)."""

EVAL_INTERVAL_LABEL = (f"{EVAL_INTERVAL} (two stages: items, then each drawn item's seeds, resampled; coverage not "
                       "measured)")
"""The eval report's overall intervals named by method and by what their coverage rests on: nothing measured (no
bench runs the bootstrap against a known mean; design.md#eval). Shown once in ``summary.md``'s header."""

EVAL_SEED_INTERVAL_LABEL = f"{EVAL_INTERVAL} over one item's seeds (coverage not measured)"
"""The eval report's per-item intervals (the same bootstrap, one item: its seeds resampled)."""


def bootstrap_ci(by_item: Mapping[str, Sequence[float]], *, level: float = 0.95, n_resamples: int = 2000,
                 seed: int = 0) -> Interval:
    """Mean over items and seeds with a two-stage percentile cluster bootstrap interval (module docstring).

    Args:
        by_item: item id -> the metric's value for each seed; NaN values (missing metric) are dropped.
        level: confidence level in (0, 1).
        n_resamples: bootstrap resamples.
        seed: seed of numpy's generator (the interval is reproducible).

    Returns:
        The mean of all observations (items weighted by their seeds) and the interval; a constant metric has
        a zero-width interval; no observation gives NaNs with ``n = 0``.
    """
    groups = [np.asarray([v for v in vals if not math.isnan(v)], dtype=float) for vals in by_item.values()]
    groups = [g for g in groups if g.size]
    n = int(sum(g.size for g in groups))
    if not n:
        return Interval(math.nan, math.nan, math.nan, 0)
    values = np.concatenate(groups)
    mean = float(values.mean())
    if float(values.max()) == float(values.min()):  # a constant metric: every resample is the same value
        return Interval(float(values[0]), float(values[0]), float(values[0]), n)
    rng = np.random.default_rng(seed)
    stats = np.empty(n_resamples)
    for b in range(n_resamples):
        picked = rng.integers(0, len(groups), size=len(groups))
        draws = [groups[i][rng.integers(0, groups[i].size, size=groups[i].size)] for i in picked]
        stats[b] = np.concatenate(draws).mean()
    alpha = (1.0 - level) / 2.0
    low, high = np.quantile(stats, [alpha, 1.0 - alpha])
    return Interval(mean, min(float(low), mean), max(float(high), mean), n)
