"""The session's Bradley–Terry fit (design.md#tournament, #researcher-ratings, #scale): its input (the judge's valid
verdicts and the researcher's weighted preferences), the one fit every in-session and later refit goes through,
its refit cadence, and storing it as the leaderboard fit (``bt_ratings``). :class:`cosci.agents.ranking.RankingAgent`
fits through it during a session; the Supervisor's leaderboard (:mod:`cosci.supervisor.leaderboard`), finalisation
and ``cosci rate`` after it.
"""

from __future__ import annotations

import math
import time
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
from numpy.typing import NDArray

from cosci.config.schema import RankingCfg
from cosci.store import SessionStore
from cosci.tournament.bt import BTFit, Method, Verdict, fit_bt
from cosci.tournament.fit_cache import cached_fit


def session_verdicts(store: SessionStore, weight: int) -> tuple[list[Verdict], list[str | None]]:
    """The BT fit's input: the judge's valid verdicts, then the researcher's preferences repeated ``weight`` times
    (design.md#researcher-ratings); and, parallel to them, the id shown first in each judge verdict (None for a
    dual-order match and for a researcher's preference, which has no presentation order)."""
    judged = store.matches.verdicts()
    rated = store.researcher.verdicts(weight)
    first = [*store.matches.first_shown(), *([None] * len(rated))]
    return [*judged, *rated], first


def fit_session(store: SessionStore, ids: Sequence[str], weight: int, prior_sd: float,
                start: NDArray[np.float64] | None = None, method: Method = "eb_is") -> BTFit:
    """The session's one Bradley–Terry fit over ``ids`` (sorted here: the fit's Monte Carlo draws follow the order
    of its ids, so two orders of one player set give fits that differ by the Monte Carlo error, under 0.05 logits
    on a bound in 4-10-hypothesis sessions, tests/tournament/test_bt_monte_carlo.py; sorted, they are equal) on
    :func:`session_verdicts`: the in-session fits (:meth:`RankingAgent.fit`, :meth:`RankingAgent.refit`) and every
    later refit (:func:`refit_bt`) go through it, so the same players and verdicts give the same stored numbers
    (design.md#researcher-ratings). ``start``: ``(len(ids),)`` θ in sorted-id order, a warm start for the
    pairing's fit; the leaderboard's ``eb_is`` fit ignores it (a warm start moves θ by ~1e-9 logits, and the stored
    fit must not depend on when it was made)."""
    verdicts, first = session_verdicts(store, weight)
    if method == "eb_is":
        return fit_session_on(ids, verdicts, first, prior_sd)
    return fit_bt(sorted(ids), verdicts, prior_sd, start, first=first, method=method)


def fit_session_on(ids: Sequence[str], verdicts: list[Verdict], first: list[str | None], prior_sd: float) -> BTFit:
    """:func:`fit_session`'s leaderboard (``eb_is``) fit on inputs :func:`session_verdicts` read earlier: the
    Supervisor keeps a snapshot's inputs and fits them when the stop rule reads them (design.md#supervisor)."""
    return fit_bt(sorted(ids), verdicts, prior_sd, None, first=first, method="eb_is")


@dataclass(frozen=True)
class Made:
    """A leaderboard fit made ahead of its use (:class:`cosci.supervisor.leaderboard.FinalFit`) and the inputs it was
    made on: sorted player ids, :func:`session_verdicts`' verdicts and first-shown ids."""

    ids: list[str]
    verdicts: list[Verdict]
    first: list[str | None]
    fit: BTFit


def refit_inputs(store: SessionStore, weight: int) -> tuple[list[str], list[Verdict], list[str | None]]:
    """What :func:`refit_bt` fits: the sorted tournament players, the verdicts and the first-shown ids."""
    verdicts, first = session_verdicts(store, weight)
    return sorted(store.hypotheses.player_ids()), verdicts, first


def leaderboard_fit(ids: list[str], verdicts: list[Verdict], first: list[str | None], prior_sd: float,
                    workers: int = 1) -> BTFit:
    """:func:`refit_bt`'s fit of :func:`refit_inputs` (pure computation and the user cache: safe in a worker thread);
    ``workers``: threads computing it (:func:`~cosci.tournament.bt.fit_bt`; the same fit either way)."""
    return cached_fit(fit_bt, ids, verdicts, prior_sd, first=first, method="eb_is", workers=workers)


def refit_bt(store: SessionStore, weight: int, prior_sd: float, made: Made | None = None) -> BTFit:
    """Refit BT on the tournament players with the researcher's preferences and store it (``bt_ratings``):
    ``cosci rate`` of a preference on a session no process runs (a running one refits at its next Elo snapshot), and
    finalisation (:func:`refit_if_stale`). The same fit as the session's last :meth:`RankingAgent.refit` for the
    same players and verdicts (:func:`fit_session`), kept in the user cache by its inputs' hash
    (:mod:`cosci.tournament.fit_cache`): commands on a stopped session refit the same inputs again and again.
    ``made``: a fit made earlier, stored instead of a new one when its inputs are the current ones (the same fit:
    it is deterministic in its inputs). Either way the stored fit is stamped with the time taken before this
    call's read of its inputs (a verdict recorded during the read counts as newer than the fit)."""
    read_at = time.time()
    ids, verdicts, first = refit_inputs(store, weight)
    if made is not None and (made.ids, made.verdicts, made.first) == (ids, verdicts, first):
        fit = made.fit
    else:
        fit = leaderboard_fit(ids, verdicts, first, prior_sd)
    store.matches.save_bt(fit.table(), fit.verdicts, read_at)
    return fit


def stale(store: SessionStore) -> bool:
    """Whether a match was judged or a preference rated (or withdrawn) after the stored fit, or none is stored."""
    changes = [at] if (at := store.researcher.preference_changes()) is not None else []  # rated or withdrawn
    if (judged := store.matches.last_judged_at()) is not None:
        changes.append(judged)
    fitted = store.matches.bt_fitted_at()
    return bool(changes) and (fitted is None or max(changes) >= fitted)


def refit_if_stale(store: SessionStore, weight: int, prior_sd: float, k: int | None = None,
                   made: Made | None = None) -> bool:
    """At finalisation: refit and store BT when a match was judged or a preference rated after the stored fit.
    Above ``ranking.bt_refit_stride`` players the tournament refits only every ⌈players / 100⌉ verdicts, and a
    ``cosci rate`` can land after the session's last round; the overview and the standing read the stored fit, so
    they would be up to a cadence behind (design.md#scale, design.md#researcher-ratings). One fit: ~1 s of CPU at
    1,000 hypotheses. With ``k`` (``termination.elo_stability_k``: the session's own refit) the fit is logged as
    ``bt_refit``, like the loop's (a preference rated near the session's end may reach the leaderboard only here,
    since the loop abandons a fit still running at its end: design.md#supervisor). ``made``: :func:`refit_bt`'s.
    Returns whether it refitted."""
    if not stale(store):
        return False
    fit = refit_bt(store, weight, prior_sd, made)
    if k is not None:
        _logged(store, fit, k)
    return True


def refit_stride(r: RankingCfg, k: int, players: int, method: Method, last: BTFit | None = None,
                 fitted_on: int = 0) -> int:
    """How many new valid verdicts (≥ 1) a fit of ``method`` over ``players`` hypotheses, ``last`` fitted on
    ``fitted_on`` of them, waits before it is redone (design.md#scale): ``⌈players / ranking.bt_refit_stride⌉``
    (1 up to ``bt_refit_stride`` players). Above that the leaderboard's ``eb_is`` fit (the stored intervals,
    what ``bt_stable`` reads) waits until the verdicts grew by ``ranking.bt_leaderboard_growth`` of
    ``fitted_on``, if that is more, except while ``last``'s top ``k`` (``termination.elo_stability_k``) is
    CI-separated (when ``bt_stable`` may stop the session): then it keeps the pairing's stride."""
    stride = max(1, -(-players // r.bt_refit_stride))
    if method != "eb_is" or players <= r.bt_refit_stride or r.bt_leaderboard_growth <= 0:
        return stride
    if last is not None and last.top_k_separated(k):
        return stride
    return max(stride, math.ceil(r.bt_leaderboard_growth * fitted_on))


def save_fit(store: SessionStore, fit: BTFit, k: int, read_at: float) -> None:
    """Store ``fit`` as the session's leaderboard fit (``bt_ratings``) and log ``bt_refit`` (its verdicts, top
    ``k`` and whether that top is CI-separated). ``read_at``: when its verdicts were read (Unix seconds, taken
    before the read), what :func:`refit_if_stale` compares later verdicts with (a fit may be stored a job's length
    after its snapshot: design.md#supervisor)."""
    store.matches.save_bt(fit.table(), fit.verdicts, read_at)
    _logged(store, fit, k)


def _logged(store: SessionStore, fit: BTFit, k: int) -> None:
    """The ``bt_refit`` event of a stored leaderboard fit: its verdicts, top ``k`` and whether that top is
    CI-separated."""
    store.logs.event("bt_refit", {"verdicts": fit.verdicts, "top": fit.order()[:k],
                                  "separated": fit.top_k_separated(k)}, agent="ranking")
