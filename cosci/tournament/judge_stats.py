"""How far the tournament's judge can be trusted, per session (design.md#tournament).

Computed from the match rows (each keeps its per-order verdicts ``{"first": id, "winner": id or None}``):

- ``first_position_win_rate`` — valid judging calls won by the hypothesis shown first (0.5 for an unbiased judge;
  the report flags a rate further than ``ranking.first_position_flag`` from 0.5);
- ``flip_rate`` — dual-order matches with two valid verdicts whose winners differ (a position-driven verdict);
- ``draw_rate`` — valid matches recorded as draws;
- ``invalid_rate`` — judging calls with no valid verdict;
- ``bt_agreement`` — decisive valid calls whose winner has the higher final Bradley–Terry score.

A rate with no denominator is NaN (nothing to measure yet), never 0.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping
from dataclasses import asdict, dataclass
from typing import Any, Protocol


class JudgedMatch(Protocol):
    """What the statistics read of a match row (:class:`cosci.store.MatchRow` fits)."""

    @property
    def hyp_a(self) -> str: ...
    @property
    def hyp_b(self) -> str: ...
    @property
    def verdict_valid(self) -> bool: ...
    @property
    def draw(self) -> bool: ...
    @property
    def verdicts(self) -> tuple[dict[str, Any], ...]: ...


@dataclass(frozen=True)
class JudgeStats:
    """Rates in [0, 1] (NaN when nothing was measured) and the counts behind them."""

    first_position_win_rate: float
    flip_rate: float
    draw_rate: float
    invalid_rate: float
    bt_agreement: float
    calls: int
    dual_order_matches: int
    matches: int

    def metrics(self) -> dict[str, float]:
        """``judge_<name>`` -> value, NaN rates left out (MLflow metrics)."""
        return {f"judge_{k}": float(v) for k, v in asdict(self).items() if not _nan(v)}

    def to_dict(self) -> dict[str, float | None]:
        """JSON-safe: NaN becomes None."""
        return {k: (None if _nan(v) else v) for k, v in asdict(self).items()}

    def flagged(self, tolerance: float) -> bool:
        """True when the first-position win rate is further than ``tolerance`` from 0.5."""
        return not _nan(self.first_position_win_rate) and abs(self.first_position_win_rate - 0.5) > tolerance

    def lines(self, tolerance: float) -> list[str]:
        """Human-readable summary lines (``cosci status``, the report)."""
        def pct(x: float) -> str:
            return "n/a" if _nan(x) else f"{100 * x:.0f} %"
        out = [f"judge: first-shown wins {pct(self.first_position_win_rate)} of {self.calls} calls, flip rate "
               f"{pct(self.flip_rate)} ({self.dual_order_matches} dual-order matches), draws "
               f"{pct(self.draw_rate)}, invalid {pct(self.invalid_rate)}, agrees with BT order "
               f"{pct(self.bt_agreement)}"]
        if self.flagged(tolerance):
            out.append(f"WARNING: the judge favours the {'first' if self.first_position_win_rate > 0.5 else 'second'}"
                       f"-shown hypothesis (win rate {pct(self.first_position_win_rate)}, |x - 50 %| >"
                       f" {100 * tolerance:.0f} points): verdicts carry position bias")
        return out


def _nan(x: float | int) -> bool:
    return isinstance(x, float) and math.isnan(x)


def _rate(num: int, den: int) -> float:
    return num / den if den else math.nan


def judge_stats(matches: Iterable[JudgedMatch], bt_scores: Mapping[str, float]) -> JudgeStats:
    """Compute the judge statistics.

    Args:
        matches: the session's match rows (rows without per-order verdicts count only for draw rate).
        bt_scores: hypothesis id -> final BT score (logits); ids missing from it are left out of agreement.
    """
    calls = valid = first_wins = invalid = dual = flips = agree = decisive = 0
    n_matches = n_valid = n_draws = 0
    for m in matches:
        n_matches += 1
        n_valid += m.verdict_valid
        n_draws += m.draw
        for v in m.verdicts:
            calls += 1
            if v.get("winner") is None:
                invalid += 1
                continue
            valid += 1
            first_wins += v["winner"] == v["first"]
        winners = [v.get("winner") for v in m.verdicts]
        if len(winners) > 1 and all(w is not None for w in winners):
            dual += 1
            flips += len(set(winners)) > 1
        for v in m.verdicts:
            w = v.get("winner")
            loser = m.hyp_b if w == m.hyp_a else m.hyp_a
            if w is not None and w in bt_scores and loser in bt_scores:
                decisive += 1
                agree += bt_scores[w] > bt_scores[loser]
    return JudgeStats(_rate(first_wins, valid), _rate(flips, dual), _rate(n_draws, n_valid), _rate(invalid, calls),
                      _rate(agree, decisive), calls, dual, n_matches)


class _MatchesRepo(Protocol):
    def all(self) -> Any: ...
    def bt(self) -> dict[str, tuple[float, float, float]]: ...


class _Store(Protocol):
    @property
    def matches(self) -> _MatchesRepo: ...


def session_judge_stats(store: _Store) -> JudgeStats:
    """The judge statistics of a session's store (its matches and its stored Bradley–Terry fit)."""
    return judge_stats(store.matches.all(), {h: s for h, (s, _, _) in store.matches.bt().items()})
