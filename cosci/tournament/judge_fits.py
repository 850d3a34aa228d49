"""The judge's verdicts scored out of sample: each held-out match against a Bradley–Terry fit on the other folds.

:func:`cosci.tournament.judge_stats.judge_stats` splits a session's valid matches into ``FOLDS`` folds by a hash
of the match id (:func:`fold`), fits the rest (:func:`fit`, with the first-shown id of every single-order match, as
the session fits) and scores each decisive call of a held-out match (:func:`agree`): design.md#judges.
"""

from __future__ import annotations

import hashlib
import inspect
from collections.abc import Sequence
from typing import Any

from cosci.tournament.bt import BTFit, Method, Verdict, fit_bt
from cosci.tournament.fit_cache import cached_fit

FOLDS = 5
"""Folds of the held-out agreement (design.md#judges: 5 fits, whatever the session's size)."""


def fold(mid: str) -> int:
    return int.from_bytes(hashlib.sha256(mid.encode()).digest()[:4], "big") % FOLDS


def score_a(m: Any) -> float:
    return 0.5 if m.draw else float(m.winner == m.hyp_a)


def first_shown(m: Any) -> str | None:
    """The id shown first in a single-order match (None for a dual-order one or a row without per-order verdicts),
    as the session's fit is given it (``Matches.first_shown``)."""
    return m.verdicts[0].get("first") if len(m.verdicts) == 1 else None


POINT_METHOD: Method = "eb_mix"
"""The fits here are read for their point order (θ differences, β, judge reliabilities), never their intervals, so
they skip the importance draws that only sharpen an interval: ``FOLDS + 1`` ``eb_is`` fits took most of a short
session's CPU at finalisation, and the order they give is the same to Monte Carlo error (docs/design.md#tournament)."""


def fit(ids: Sequence[str], train: Sequence[tuple[Verdict, str, str | None]], prior_sd: float) -> BTFit:
    """BT on ``train`` (verdict, judge label, first-shown id or None), with the first-position term β when some
    order is known (as the session fits); the labels go to ``fit_bt(judges=...)`` when it takes them and more than
    one judge is present."""
    verdicts = [v for v, _, _ in train]
    labels = [j for _, j, _ in train]
    firsts = [f for _, _, f in train]
    first = firsts if any(f is not None for f in firsts) else None
    if len(set(labels)) > 1 and "judges" in inspect.signature(fit_bt).parameters:
        return cached_fit(fit_bt, ids, verdicts, prior_sd, judges=labels, first=first, method=POINT_METHOD)
    return cached_fit(fit_bt, ids, verdicts, prior_sd, first=first, method=POINT_METHOD)  # (design.md#startup)


def agree(fit: BTFit, m: Any) -> list[float]:
    """1 / ½ / 0 per decisive call of ``m`` against ``fit``: 1 when the fit's prediction for that call, the log-odds
    ``θ_first − θ_second + β`` (β the fitted first-position bias, 0 when the fit has none), favours the call's
    winner; ½ when it is 0 (equal scores, no bias)."""
    pos, out = fit.index(), []
    beta = float(getattr(fit, "position_bias", 0.0))
    for v in m.verdicts:
        w = v.get("winner")
        if w is None:
            continue
        first = v.get("first") if v.get("first") in (m.hyp_a, m.hyp_b) else None
        loser = m.hyp_b if w == m.hyp_a else m.hyp_a
        d = float(fit.theta[pos[w]] - fit.theta[pos[loser]])
        if first is not None:
            d += beta if w == first else -beta
        out.append(0.5 if abs(d) < 1e-9 else float(d > 0))
    return out


def label(m: Any) -> str:
    return getattr(m, "judge", None) or "unrecorded"
