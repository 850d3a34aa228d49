"""Eval metrics: inspiration recall on a hand-made session store, bootstrap intervals, best-of-k match."""

from __future__ import annotations

import math
from pathlib import Path

import pytest

from cosci.eval.metrics import bootstrap_ci, cited_ids, inspiration_recall, match_metrics, recall
from cosci.eval.moose_chem import URL_PREFIX
from cosci.eval.runner import ranked_hypotheses
from cosci.ids import hypothesis_id
from cosci.records import Citation, RecordHypothesis
from cosci.store import SessionStore
from tests.contract import CONTRACT

SID = "s-eval"
A, B, C, D = "mc-aaaaaaaaaa", "mc-bbbbbbbbbb", "mc-cccccccccc", "mc-dddddddddd"


def _record(tmp_path: Path) -> Path:
    """A record whose leaderboard is H1 (Elo 1300, cites A), H2 (1250, cites D and a non-corpus URL),
    H3 (1200, cites B twice), H4 (1100, rejected, cites C)."""
    path = tmp_path / "store.sqlite"
    store = SessionStore.open(path, SID)
    store.sessions.create(goal="Design a thermocell.", config_snapshot={}, overrides=[], models_choice="fake",
                        budget_usd=1.0, budget_tokens=None, wall_clock_seconds=60.0)
    for name, elo, urls, state in (("H1", 1300.0, [A], "in_tournament"),
                                   ("H2", 1250.0, [D, "https://example.org/x"], "in_tournament"),
                                   ("H3", 1200.0, [B, B + "/"], "in_tournament"),
                                   ("H4", 1100.0, [C], "rejected")):
        cites = [Citation(url=u if u.startswith("https://example") else URL_PREFIX + u) for u in urls]
        h = RecordHypothesis(title=name, statement=f"statement {name}", mechanism="m", entities=[],
                             anticipated_outcomes="o", novelty_argument="n", **CONTRACT, citations=cites)
        hid = hypothesis_id(SID, "literature", h.statement)
        assert store.hypotheses.insert(hid, h, elo=elo, task_id=None)
        with store.db.tx() as c:
            c.execute("UPDATE hypotheses SET state=? WHERE id=?", (state, hid))
    store.close()
    return path


def test_inspiration_recall_on_a_hand_made_record(tmp_path: Path) -> None:
    ranked = ranked_hypotheses(_record(tmp_path), SID)
    assert [a.fields.title for a in ranked] == ["H1", "H2", "H3"]  # rejected H4 left out
    assert [(a.fields.mechanism, a.fields.anticipated_outcomes) for a in ranked] == [("m", "o")] * 3
    assert [a.cited for a in ranked] == [[A], [D], [B]]
    truth = [A, B, C]  # C is cited only by the rejected hypothesis
    got = inspiration_recall(truth, [a.cited for a in ranked])
    # hand-computed: any -> {A, B} of 3; top-1 -> {A}; top-3 -> {A, B}; top-5 -> {A, B}
    assert got == {"recall_any": pytest.approx(2 / 3), "recall_at_1": pytest.approx(1 / 3),
                   "recall_at_3": pytest.approx(2 / 3), "recall_at_5": pytest.approx(2 / 3)}


def test_recall_edge_cases() -> None:
    assert math.isnan(recall([], [[A]]))
    assert recall([A], []) == 0.0
    assert cited_ids([{"url": URL_PREFIX + A + "."}, {"url": "https://moose-chem.invalid/paper/zzz"}, {}]) == [A]


def test_bootstrap_of_a_constant_metric_has_zero_width() -> None:
    ci = bootstrap_ci({"i1": [0.1, 0.1, 0.1], "i2": [0.1], "i3": [0.1, 0.1]})
    assert ci.low == ci.mean == ci.high == 0.1
    assert ci.n == 6


def test_bootstrap_interval_covers_the_mean_and_is_reproducible() -> None:
    data = {"i1": [0.0, 1.0], "i2": [1.0, 1.0], "i3": [0.0, 0.5], "i4": [math.nan, 0.25]}
    ci = bootstrap_ci(data, seed=3)
    assert ci.n == 7  # the NaN is dropped
    assert ci.mean == pytest.approx((0 + 1 + 1 + 1 + 0 + 0.5 + 0.25) / 7)
    assert 0.0 <= ci.low < ci.mean < ci.high <= 1.0
    assert bootstrap_ci(data, seed=3) == ci
    empty = bootstrap_ci({"i1": [math.nan]})
    assert empty.n == 0 and math.isnan(empty.mean)


def test_match_metrics_best_of_k_and_rank() -> None:
    got = match_metrics([2, None, 4, 4, 1, 5])  # the 6th is beyond the top 5
    assert got["match_best_at_1"] == 2.0
    assert got["match_best_at_3"] == 4.0
    assert got["match_best_at_5"] == 4.0
    assert got["match_best_rank"] == 3.0  # first of the tied 4s
    assert got["judge_invalid"] == 1.0
    none = match_metrics([None, None])
    assert math.isnan(none["match_best_at_5"]) and math.isnan(none["match_best_rank"])
