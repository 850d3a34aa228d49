"""Ranking: the Elo tournament (design.md#tournament).

- ``AddToTournament`` — no LLM call: the hypothesis enters at its initial Elo, state ``in_tournament``.
- ``RunTournamentRound`` — ``ranking.matches_per_round`` matches: pair selection (:mod:`cosci.tournament.pairing`,
  seeded per task), mode selection (debate for new or close pairs, else pairwise), the comparison, the
  verdict parsed (``better idea: N``), Elo applied atomically with a deterministic match id. An invalid verdict
  is recorded with Elo unchanged. A retried task replays: a match index an earlier attempt already played is
  not played again, even though the changed ratings would now select another pair.

The pair comes from ``ranking.pairing`` (:mod:`cosci.tournament.engine`); which hypothesis is shown first is
drawn from the task's seeded RNG (stored on the match row), never by id; matches chosen by the dual-order rule
are judged in both orders (each order its own call, one match row; disagreement is a draw, Elo score 0.5): the
rule reads the session's dual-order record and whether the first-shown win rate is significantly biased
(design.md#position-bias; event ``position_bias_detected`` the first time it is). The judge sees neither Elo nor
match counts; its tier is the routed one, or one of ``ranking.judges`` chosen by a hash of the match key and
stored on the match row (design.md#judges). The pairing's Bradley–Terry fit is refitted before a match at the
cadence ``ranking.bt_refit_stride`` (every verdict up to 100 players; design.md#scale); the leaderboard's ``eb_is``
fit (the stored intervals) is not refitted by a round: the Supervisor fits and stores it when it is read
(:mod:`cosci.supervisor.leaderboard`, design.md#supervisor), with :mod:`cosci.agents.session_fit`.
Concurrent rounds in one process never share a hypothesis: ``in_play`` holds the ids of matches being played.
A pair that reached the rematch cap ``ranking.max_matches_per_pair`` is not chosen again.
A chosen match whose two hypotheses each have at most ``ranking.batch_top_chance`` chance of belonging to the top
``ranking.top_k`` (by the Bradley–Terry fit's uncertainty) goes to the provider's batch API where the tier has one
(design.md#batches, :mod:`cosci.agents.match_batches`).

Debate is multi-turn: each turn is one call carrying the transcript so far; from ``debate.min_turns`` a turn
may end with the verdict, and the turn at ``debate.max_turns`` must. For a schema-constrained tier the
concluding turn is constrained to :class:`~cosci.records.TournamentVerdict`.
"""

from __future__ import annotations

import functools
import logging
import time
from collections.abc import Callable
from typing import Any

from cosci.agents.base import AgentDeps, BaseAgent
from cosci.agents.match_batches import MatchBatchPool
from cosci.agents.session_fit import fit_session, refit_stride, save_fit
from cosci.domain import BT_INTERVAL, BT_INTERVAL_LABEL, Hypothesis, Task, TaskResult
from cosci.ids import match_id
from cosci.llm.port.types import CallSpec
from cosci.prompts import render
from cosci.records import TournamentVerdict, tool_schema
from cosci.safety.quoting import quote_hypothesis, quote_untrusted
from cosci.store import MatchRow
from cosci.store.standing import standing
from cosci.tournament.bt import BTFit, Method
from cosci.tournament.elo import EloRule
from cosci.tournament.engine import MatchPlan, TournamentCfg, plan_match
from cosci.tournament.judge_stats import JudgeStats, position_bias
from cosci.tournament.judging import DualOrderState, resolve, unit_hash
from cosci.tournament.pairing import BlockedPairs, never_blocked
from cosci.tournament.rematch import capped_pairs
from cosci.tournament.rerun import WILSON_LABEL, wilson_interval
from cosci.tournament.uncertainty import PAIRING_FIT
from cosci.tournament.verdict import parse_verdict, rationale_of

VERDICT_SCHEMA = tool_schema(TournamentVerdict)
log = logging.getLogger(__name__)


def judge_view(h: Hypothesis) -> str:
    """A hypothesis as the judge sees it: id and content, no Elo, no match count (design.md#tournament: no
    anchoring)."""
    return _quoted(f"[{h.id}]\n{h.brief()}", h.id)


@functools.lru_cache(maxsize=4096)
def _quoted(text: str, hid: str) -> str:
    """:func:`~cosci.safety.quoting.quote_hypothesis`, kept: a pure function of the text, and its normalised-view
    scan was a few ms of every judging call at 1,000 hypotheses (design.md#scale)."""
    return quote_hypothesis(text, hid)


def tournament_appendix(agent: BaseAgent, stats: JudgeStats | None = None) -> str:
    """The overview's tournament appendix: BT scores with CIs of the standing's top 10 in the fit (hypotheses out
    of the ranking left out, as the leaderboard leaves them), the judge statistics (flagged when
    position-biased; ``stats``: :func:`~cosci.tournament.judge_stats.session_judge_stats` made earlier, else made
    here) and whether the judge runs on the generator's model (design.md#tournament)."""
    from cosci.tournament.judge_stats import session_judge_stats

    router, r = agent.deps.router, agent.config.ranking
    bt = [(e.id, e.bt) for e in standing(agent.store).fitted(10) if e.bt is not None]  # the leaderboard's order
    rows = ["# Appendix: tournament statistics", "",
            f"Bradley–Terry scores (logits; {BT_INTERVAL_LABEL}; Elo stays the tournament's rating):", "",
            f"| rank | hypothesis | BT score | {BT_INTERVAL} |", "|---|---|---|---|"]
    rows += [f"| {i} | [{h}] | {s:+.2f} | [{lo:+.2f}, {hi:+.2f}] |" for i, (h, (s, lo, hi)) in enumerate(bt, 1)]
    stats = stats or session_judge_stats(agent.store)
    rows += ["", *(f"- {line}" for line in stats.lines(r.first_position_flag, r.dual_order_biased_share))]
    judges = ({agent.config.models.tiers[t].model for t in r.judges} if r.judges
              else {router.route("ranking", m).model for m in ("pairwise", "debate")})
    generators = {router.route("generation", m).model for m in ("literature", "debate")}
    rows.append("- The ranking judge is the generator's model (" + ", ".join(sorted(judges & generators))
                + "): it may favour its own writing." if judges & generators
                else "- The ranking judge (" + ", ".join(sorted(judges)) + ") differs from the generator.")
    return "\n".join(rows) + "\n"


class RankingAgent(BaseAgent):
    name = "ranking"

    def __init__(self, deps: AgentDeps) -> None:
        super().__init__(deps)
        self.in_play: set[str] = set()  # hypotheses in a match being played now (concurrent rounds)
        self._last_fit: dict[str, tuple[BTFit, int, float | None, float]] = {}  # method -> the last fit, the
        # valid verdicts and when the researcher's preferences last changed then (refit cadence), when its verdicts
        # were read (the stored fit's time)
        self._stored_fit: BTFit | None = None

    def _rule(self) -> EloRule:
        return EloRule.from_config(self.config.ranking)

    def _rematch_cap(self) -> Callable[[str, str], bool]:
        """Pairs at ``ranking.max_matches_per_pair`` are not played again, a match waiting in a provider batch
        counted as played (the rule's owner: :mod:`cosci.tournament.rematch`; design.md#tournament)."""
        full = capped_pairs(self.store.matches.pair_counts(), self.store.batches.pending_pairs(),
                            self.config.ranking.max_matches_per_pair)
        return BlockedPairs(full) if full else never_blocked  # few: listed, not asked per pair (design.md#scale)

    def fit(self, players: list[Hypothesis], method: Method = "eb_is") -> BTFit:
        """Bradley–Terry over every valid verdict among ``players`` and the researcher's preferences, each worth
        ``ranking.researcher_weight`` verdicts (design.md#researcher-ratings), with the first-shown id of each judge
        verdict (the fit's position-bias term; design.md#tournament). ``method``: ``eb_is`` (the calibrated
        intervals, the leaderboard) or the pairing's :data:`PAIRING_FIT`. Deterministic for a given verdict count.

        Refit cadence (design.md#scale): the last fit of ``method`` over the same players is reused while fewer than
        :meth:`stride` valid verdicts have been added since it and no preference was rated or withdrawn (none, up to
        ``ranking.bt_refit_stride`` players: every new verdict refits, and the fit the pairing reads is the one the
        previous round stored); a refit of the pairing's fit starts from the last fit's θ (the leaderboard's does not:
        :func:`fit_session`). A resumed session refits at once. The fit's
        ids are sorted."""
        return self._fit_ids(tuple(sorted(p.id for p in players)), method)  # by id: the Elo order moves each match

    def _fit_ids(self, ids: tuple[str, ...], method: Method) -> BTFit:
        """:meth:`fit` over the sorted ``ids``."""
        valid = self.store.matches.valid_count()
        rated = self.store.researcher.preference_changes()  # a preference rated or withdrawn since the last fit
        last = self._last_fit.get(method)
        if last is not None and last[0].ids == ids and last[2] == rated and 0 <= valid - last[1] < self.stride(
                len(ids), method, last[0], last[1]):
            return last[0]
        start = last[0].theta if last is not None and last[0].ids == ids else None
        r = self.config.ranking
        read_at = time.time()
        fit = fit_session(self.store, ids, r.researcher_weight, r.bt_prior_sd, start, method)
        self._last_fit[method] = (fit, valid, rated, read_at)
        return fit

    def stride(self, players: int, method: Method, last: BTFit | None = None, fitted_on: int = 0) -> int:
        """:func:`refit_stride` with this session's config."""
        return refit_stride(self.config.ranking, self.config.termination.elo_stability_k, players, method, last,
                            fitted_on)

    def _fit_or(self, fit: BTFit | None, players: list[Hypothesis]) -> BTFit:
        """``fit`` if the pairing made one, else a fit over ``players`` (the batch pool's stakes, design.md#batches)."""
        return fit if fit is not None else self.fit(players)

    def refit(self) -> BTFit:
        """Refit BT on the tournament players (at the cadence of :meth:`fit`) and store it (:func:`save_fit`); a
        reused fit is already stored and is not written again. A round does not call it: the Supervisor stores the
        leaderboard fit when it is read (:mod:`cosci.supervisor.leaderboard`, design.md#supervisor)."""
        fit = self._fit_ids(tuple(sorted(self.store.hypotheses.player_ids())), "eb_is")
        if fit is not self._stored_fit:
            self._stored_fit = fit
            save_fit(self.store, fit, self.config.termination.elo_stability_k, self._last_fit["eb_is"][3])
        return fit

    async def execute(self, task: Task) -> TaskResult:
        if task.action == "AddToTournament":
            hid = task.target_id or ""
            self.store.hypotheses.set_state(hid, "in_tournament", only_from="reviewed")
            return TaskResult("added_to_tournament", [hid])
        if task.action == "RunTournamentRound":
            return await self._round(task)
        # a provider batch of low-stakes matches (cosci/agents/match_batches.py; design.md#batches)
        if task.action == "MatchBatch":
            return await self.pool.run(task)
        raise ValueError(f"ranking has no action {task.action!r}")

    async def _round(self, task: Task) -> TaskResult:
        match_ids, played = [], []
        sid = self.store.namespace
        earlier = self.store.matches.all(task_id=task.id)  # played by an earlier attempt of this task
        for i in range(self.config.ranking.matches_per_round):
            prior = next((m.id for m in earlier if m.id == match_id(sid, m.hyp_a, m.hyp_b, task.id, i)), None)
            prior = prior or self.pool.queued(task, i)  # or queued for a provider batch by an earlier attempt
            if prior:  # never re-select: Elo has moved since, so the pair (and its match id) could differ
                match_ids.append(prior)
                continue
            players = self.store.hypotheses.ranked()
            tcfg = TournamentCfg.from_config(self.config.ranking)
            fit = self.fit(players, PAIRING_FIT) if tcfg.pairing == "uncertainty" else None
            key = self.match_key(task, i)
            plan = plan_match(players, self.rng(task, f"match{i}"), self.deps.vectors.similarity, tcfg, fit,
                              focus_id=task.payload.get("focus_id") if i == 0 else None, exclude=self.in_play,
                              blocked=self._rematch_cap(), state=self.dual_order_state(), key=key,
                              sim_block=self.deps.vectors.similarities, shown=self.store.matches.shown_counts())
            if plan is None:
                break
            a, b = sorted((plan.first, plan.second))
            by_id = {p.id: p for p in players}
            judge, batch_judge = self.judge_tier(key, plan.mode), self.judge_tier(key, "pairwise")
            # a low-stakes pair whose judge is the batch pool's tier: a provider batch (design.md#batches)
            if batch_judge == self.pool.route.tier and self.pool.takes(
                    functools.partial(self._fit_or, fit, players), by_id[a], by_id[b]):
                mid = match_id(sid, a, b, task.id, i)
                self.pool.queue(task, i, mid, by_id[a], by_id[b], self._pairwise_spec(
                    task, by_id[plan.first], by_id[plan.second], f"match{i}", batch_judge), first=plan.first)
                match_ids.append(mid)
                continue
            self.in_play.update((a, b))  # no await since the selection: concurrent rounds stay disjoint
            try:
                row = await self._play(task, i, plan, by_id, judge)
            finally:
                self.in_play.difference_update((a, b))
            match_ids.append(match_id(sid, a, b, task.id, i))
            if row:
                played.append({"id": row.id, "mode": plan.mode, "bucket": plan.bucket, "winner": row.winner,
                               "valid": row.verdict_valid, "draw": row.draw, "first": plan.first,
                               "dual_order": row.dual_order, **({"retired": row.retired} if row.retired else {})})
                self.store.logs.event("match_complete", {"id": row.id, "mode": plan.mode, "hyp_a": a, "hyp_b": b,
                                                          "winner": row.winner, "draw": row.draw,
                                                          "first_shown": plan.first,
                                                          "elo_applied": row.verdict_valid}, agent=self.name)
        if not match_ids:
            return TaskResult("nothing_to_do", detail={"reason": "no pair left to play (fewer than two free hypotheses,"
                                                                 " or every pair at the rematch cap)"})
        return TaskResult("tournament_match_complete", match_ids=match_ids, detail={"matches": played})

    def match_key(self, task: Task, index: int) -> str:
        """The key the dual-order sample and the judge are drawn from: the run seed, the task and the match index
        (a resumed or retried task draws the same; design.md#position-bias)."""
        return f"{self.config.run.seed}:{task.id}:match{index}"

    def judge_tier(self, key: str, mode: str) -> str:
        """The tier that judges the match of ``key``: one of ``ranking.judges`` by a hash of the key, or the routed
        tier of ``mode`` when the list is empty (design.md#judges)."""
        judges = self.config.ranking.judges
        if not judges:
            return self.deps.router.route(self.name, mode).tier
        return judges[min(int(unit_hash(f"judge:{key}") * len(judges)), len(judges) - 1)]

    def dual_order_state(self) -> DualOrderState:
        """The session's dual-order record and position bias before the next match (design.md#position-bias);
        logs ``position_bias_detected`` (and a warning) the first time the bias is significant."""
        matches, dual, wins, calls = self.store.matches.order_record()
        biased = position_bias(wins, calls)
        if biased and not self.store.logs.events("position_bias_detected"):
            share = self.config.ranking.dual_order_biased_share
            self.store.logs.event("position_bias_detected", {"first_shown_wins": wins, "valid_calls": calls,
                                                              "biased_share": share}, agent=self.name)
            low, high = wilson_interval(wins, calls)  # fresh-user trial: the warning named the interval, not its bounds
            log.warning("position bias: the first-shown hypothesis won %d of %d judging calls (%.0f %%, %.1f-%.1f %% "
                        "%s; it excludes 50 %%); close pairs are now judged in both orders at share %g", wins, calls,
                        100 * wins / calls, 100 * low, 100 * high, WILSON_LABEL, share)
        return DualOrderState(matches, dual, biased)

    async def _play(self, task: Task, index: int, plan: MatchPlan, by_id: dict[str, Hypothesis],
                    judge: str) -> MatchRow | None:
        """Judge the plan's order (and the swapped one if dual) on tier ``judge``, then record one match row."""
        orders = [(plan.first, plan.second)] + ([(plan.second, plan.first)] if plan.dual else [])
        winners, rationales, transcript, verdicts = [], [], [], []
        for n, (first, second) in enumerate(orders):
            tag = f"match{index}" + ("/swap" if n else "")
            winner, rationale, turns = await self._compare(task, plan.mode, by_id[first], by_id[second], tag, judge)
            winners.append(winner)
            rationales.append(rationale)
            transcript += [{**t, "order": n, "first": first} for t in turns]
            verdicts.append({"first": first, "winner": winner})
        a, b = sorted((plan.first, plan.second))
        rationale = "\n\n--- swapped order ---\n\n".join(rationales)
        return self.store.matches.apply(match_id(self.store.namespace, a, b, task.id, index), a, b,
                                         mode=plan.mode, winner=resolve(winners), rule=self._rule(),
                                         rationale=rationale[:6000], transcript=transcript, task_id=task.id,
                                         first_shown=plan.first, verdicts=verdicts, judge=judge)

    async def _compare(self, task: Task, mode: str, a: Hypothesis, b: Hypothesis, tag: str,
                       judge: str) -> tuple[str | None, str, list[dict[str, Any]]]:
        """Run one comparison with ``a`` shown as hypothesis 1 on tier ``judge``; returns ``(winner id or None,
        rationale, transcript)``. ``tag`` names the calls (``match0``, ``match0/swap``)."""
        base = self._prompt_inputs(a, b)
        if mode == "pairwise":
            text = (await self.deps.llm.complete(self._pairwise_spec(task, a, b, tag, judge))).text
            transcript = [{"speaker": "judge", "text": text}]
        else:
            text, transcript = await self._debate(task, base, tag, judge)
        verdict = parse_verdict(text)
        winner = None if verdict is None else (a.id if verdict == 1 else b.id)
        return winner, rationale_of(text), transcript

    def _prompt_inputs(self, a: Hypothesis, b: Hypothesis) -> dict[str, Any]:
        """The judge's inputs with ``a`` shown as hypothesis 1: no Elo, no match count (design.md#tournament)."""
        plan = self.deps.plan
        return {"objective": plan.objective, "preferences": plan.preferences, "idea_attributes": plan.idea_attributes,
                "hypothesis_1": judge_view(a), "hypothesis_2": judge_view(b),
                "review_1": self.latest_review(a), "review_2": self.latest_review(b)}

    def _pairwise_spec(self, task: Task, a: Hypothesis, b: Hypothesis, tag: str, judge: str) -> CallSpec:
        route = self.deps.router.route(self.name, "pairwise", judge)
        return self.spec("pairwise", task, render("ranking.pairwise", **self._prompt_inputs(a, b)),
                         action=f"{task.action}/{tag}", feedback=False, tier=judge,
                         response_schema=VERDICT_SCHEMA if route.constrained else None)

    @functools.cached_property
    def pool(self) -> MatchBatchPool:
        """The batch pool of low-stakes matches (design.md#batches)."""
        return MatchBatchPool(self)

    async def _debate(self, task: Task, base: dict[str, Any], tag: str,
                      judge: str) -> tuple[str, list[dict[str, Any]]]:
        constrained = self.deps.router.route(self.name, "debate", judge).constrained
        dcfg = self.config.debate
        max_turns = dcfg.max_turns
        min_turns = min(dcfg.min_turns, max_turns)
        transcript: list[dict[str, Any]] = []
        text = ""
        for turn in range(1, max_turns + 1):
            quoted = [{"speaker": t["speaker"], "text": quote_untrusted(t["text"], f"debate-turn-{n + 1}")}
                      for n, t in enumerate(transcript)]
            user = render("ranking.debate", **base, transcript=quoted, turn=turn, min_turns=min_turns,
                          max_turns=max_turns)
            may_conclude = turn >= min_turns
            spec = self.spec("debate", task, user, action=f"{task.action}/{tag}/turn{turn}", feedback=False,
                             tier=judge, response_schema=VERDICT_SCHEMA if constrained and may_conclude else None)
            text = (await self.deps.llm.complete(spec)).text
            transcript.append({"speaker": f"Panel turn {turn}", "text": text})
            if may_conclude and parse_verdict(text) is not None:
                break
        return text, transcript
