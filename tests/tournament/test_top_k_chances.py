"""The batch pool's stakes (design.md#batches): each hypothesis's chance of the top k by the Bradley–Terry fit."""

from __future__ import annotations

from cosci.tournament.boundary import top_k_chances
from cosci.tournament.bt import fit_bt

IDS = ["H-a", "H-b", "H-c", "H-d", "H-e"]


def test_clear_leaders_are_near_one_clear_outsiders_near_zero_the_unplayed_even() -> None:
    # a and b beat c, d and e four times each; c, d and e never beat anyone
    verdicts = [(top, low, 1.0) for top in IDS[:2] for low in IDS[2:] for _ in range(4)]
    chances = top_k_chances(fit_bt(IDS, verdicts, 1.0), 2)
    assert chances["H-a"] > 0.9 and chances["H-b"] > 0.9
    assert all(chances[h] < 0.1 for h in IDS[2:])
    unplayed = top_k_chances(fit_bt(IDS, [], 1.0), 2)  # no verdict: nothing is known, nothing is low-stakes
    assert all(abs(p - 0.5) < 1e-9 for p in unplayed.values())


def test_with_at_most_k_hypotheses_everyone_is_in_the_top_k() -> None:
    assert top_k_chances(fit_bt(IDS[:2], [("H-a", "H-b", 1.0)] * 5, 1.0), 2) == {"H-a": 1.0, "H-b": 1.0}
