"""Ranking: the Elo tournament (seed 000 §4).

- ``AddToTournament`` — no LLM call: the hypothesis enters at its initial Elo, state ``in_tournament``.
- ``RunTournamentBatch`` — ``ranking.matches_per_batch`` matches: pair selection (:mod:`cosci.tournament.pairing`,
  seeded per task), mode selection (debate for new or close pairs, else pairwise), the comparison, the
  verdict parsed (``better idea: N``), Elo applied atomically with a deterministic match id. An invalid verdict
  is recorded with Elo unchanged. The lower id is always hypothesis 1 (seed 003: cache hits cluster).
  A retried task replays: a match index an earlier attempt already played is not played again, even though
  the changed ratings would now select another pair.

Debate is multi-turn: each turn is one call carrying the transcript so far; from ``debate.min_turns`` a turn
may end with the verdict, and the turn at ``debate.max_turns`` must. For a schema-constrained tier the
concluding turn is constrained to :class:`~cosci.records.TournamentVerdict`.
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import Any

from cosci.agents.base import BaseAgent
from cosci.agents.match_batches import MatchBatchPool
from cosci.domain import Hypothesis, Task, TaskResult, match_id
from cosci.llm.types import CallSpec
from cosci.prompts import render
from cosci.records import TournamentVerdict, tool_schema
from cosci.safety.quoting import quote_untrusted
from cosci.tournament.elo import EloRule
from cosci.tournament.pairing import PairingCfg, select_mode, select_pair
from cosci.tournament.verdict import parse_verdict, rationale_of

VERDICT_SCHEMA = tool_schema(TournamentVerdict)


class RankingAgent(BaseAgent):
    name = "ranking"

    def _rule(self) -> EloRule:
        r = self.config.ranking
        return EloRule(r.k_factor_new, r.k_factor_warm, r.new_matches_threshold)

    def _pairing(self) -> PairingCfg:
        r = self.config.ranking
        return PairingCfg(r.p_new, r.p_close, r.p_random, r.new_arrival_matches, r.close_elo_window,
                          r.debate_min_matches, r.debate_elo_gap)

    def _rematch_cap(self) -> Callable[[str, str], bool]:
        """Pairs that reached ``ranking.max_matches_per_pair`` are not played again (issue 11)."""
        counts, cap = self.record.matches.pair_counts(), self.config.ranking.max_matches_per_pair
        return lambda a, b: counts.get((min(a, b), max(a, b)), 0) >= cap

    async def execute(self, task: Task) -> TaskResult:
        if task.action == "AddToTournament":
            hid = task.target_id or ""
            self.record.hypotheses.set_state(hid, "in_tournament", only_from="reviewed")
            return TaskResult("added_to_tournament", [hid])
        if task.action == "RunTournamentBatch":
            return await self._batch(task)
        if task.action == "MatchBatch":  # issue 16: a batch of low-stakes matches (cosci/agents/match_batches.py)
            return await self.pool.run(task)
        raise ValueError(f"ranking has no action {task.action!r}")

    async def _batch(self, task: Task) -> TaskResult:
        match_ids, played = [], []
        sid = self.record.namespace
        earlier = self.record.matches.all(task_id=task.id)  # played by an earlier attempt of this task
        for i in range(self.config.ranking.matches_per_batch):
            prior = next((m.id for m in earlier if m.id == match_id(sid, m.hyp_a, m.hyp_b, task.id, i)), None)
            prior = prior or self.pool.queued(task, i)  # or queued for a batch by an earlier attempt
            if prior:  # never re-select: Elo has moved since, so the pair (and its match id) could differ
                match_ids.append(prior)
                continue
            players = self.record.hypotheses.ranked()
            rng = self.rng(task, f"match{i}")
            pair = select_pair(players, rng, self.deps.vectors.similarity, self._pairing(),
                               focus_id=task.payload.get("focus_id") if i == 0 else None,
                               blocked=self._rematch_cap())
            if pair is None:
                break
            a, b = sorted((pair.a, pair.b))
            mid = match_id(sid, a, b, task.id, i)
            ha, hb = (next(p for p in players if p.id == x) for x in (a, b))
            if self.pool.takes(players, ha, hb):  # bottom-decile pair: played in a provider batch (issue 16)
                self.pool.queue(task, i, mid, ha, hb, self._pairwise_spec(task, ha, hb, i))
                match_ids.append(mid)
                continue
            mode = select_mode(ha, hb, self._pairing())
            winner, rationale, transcript = await self._compare(task, mode, ha, hb, i)
            row = self.record.matches.apply(mid, a, b, mode=mode, winner=winner, rule=self._rule(),
                                            rationale=rationale[:6000], transcript=transcript, task_id=task.id)
            match_ids.append(mid)
            if row:
                played.append({"id": mid, "mode": mode, "bucket": pair.bucket, "winner": row.winner,
                               "valid": row.verdict_valid})
                self.record.logs.event("match_complete", {"id": mid, "mode": mode, "hyp_a": a, "hyp_b": b,
                                                          "winner": row.winner, "elo_applied": row.verdict_valid},
                                       agent=self.name)
        if not match_ids:
            return TaskResult("nothing_to_do", detail={"reason": "no pair left to play (fewer than two players, or"
                                                                 " every pair at the rematch cap)"})
        return TaskResult("tournament_match_complete", match_ids=match_ids, detail={"matches": played})

    async def _compare(self, task: Task, mode: str, a: Hypothesis, b: Hypothesis,
                       index: int) -> tuple[str | None, str, list[dict[str, Any]]]:
        """Run one comparison; returns ``(winner id or None, rationale, transcript)``."""
        base = self._prompt_inputs(a, b)
        route = self.deps.router.route(self.name, mode)
        if mode == "pairwise":
            text = (await self.deps.llm.complete(self._pairwise_spec(task, a, b, index))).text
            transcript = [{"speaker": "judge", "text": text}]
        else:
            text, transcript = await self._debate(task, base, index, route.constrained)
        verdict = parse_verdict(text)
        winner = None if verdict is None else (a.id if verdict == 1 else b.id)
        return winner, rationale_of(text), transcript

    def _prompt_inputs(self, a: Hypothesis, b: Hypothesis) -> dict[str, Any]:
        plan = self.deps.plan
        return {"objective": plan.objective, "preferences": plan.preferences, "idea_attributes": plan.idea_attributes,
                "hypothesis_1": self.quoted(a), "hypothesis_2": self.quoted(b),
                "review_1": self.latest_review(a), "review_2": self.latest_review(b)}

    def _pairwise_spec(self, task: Task, a: Hypothesis, b: Hypothesis, index: int) -> CallSpec:
        route = self.deps.router.route(self.name, "pairwise")
        return self.spec("pairwise", task, render("ranking.pairwise", **self._prompt_inputs(a, b)),
                         action=f"{task.action}/match{index}", feedback=False,
                         response_schema=VERDICT_SCHEMA if route.constrained else None)

    @functools.cached_property
    def pool(self) -> MatchBatchPool:
        """The batch pool of low-stakes matches (issue 16)."""
        return MatchBatchPool(self)

    async def _debate(self, task: Task, base: dict[str, Any], index: int,
                      constrained: bool) -> tuple[str, list[dict[str, Any]]]:
        dcfg = self.config.debate
        max_turns = min(dcfg.max_turns, self.deps.router.route(self.name, "debate").max_iterations)
        min_turns = min(dcfg.min_turns, max_turns)
        transcript: list[dict[str, Any]] = []
        text = ""
        for turn in range(1, max_turns + 1):
            quoted = [{"speaker": t["speaker"], "text": quote_untrusted(t["text"], f"debate-turn-{n + 1}")}
                      for n, t in enumerate(transcript)]
            user = render("ranking.debate", **base, transcript=quoted, turn=turn, min_turns=min_turns,
                          max_turns=max_turns)
            may_conclude = turn >= min_turns
            spec = self.spec("debate", task, user, action=f"{task.action}/match{index}/turn{turn}", feedback=False,
                             response_schema=VERDICT_SCHEMA if constrained and may_conclude else None)
            text = (await self.deps.llm.complete(spec)).text
            transcript.append({"speaker": f"Panel turn {turn}", "text": text})
            if may_conclude and parse_verdict(text) is not None:
                break
        return text, transcript
