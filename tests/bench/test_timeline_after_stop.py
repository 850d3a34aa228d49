"""``bench.timeline`` counts what the session still started after the Elo stop (bench/README.md, "Ninth pass"):
actions begun after it (finalisation's excepted), calls of the actions drained, and matches whose first call came
after it (a round's next match, not a debate's next turn)."""

from __future__ import annotations

from bench.timeline import _after_stop


def test_what_starts_after_the_stop_is_counted() -> None:
    tasks = {"T-a": {"action": "RunTournamentRound", "start": 1.0, "end": 4.0},
             "T-b": {"action": "RunTournamentRound", "start": 3.0, "end": 4.5},
             "T-o": {"action": "GenerateFinalResearchOverview", "start": 5.0, "end": 6.0}}
    calls = [{"t": 1.5, "task_id": "T-a", "action": "RunTournamentRound/match0/turn1"},
             {"t": 2.5, "task_id": "T-a", "action": "RunTournamentRound/match0/turn2"},  # a debate's next turn
             {"t": 2.6, "task_id": "T-a", "action": "RunTournamentRound/match1"},  # a match begun after the stop
             {"t": 3.1, "task_id": "T-b", "action": "RunTournamentRound/match0"},  # an action begun after it
             {"t": 5.1, "task_id": "T-o", "action": "GenerateFinalResearchOverview"}]
    assert _after_stop(calls, tasks, stop=2.0) == {"actions_started": 1, "calls_of_drained_actions": 2,
                                                   "matches_begun": 1}
