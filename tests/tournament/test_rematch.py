"""The rematch cap's one rule (cosci/tournament/rematch.py): played plus waiting-in-a-batch matches reach the cap."""

from __future__ import annotations

from cosci.tournament.rematch import capped_pairs, open_pairs, pair_key, reached


def test_a_pair_is_the_same_in_either_order() -> None:
    assert pair_key("h2", "h1") == pair_key("h1", "h2") == ("h1", "h2")


def test_a_match_waiting_in_a_batch_counts_as_played() -> None:
    played = {("a", "b"): 2, ("a", "c"): 1, ("b", "c"): 3}
    assert capped_pairs(played, [], 3) == {("b", "c")}
    assert capped_pairs(played, [("b", "a")], 3) == {("a", "b"), ("b", "c")}  # 2 played + 1 waiting
    assert capped_pairs(played, [("c", "a")], 3) == {("b", "c")}  # 1 + 1 is below the cap
    assert capped_pairs({}, [("x", "y"), ("y", "x")], 2) == {("x", "y")}  # never played, two waiting


def test_a_caller_keeping_its_capped_pairs_current_gets_the_same_answer() -> None:
    played = {("a", "b"): 2, ("b", "c"): 3}
    known = {p for p, n in played.items() if reached(n, 3)}
    assert capped_pairs(played, [("a", "b")], 3, known=known) == capped_pairs(played, [("a", "b")], 3)


def test_open_pairs_counts_only_pairs_of_the_players() -> None:
    full = {("a", "b"), ("c", "z")}  # z left the tournament
    assert open_pairs({"a", "b", "c"}, full) == 2  # of 3 pairs, a-b is at the cap
