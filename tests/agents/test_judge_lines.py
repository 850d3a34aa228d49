"""What a session reports about its own judge (design.md#judge-memory): ``cosci status`` and the report's judge
section show the judge's rerun agreement and first-shown win rate, each with an interval named by its method,
beside what the ranking simulator assumes in the same units."""

from __future__ import annotations

import re

from cosci.report.data import judge_statistics
from cosci.session.runtime import SessionRuntime
from cosci.session.status import tournament_lines
from tests.tournament.shipped import ELO

STATEMENTS = ["Metformin inhibits complex I to deplete leukemic stem cells",
              "Itraconazole blocks SMO to sensitise relapsed blasts to cytarabine",
              "Disulfiram inhibits ALDH1A1 in NPM1-mutant AML stem cells"]


def _play(store, mid: str, first: str, second: str, winner: str) -> None:
    store.matches.apply(mid, first, second, mode="pairwise", winner=winner, rule=ELO, rationale="scripted",
                        transcript=[], task_id=None, first_shown=first,
                        verdicts=[{"first": first, "winner": winner}])


def test_status_and_report_show_rerun_agreement_and_first_shown_rate_beside_the_simulator(
        planned: SessionRuntime, add_player) -> None:
    a, b, c = (add_player(s) for s in STATEMENTS)
    store = planned.store
    # the scripted judge: (a, b) shown in that order four times, repeating its verdict three times then changing
    # it; (b, c) twice, the same verdict; (c, a) twice, changing it; the first-shown wins 7 of the 9 calls
    script = [(a, b, a), (a, b, a), (a, b, a), (a, b, b), (b, c, b), (b, c, b), (c, a, c), (c, a, a), (b, a, b)]
    for k, (first, second, winner) in enumerate(script):
        _play(store, f"M-{k}", first, second, winner)
    status = "\n".join(tournament_lines(store))
    view = judge_statistics(store)
    assert view is not None
    report = "\n".join(view["lines"])
    for text in (status, report):
        # 5 consecutive same-order reruns, 3 agreeing: (a, b) 2 of 3, (b, c) 1 of 1, (c, a) 0 of 1
        assert re.search(r"reruns of an ordered pair agree 60 % \(95 % Wilson CI \d+–\d+ %; 3 of 5;", text), text
        assert "judge with memory: reruns of an even pair agree 85–88 %" in text
        assert "independent judge: 40–50 %" in text
        assert re.search(r"first-shown wins 78 % \(95 % Wilson CI \d+–\d+ %, nominal for independent calls\) of "
                         r"9 valid calls", text), text
        assert "first-shown wins 57 % of even pairs), sd 0.5 across pairs (33–79 % at ±2 sd)" in text
    assert view["figures"]["reruns"] == 5 and view["figures"]["rerun_agreement"] == 0.6
