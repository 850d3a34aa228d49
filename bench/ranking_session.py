"""The simulated session of the ranking simulator: cosci's tournament code driven by a simulated judge
(design.md#tournament, design.md#judge-memory).

:func:`run_trial` plays one session of ``N`` hypotheses under a judge of :mod:`bench.ranking_judges`: each match
planned by :func:`cosci.tournament.engine.plan_match` (pairing, mode, presentation order, dual-order rule),
resolved by :func:`~cosci.tournament.judging.resolve`, applied by the store's Elo rule and refitted
(:func:`~cosci.tournament.bt.fit_bt`), and reports top-5 recall at each budget. :data:`VARIANTS` are the plan
settings and :class:`SimOpts` the session options ``python -m bench.ranking_sim --variants`` compares
(:mod:`bench.ranking_sim` prints the tables).
"""

from __future__ import annotations

import math
import random
from dataclasses import dataclass, field, replace
from functools import partial
from pathlib import Path

import numpy as np
import yaml
from numpy.typing import NDArray

from bench.ranking_coverage import old_fit
from bench.ranking_judges import Judge, logistic
from cosci.config.schema import RankingCfg
from cosci.tournament.bt import BTFit, Verdict, fit_bt
from cosci.tournament.elo import EloRule
from cosci.tournament.engine import MatchPlan, TournamentCfg, plan_match
from cosci.tournament.judge_stats import position_bias
from cosci.tournament.judging import DualOrderCfg, DualOrderState, resolve, score_of
from cosci.tournament.pairing import BlockedPairs, never_blocked


@dataclass
class SimPlayer:
    id: str
    elo: float = 1200.0
    matches_played: int = 0


@dataclass(frozen=True)
class SimOpts:
    """How the simulated session feeds the Bradley–Terry fit.

    Args:
        fit: the leaderboard's fit, read at each budget: ``old`` (the earlier fit: half-wins, N(0, 1) prior,
            Laplace), or a :data:`cosci.tournament.bt.Method`.
        feed: ``match`` — one verdict per match (a dual-order disagreement is a tie); ``calls`` — one verdict
            per judge call.
        order: pass the first-shown id of each verdict (``first=``; None for a dual-order match's verdict).
        judge2_sd: noise sd of a second judge taking every other call (None: one judge, noise sd 1).
        labels: pass the judge of each verdict to the fit (``judges=``).
        pair_fit: the fit the pairing reads after every match (``laplace``: cheap; ``old``; or another method).
        state: pass the session's dual-order record (:class:`~cosci.tournament.judging.DualOrderState`: the
            sample's quota, and once the first-shown win rate's 95 % interval excludes ½ the
            ``dual_order_biased_share`` of close pairs judged in both orders), as a session does.
        cap: apply the rematch cap (``ranking.max_matches_per_pair``: a pair judged that many times is never chosen
            again), as a session does; off in the earlier variants, whose figures are therefore upper bounds.
        cap_value: the cap's value when ``cap`` is on (None: the shipped ``ranking.max_matches_per_pair``);
            ``--cap N`` sets it to measure what a higher cap would buy.
        replay: who a rematch shows first: ``less_shown`` — the order judged fewer times, as a session does
            (:func:`cosci.tournament.judging.presentation_order`; design.md#judge-memory); ``coin`` — a fair coin,
            as sessions did before (the earlier variants).
        judged: the counts the pairing reads (``shown``) include both orders of every dual-order match (a judge
            with memory remembers a prompt it answered inside one); off: single-order calls only, as a session does
            (``Matches.shown_counts``). Tried at the eighteenth stop and not adopted (bench/README.md).
    """

    fit: str = "eb_is"
    feed: str = "match"
    order: bool = True
    judge2_sd: float | None = None
    labels: bool = False
    pair_fit: str = "laplace"
    state: bool = False
    cap: bool = False
    cap_value: int | None = None
    replay: str = "coin"
    judged: bool = False


class CoinRecord(random.Random):
    """A :class:`random.Random` that keeps its last ``random()`` draw, on the same sequence as the plain one.

    :func:`~cosci.tournament.engine.plan_match`'s last draw is :func:`~cosci.tournament.judging.wants_dual_order`'s
    coin (the sample's ``u`` when no key is passed), so after a plan :attr:`last` says why a match was judged in both
    orders (:func:`dual_kind`). ``getrandbits`` is defined so ``randrange``/``choice`` keep ``random.Random``'s draws
    (a subclass overriding ``random`` alone would switch them to float draws)."""

    last: float = math.nan

    def random(self) -> float:
        self.last = super().random()
        return self.last

    def getrandbits(self, k: int, /) -> int:
        return super().getrandbits(k)


DUAL_KINDS = ("policy", "sample", "escalation", "quota")


def dual_kind(cfg: DualOrderCfg, state: DualOrderState | None, close: bool, coin: float) -> str:
    """Why a dual-order match was judged in both orders, in :func:`~cosci.tournament.judging.wants_dual_order`'s
    order of rules: ``policy`` (``close``/``all``), ``sample`` (the coin under ``dual_order_sample``),
    ``escalation`` (biased, a close pair, the coin under ``dual_order_biased_share``), else ``quota``. ``close``: a
    debate or a pair within ``dual_order_elo_gap`` Elo points; ``coin``: the plan's dual-order coin. For
    ``sample_on: random`` only (a ``boundary`` sample is not told by its coin)."""
    if cfg.policy == "all" or (cfg.policy == "close" and close):
        return "policy"
    if coin < cfg.sample:
        return "sample"
    if state is not None and state.biased and close and coin < cfg.biased_share:
        return "escalation"
    return "quota"


@dataclass
class Tally:
    """What :func:`run_trial` counts for its ``tally`` (``on``; off, nothing is counted)."""

    on: bool
    kinds: dict[str, int] = field(default_factory=lambda: dict.fromkeys(DUAL_KINDS, 0))
    asked: dict[tuple[str, str], int] = field(default_factory=dict)  # calls per (first, second)

    def match(self, cfg: DualOrderCfg, state: DualOrderState | None, plan: MatchPlan, gap: float,
              rng: CoinRecord, orders: list[tuple[str, str]]) -> None:
        """Count one planned match: ``gap`` its Elo difference (points) before it, ``rng`` the plan's, ``orders``
        the (first, second) of each call."""
        if not self.on:
            return
        if plan.dual:
            close = plan.mode == "debate" or abs(gap) < cfg.elo_gap
            self.kinds[dual_kind(cfg, state, close, rng.last)] += 1
        for order in orders:
            self.asked[order] = self.asked.get(order, 0) + 1

    def counts(self, matches: int, played: dict[tuple[str, str], int], cap: int) -> dict[str, int]:
        """The dual-order matches so far by :func:`dual_kind` (:data:`DUAL_KINDS`), ``matches``, ``capped`` —
        pairs at the rematch cap — and ``reruns`` — calls on an ordered pair already judged in that order (the
        calls a judge with memory may answer by copy)."""
        return self.kinds | {"matches": matches, "capped": sum(k >= cap for k in played.values()),
                             "reruns": sum(k - 1 for k in self.asked.values())}


def recall(order: list[str], truth: set[str], k: int = 5) -> float:
    return len(set(order[:k]) & truth) / k


def _fit(ids: list[str], verdicts: list[Verdict], firsts: list[str | None], judges: list[int], opts: SimOpts,
         start: NDArray[np.float64], method: str) -> BTFit:
    if method == "old":
        theta, cov = old_fit(ids, verdicts)
        sd = np.sqrt(np.diag(cov))
        return BTFit(tuple(ids), theta, cov, len(verdicts), sd, 0.0, 1.0, {}, 0.0, "laplace")
    return fit_bt(ids, verdicts, start=start, first=firsts if opts.order else None,
                  judges=judges if opts.labels else None, method=method)  # type: ignore[arg-type]


def run_trial(cfg: TournamentCfg, bias: float, trial: int, budgets: tuple[int, ...], n: int = 40,
              per: int = 1, opts: SimOpts = SimOpts(), model: str = "independent",
              tally: dict[int, dict[str, int]] | None = None) -> dict[int, tuple[float, float, int, int, float]]:
    """One tournament under the ``model`` judge (:mod:`bench.ranking_judges`); per budget (calls per hypothesis):
    ``(recall by Elo, recall by BT, calls, draws, r2)``, ``r2`` the second judge's fitted reliability (NaN without
    labels).

    ``tally`` (filled when given, the trial's draws unchanged): per budget, :meth:`Tally.counts`."""
    qrng = np.random.default_rng(1000 + trial)
    q = {f"H{i:02d}": float(v) for i, v in enumerate(qrng.normal(size=n))}
    truth = set(sorted(q, key=lambda h: -q[h])[:5])
    players = {h: SimPlayer(h) for h in q}
    rule, calls, draws, out = EloRule.from_config(shipped_ranking()), 0, 0, {}
    verdicts: list[Verdict] = []
    firsts: list[str | None] = []
    judges: list[int] = []
    jrng, ids = np.random.default_rng(2000 + trial), list(q)
    judges_by = {sd: Judge(model, bias, partial(logistic, sd=sd), jrng)
                 for sd in {1.0, opts.judge2_sd or 1.0}}
    fit = fit_bt(ids, [])
    first_wins, duals = 0, 0
    played: dict[tuple[str, str], int] = {}
    shown: dict[tuple[str, str], int] = {}  # calls per (first, second) the pairing reads (SimOpts.judged)
    cap = opts.cap_value or shipped_ranking().max_matches_per_pair
    counter = Tally(on=tally is not None)
    for step in range(10**6):
        if calls >= budgets[-1] * n // per:
            break
        state = DualOrderState(step, duals, position_bias(first_wins, calls)) if opts.state else None
        blocked = BlockedPairs(frozenset(p for p, k in played.items() if k >= cap)) if opts.cap else never_blocked
        rng = CoinRecord(f"{trial}:{step}")
        plan = plan_match(list(players.values()), rng, lambda a, b: 0.0, cfg, fit,
                          state=state, blocked=blocked, shown=shown if opts.replay == "less_shown" else None)
        assert plan is not None, "every pair at the rematch cap (a session would stop `stalled`)"
        orders = [(plan.first, plan.second)] + ([(plan.second, plan.first)] if plan.dual else [])
        counter.match(cfg.dual, state, plan, players[plan.first].elo - players[plan.second].elo, rng, orders)
        for order in orders if opts.judged or not plan.dual else []:  # judged: dual orders too; else shown_counts'
            shown[order] = shown.get(order, 0) + 1
        who = [(calls + k) % 2 if opts.judge2_sd is not None else 0 for k in range(len(orders))]
        winners = [f if judges_by[opts.judge2_sd if g and opts.judge2_sd else 1.0](f, s, q[f] - q[s]) == 1.0 else s
                   for (f, s), g in zip(orders, who, strict=True)]
        outcome = resolve(winners)
        calls += len(orders)
        duals += plan.dual
        first_wins += sum(w == f for (f, _), w in zip(orders, winners, strict=True))
        a, b = sorted((plan.first, plan.second))
        played[(a, b)] = played.get((a, b), 0) + 1
        s = score_of(a, outcome)
        assert s is not None
        draws += s == 0.5
        pa, pb = players[a], players[b]
        delta, _ = rule(pa.elo, pa.matches_played, pb.elo, pb.matches_played, s)
        pa.elo, pb.elo = pa.elo + delta, pb.elo - delta
        pa.matches_played += 1
        pb.matches_played += 1
        if opts.feed == "calls":
            for (f, sec), w, g in zip(orders, winners, who, strict=True):
                verdicts.append((f, sec, 1.0 if w == f else 0.0))
                firsts.append(f)
                judges.append(g)
        else:
            verdicts.append((a, b, s))
            firsts.append(None if plan.dual else plan.first)
            judges.append(who[0])
        fit = _fit(ids, verdicts, firsts, judges, opts, fit.theta, opts.pair_fit)
        for c in budgets:
            if c not in out and calls >= c * n // per:
                elo_order = sorted(players, key=lambda h: (-players[h].elo, h))
                board = fit if opts.fit == opts.pair_fit else _fit(ids, verdicts, firsts, judges, opts, fit.theta,
                                                                    opts.fit)
                rel = board.reliability
                r2 = rel["1"] / rel["0"] if "1" in rel and "0" in rel else math.nan
                out[c] = (recall(elo_order, truth), recall(board.order(), truth), calls, draws, r2)
                if tally is not None:
                    tally[c] = counter.counts(step + 1, played, cap)
    return out


def shipped_ranking(overrides: dict[str, str] | None = None) -> RankingCfg:
    """The shipped ``ranking`` group's default (``conf/ranking/default.yaml``), plus overrides."""
    conf = Path(__file__).resolve().parents[1] / "conf" / "ranking" / "default.yaml"
    values = yaml.safe_load(conf.read_text(encoding="utf-8")) | dict(overrides or {})
    return RankingCfg(**values)


def shipped(overrides: dict[str, str] | None = None) -> TournamentCfg:
    """The plan settings of the shipped ``ranking`` group (:func:`shipped_ranking`), plus overrides."""
    return TournamentCfg.from_config(shipped_ranking(overrides))


DEFAULT = shipped()
SESSION = SimOpts(state=True, cap=True, replay="less_shown")
"""What a session does beside the plan settings: its dual-order record, its rematch cap, a rematch shown in the order
judged fewer times."""
SAMPLED = replace(DEFAULT, dual=replace(DEFAULT.dual, sample=0.1))
EARLIER = replace(DEFAULT, uncertainty=replace(DEFAULT.uncertainty, boundary_power=1.0, rematch_information=False))
"""The shipped plan settings before the twelfth stop (bench/README.md): boundary weight φ(z)/v, every rematch
valued as a fresh verdict; ``earlier+…`` change one of them, as tuned."""
VARIANTS: dict[str, tuple[TournamentCfg, SimOpts]] = {
    "default": (DEFAULT, SimOpts()),
    "elo_buckets": (replace(DEFAULT, pairing="elo_buckets"), SimOpts()),
    "old+sample-0.1": (SAMPLED, SimOpts(fit="old", pair_fit="old", order=False)),
    "default+sample-0.1": (SAMPLED, SimOpts()),
    "default+sample-0.05": (replace(DEFAULT, dual=replace(DEFAULT.dual, sample=0.05)), SimOpts()),
    "noorder+sample-0.1": (SAMPLED, SimOpts(order=False)),
    "before+sample-0.1": (SAMPLED, SimOpts(order=False, pair_fit="eb_is")),
    "calls+sample-0.1": (SAMPLED, SimOpts(feed="calls")),
    "session+sample-0.1": (SAMPLED, SimOpts(state=True)),
    "session+cap+sample-0.1": (SAMPLED, SimOpts(state=True, cap=True)),
    "thompson+sample-0.1": (replace(SAMPLED, uncertainty=replace(SAMPLED.uncertainty, pair_draw="thompson")),
                            SimOpts()),
    "default+dual-close": (replace(DEFAULT, dual=replace(DEFAULT.dual, policy="close")), SimOpts()),
    "default+dual-all": (replace(DEFAULT, dual=replace(DEFAULT.dual, policy="all")), SimOpts()),
    "2judges+sample-0.1": (SAMPLED, SimOpts(judge2_sd=2.0, feed="calls", order=True)),
    "2judges+labels+sample-0.1": (SAMPLED, SimOpts(judge2_sd=2.0, feed="calls", order=True, labels=True)),
    "session": (DEFAULT, SESSION),
    "session+coin": (DEFAULT, replace(SESSION, replay="coin")),
    "session+judged": (DEFAULT, replace(SESSION, judged=True)),
    "session+boundary-dual": (replace(DEFAULT, dual=replace(DEFAULT.dual, sample_on="boundary")), SESSION),
    "session+boundary-dual+judged": (replace(DEFAULT, dual=replace(DEFAULT.dual, sample_on="boundary")),
                                     replace(SESSION, judged=True)),
    "session+cap-2": (DEFAULT, replace(SESSION, cap_value=2)),
    "session+cap-4": (DEFAULT, replace(SESSION, cap_value=4)),
    "session+cap-6": (DEFAULT, replace(SESSION, cap_value=6)),
    "session+sample-0": (replace(DEFAULT, dual=replace(DEFAULT.dual, sample=0.0)), SESSION),
    "session+escalation-0": (replace(DEFAULT, dual=replace(DEFAULT.dual, biased_share=0.0)), SESSION),
    "session+escalation-1": (replace(DEFAULT, dual=replace(DEFAULT.dual, biased_share=1.0)), SESSION),
    "session+cap-2+sample-0": (replace(DEFAULT, dual=replace(DEFAULT.dual, sample=0.0)),
                               replace(SESSION, cap_value=2)),
    "earlier": (EARLIER, SESSION),
    "earlier+power-1.5": (replace(EARLIER, uncertainty=replace(EARLIER.uncertainty, boundary_power=1.5)), SESSION),
    "earlier+temp-100": (replace(EARLIER, uncertainty=replace(EARLIER.uncertainty, temperature=100.0)), SESSION),
    "earlier+info": (replace(EARLIER, uncertainty=replace(EARLIER.uncertainty, rematch_information=True)), SESSION),
}
"""Variants (``+``) run at bias 0.3 only unless ``--all``. ``session`` is what a session does with the shipped
``ranking`` group: its dual-order sample and escalation (``state``), its rematch cap and a rematch shown in the order
judged fewer times (``session+coin``: a fair coin, as before); the default variant, at bias 0.3, under both judges,
beside the bound (:func:`bench.ranking_sim.bound_rows`). ``session+cap-2`` / ``+cap-4`` / ``+cap-6``, ``+sample-0``
and ``+escalation-0`` change one of its costs (the rematch cap, ``ranking.dual_order_sample``,
``ranking.dual_order_biased_share``; ``+escalation-1`` the share the other way, every close pair once biased:
twenty-third stop, :mod:`bench.ranking_paired`), ``+cap-2+sample-0`` two, for choosing them on tuning trials under
the judge with memory (design.md#judge-memory). ``earlier`` is the session before the twelfth stop (:data:`EARLIER`:
boundary weight φ(z)/v, every rematch valued as new); ``earlier+power-1.5``, ``+info`` and ``+temp-100`` each change
one plan setting of it (``ranking.boundary_power``, ``ranking.rematch_information``, ``ranking.temperature``), as
tuned (bench/README.md, twelfth stop). ``session+judged`` counts both orders of a dual-order match in the counts the
pairing reads (:attr:`SimOpts.judged`; eighteenth stop, not adopted). ``session+boundary-dual`` judges both orders of
every match on a pair straddling the top-5 line instead of the 10 % random sample (``DualOrderCfg.sample_on``;
nineteenth stop; ``+judged`` with :attr:`SimOpts.judged` as well, exploratory)."""
