"""How far the tournament's judge can be trusted, per session (design.md#position-bias, design.md#judges).

Computed from the match rows (each keeps its per-order verdicts ``{"first": id, "winner": id or None}`` and the
judge tier that judged it):

- ``first_position_win_rate`` — valid judging calls won by the hypothesis shown first, with its Wilson 95 %
  interval (0.5 for an unbiased judge; ``position_bias`` when the interval excludes 0.5, and the tournament then
  judges more close pairs in both orders);
- ``flip_rate`` — dual-order matches with two valid verdicts whose winners differ (a position-driven verdict),
  with its Wilson 95 % interval;
- ``draw_rate`` — valid matches recorded as draws; ``invalid_rate`` — judging calls with no valid verdict;
- ``bt_agreement`` — **out of sample**: the valid matches are split into :data:`FOLDS` folds by a hash of the match
  id; Bradley–Terry is fitted on the other folds (with the first-shown id of every single-order match, as the
  session fits, so it has a first-position bias β) and each decisive call of a held-out match scores 1 when the
  fit's prediction for that call, ``θ_first − θ_second + β``, favours its winner, 0 when it favours the loser, ½
  when it is 0 (two hypotheses the other folds never saw, no bias). A noisy
  judge's verdicts are not predicted by the rest, so the figure falls toward ½; the cost is :data:`FOLDS` fits
  whatever the session's size. ``bt_agreement_in_sample`` is the same count against the fit on every verdict
  (it includes the verdict being scored, so it is optimistic: shown only beside the held-out figure);
- ``rerun`` — the judge's reruns of an ordered pair (single-order matches of the same two hypotheses in the same
  order): their agreement and the repeat share ρ̂ read from it, with 95 % intervals
  (:class:`cosci.tournament.rerun.RerunEstimate`, the session's Bradley–Terry fit), and ``order_effect``, the fit's
  first-position bias β in logits; ``lines`` prints both beside the ranking simulator's assumptions
  (design.md#judge-memory);
- per judge tier: matches, first-shown win rate with interval, held-out agreement, and the judge's reliability
  when the Bradley–Terry fit estimates one (``BTFit.reliability``; a fit without judge labels gives
  None).

A rate with no denominator is NaN (nothing to measure yet), never 0.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any, Protocol

from cosci.text import counted
from cosci.tournament import judge_fits as jf
from cosci.tournament.judge_fits import FOLDS
from cosci.tournament.rerun import WILSON, RerunEstimate, simulated_assumptions, wilson_interval

FEW_VERDICTS = 10
"""Below this many held-out verdicts the agreement is said as a count, not a percentage (design.md#cli)."""
LEVEL = 0.95
"""Confidence level of every interval here."""


class JudgedMatch(Protocol):
    """What the statistics read of a match row (:class:`cosci.store.MatchRow` fits; ``judge`` is read with
    ``getattr``, None when absent)."""

    @property
    def id(self) -> str: ...
    @property
    def hyp_a(self) -> str: ...
    @property
    def hyp_b(self) -> str: ...
    @property
    def winner(self) -> str | None: ...
    @property
    def verdict_valid(self) -> bool: ...
    @property
    def draw(self) -> bool: ...
    @property
    def verdicts(self) -> tuple[dict[str, Any], ...]: ...


@dataclass(frozen=True)
class Share:
    """``k`` of ``n`` with its Wilson 95 % interval (:func:`~cosci.tournament.rerun.wilson_interval`); NaN throughout
    when n = 0."""

    k: int
    n: int
    rate: float
    low: float
    high: float

    @classmethod
    def of(cls, k: int, n: int) -> Share:
        if n <= 0:
            return cls(k, 0, math.nan, math.nan, math.nan)
        low, high = wilson_interval(k, n, LEVEL)
        return cls(k, n, k / n, low, high)

    @property
    def excludes_half(self) -> bool:
        """The interval excludes 0.5 (False when nothing was measured)."""
        return self.n > 0 and (self.low > 0.5 or self.high < 0.5)


def position_bias(first_wins: int, calls: int) -> bool:
    """True when the first-shown win rate's 95 % interval excludes 0.5 (design.md#position-bias)."""
    return Share.of(first_wins, calls).excludes_half


@dataclass(frozen=True)
class JudgeView:
    """One judge tier's figures (design.md#judges): ``agreement`` held out, over ``agreement_n`` decisive calls;
    ``reliability`` the fit's estimate (None when the fit has none)."""

    matches: int
    first_shown: Share
    agreement: float
    agreement_n: int
    reliability: float | None = None


@dataclass(frozen=True)
class JudgeStats:
    """Rates in [0, 1] (NaN when nothing was measured), their intervals and the counts behind them."""

    first_shown: Share
    flips: Share
    draw_rate: float
    invalid_rate: float
    bt_agreement: float
    bt_agreement_n: int
    bt_agreement_in_sample: float
    calls: int
    matches: int
    judges: dict[str, JudgeView] = field(default_factory=dict)
    rerun: RerunEstimate = field(default_factory=RerunEstimate.none)
    order_effect: float = math.nan

    @property
    def position_bias(self) -> bool:
        """The first-shown win rate's 95 % interval excludes 0.5."""
        return self.first_shown.excludes_half

    @property
    def first_position_win_rate(self) -> float:
        return self.first_shown.rate

    @property
    def flip_rate(self) -> float:
        return self.flips.rate

    @property
    def dual_order_matches(self) -> int:
        """Dual-order matches with two valid verdicts (the flip rate's denominator)."""
        return self.flips.n

    def flat(self) -> dict[str, float | int]:
        """The session-wide figures by name (NaN where nothing was measured)."""
        s, f = self.first_shown, self.flips
        return {"first_position_win_rate": s.rate, "first_position_ci_low": s.low, "first_position_ci_high": s.high,
                "position_bias": int(self.position_bias), "flip_rate": f.rate, "flip_ci_low": f.low,
                "flip_ci_high": f.high, "flips": f.k, "dual_order_matches": f.n, "draw_rate": self.draw_rate,
                "invalid_rate": self.invalid_rate, "bt_agreement": self.bt_agreement,
                "bt_agreement_verdicts": self.bt_agreement_n, "bt_agreement_in_sample": self.bt_agreement_in_sample,
                "calls": self.calls, "matches": self.matches, "reruns": self.rerun.reruns,
                "rerun_agreement": self.rerun.agreement, "rerun_agreement_ci_low": self.rerun.agreement_low,
                "rerun_agreement_ci_high": self.rerun.agreement_high, "repeat_share": self.rerun.repeat,
                "repeat_share_ci_low": self.rerun.repeat_low, "repeat_share_ci_high": self.rerun.repeat_high,
                "order_effect": self.order_effect}

    def _judge_flat(self) -> dict[str, dict[str, float | int]]:
        return {tier: {"matches": j.matches, "first_position_win_rate": j.first_shown.rate,
                       "first_position_ci_low": j.first_shown.low, "first_position_ci_high": j.first_shown.high,
                       "bt_agreement": j.agreement, "bt_agreement_verdicts": j.agreement_n,
                       **({} if j.reliability is None else {"reliability": j.reliability})}
                for tier, j in self.judges.items()}

    def metrics(self) -> dict[str, float]:
        """MLflow metrics: ``judge_<name>`` and ``judge_by_<tier>_<name>``, NaN figures left out."""
        out = {f"judge_{k}": float(v) for k, v in self.flat().items() if not _nan(v)}
        for tier, figures in self._judge_flat().items():
            out.update({f"judge_by_{tier}_{k}": float(v) for k, v in figures.items() if not _nan(v)})
        return out

    def to_dict(self) -> dict[str, Any]:
        """JSON-safe (NaN becomes None); per-judge figures under ``judges``."""
        return {**{k: (None if _nan(v) else v) for k, v in self.flat().items()},
                "judges": {t: {k: (None if _nan(v) else v) for k, v in fs.items()}
                           for t, fs in self._judge_flat().items()}}

    def flagged(self, tolerance: float) -> bool:
        """True when the first-position win rate is further than ``tolerance`` from 0.5."""
        rate = self.first_shown.rate
        return not _nan(rate) and abs(rate - 0.5) > tolerance

    def _agreement(self) -> str:
        """The session-wide held-out agreement as :func:`agreement_text` says it."""
        return agreement_text(self.bt_agreement, self.bt_agreement_n)

    def lines(self, tolerance: float, biased_share: float | None = None) -> list[str]:
        """Human-readable summary lines (``cosci status``, the report, the overview's appendix).

        Args:
            tolerance: ``ranking.first_position_flag`` (a large rate without significance gets a note).
            biased_share: ``ranking.dual_order_biased_share``, named in the warning when given.
        """
        s, f = self.first_shown, self.flips
        dual = counted(f.n, "dual-order match", "dual-order matches")
        out = [f"judge: first-shown wins {_pct(s.rate)} ({WILSON} {_ci(s)}, nominal for independent calls) of "
               f"{counted(s.n, 'valid call')}; flip rate {_pct(f.rate)} ({WILSON} {_ci(f)}; {f.k} of {dual}); draws "
               f"{_pct(self.draw_rate)}, invalid "
               f"{_pct(self.invalid_rate)} of {counted(self.calls, 'call')}",
               f"judge: agrees with the Bradley–Terry order on {self._agreement()} ({FOLDS}-fold; in-sample "
               f"{_pct(self.bt_agreement_in_sample)})",
               self.rerun.line(),
               f"judge: order effect {_logits(self.order_effect)} toward the first-shown (the Bradley–Terry fit's β; "
               f"first-shown wins {_pct(s.rate)}, {WILSON} {_ci(s)}); {simulated_assumptions()[1]}"]
        if len(self.judges) > 1:
            out += [f"judge {tier}: {counted(j.matches, 'match', 'matches')}, first-shown wins "
                    f"{_pct(j.first_shown.rate)} ({WILSON} {_ci(j.first_shown)}), held-out agreement "
                    f"{agreement_text(j.agreement, j.agreement_n)}"
                    + ("" if j.reliability is None else f", reliability {j.reliability:.2f}")
                    for tier, j in sorted(self.judges.items())]
        if self.position_bias:
            side = "first" if s.rate > 0.5 else "second"
            raised = "" if biased_share is None else (
                f"; close pairs are judged in both orders at share {biased_share:g} (ranking.dual_order_biased_share)")
            out.append(f"WARNING: position bias: the judge favours the {side}-shown hypothesis (first-shown wins "
                       f"{_pct(s.rate)}, {WILSON} {_ci(s)} excludes 50 %){raised}")
        elif self.flagged(tolerance):
            out.append(f"note: the first-shown win rate {_pct(s.rate)} is more than {100 * tolerance:.0f} points from"
                       f" 50 %, but its {WILSON} {_ci(s)} includes 50 % ({counted(s.n, 'call')}): not "
                       "significant")
        return out


def agreement_text(rate: float, n: int) -> str:
    """A held-out agreement ``rate`` in [0, 1] over ``n`` verdicts as ``cosci status`` and the report page say it:
    ``"62 % of 40 held-out verdicts"``, or below :data:`FEW_VERDICTS` the count, ``"1 of 1 held-out verdict"``,
    ``"1½ of 2 held-out verdicts"`` (a
    percentage of one or two verdicts reads as a measurement it is not; design.md#cli)."""
    if 0 < n < FEW_VERDICTS and not _nan(rate):
        halves = round(rate * n * 2)  # a call the fit scores as even counts ½ (design.md#judges)
        count = f"{halves // 2}" + ("½" if halves % 2 else "") if halves != 1 else "½"
        return f"{count} of {counted(n, 'held-out verdict')}"
    return f"{_pct(rate)} of {counted(n, 'held-out verdict')}"


def _nan(x: float | int) -> bool:
    return isinstance(x, float) and math.isnan(x)


def _pct(x: float) -> str:
    return "n/a" if _nan(x) else f"{100 * x:.0f} %"


def _ci(s: Share) -> str:
    return "n/a" if s.n == 0 else f"{100 * s.low:.0f}–{100 * s.high:.0f} %"


def _logits(x: float) -> str:
    return "n/a" if _nan(x) else f"{x:+.2f} logits"


def _rate(num: float, den: int) -> float:
    return num / den if den else math.nan


def judge_stats(matches: Iterable[JudgedMatch], prior_sd: float) -> JudgeStats:
    """Compute the judge statistics (module docstring).

    Args:
        matches: the session's match rows (rows without per-order verdicts count only for draw rate and as
            training verdicts).
        prior_sd: ``ranking.bt_prior_sd``, logits: the prior of every Bradley–Terry fit here.
    """
    rows = list(matches)
    valid = [m for m in rows if m.verdict_valid]
    calls = [v for m in rows for v in m.verdicts]
    decisive = [v for v in calls if v.get("winner") is not None]
    measured = [m for m in rows if len(m.verdicts) > 1 and all(v.get("winner") is not None for v in m.verdicts)]
    flips = sum(len({v["winner"] for v in m.verdicts}) > 1 for m in measured)
    ids = sorted({h for m in valid for h in (m.hyp_a, m.hyp_b)})
    data = [((m.hyp_a, m.hyp_b, jf.score_a(m)), jf.label(m), jf.first_shown(m)) for m in valid]
    held: dict[str, list[float]] = {}  # judge label -> held-out scores
    in_sample: list[float] = []
    if ids:
        for k in range(FOLDS):
            fold = [m for m in valid if jf.fold(m.id) == k]
            if fold:
                fit = jf.fit(ids, [d for m, d in zip(valid, data, strict=True) if jf.fold(m.id) != k], prior_sd)
                for m in fold:
                    held.setdefault(jf.label(m), []).extend(jf.agree(fit, m))
        full = jf.fit(ids, data, prior_sd)
        in_sample = [a for m in valid for a in jf.agree(full, m)]
        reliability = dict(full.reliability) or None  # empty: one judge, or a fit without judge labels
        known = any(f for _, _, f in data)  # β rounded: the same figure whatever order the matches come in
        rerun, order = full.rerun, round(full.position_bias, 9) if known else math.nan
    else:
        reliability, rerun, order = None, RerunEstimate.none(), math.nan
    everyone = [a for scores in held.values() for a in scores]
    labels = {jf.label(m) for m in rows if getattr(m, "judge", None)}
    judges = {}
    for tier in sorted(labels):
        mine = [m for m in rows if jf.label(m) == tier]
        its_calls = [v for m in mine for v in m.verdicts if v.get("winner") is not None]
        rel = reliability.get(tier) if isinstance(reliability, Mapping) else None
        judges[tier] = JudgeView(len(mine), Share.of(sum(v["winner"] == v["first"] for v in its_calls),
                                                     len(its_calls)),
                                 _rate(sum(held.get(tier, [])), len(held.get(tier, []))), len(held.get(tier, [])),
                                 None if rel is None else float(rel))
    return JudgeStats(first_shown=Share.of(sum(v["winner"] == v["first"] for v in decisive), len(decisive)),
                      flips=Share.of(flips, len(measured)),
                      draw_rate=_rate(sum(m.draw for m in valid), len(valid)),
                      invalid_rate=_rate(len(calls) - len(decisive), len(calls)),
                      bt_agreement=_rate(sum(everyone), len(everyone)), bt_agreement_n=len(everyone),
                      bt_agreement_in_sample=_rate(sum(in_sample), len(in_sample)), calls=len(calls),
                      matches=len(rows), judges=judges, rerun=rerun, order_effect=order)


class _MatchesRepo(Protocol):
    def all(self) -> Any: ...


class _Sessions(Protocol):
    def get(self) -> Any: ...


class _Store(Protocol):
    @property
    def matches(self) -> _MatchesRepo: ...
    @property
    def sessions(self) -> _Sessions: ...


def ranking_setting(store: _Store, key: str, default: Any) -> Any:
    """A ``ranking.*`` value of the session's frozen config (``default`` when the snapshot lacks it)."""
    return (store.sessions.get().config_snapshot.get("ranking") or {}).get(key, default)


def session_judge_stats(store: _Store) -> JudgeStats:
    """The judge statistics of a session's store (its matches, the prior of its frozen ``ranking.bt_prior_sd``)."""
    return judge_stats(store.matches.all(), float(ranking_setting(store, "bt_prior_sd", 1.0)))
