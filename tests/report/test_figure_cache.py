"""The report's rating plots kept in the user cache by what they draw (design.md#startup): the same numbers give
the same SVG without drawing again, any moved number is drawn anew."""

from __future__ import annotations

from typing import Any

import pytest

from cosci.report import figures

TRAJECTORIES = {"H-a": [(1, 1216.0), (2, 1230.5)], "H-b": [(1, 1184.0), (2, 1169.5)]}
ROWS: list[dict[str, Any]] = [{"id": "H-a", "bt_score": 0.4, "bt_ci_low": -0.9, "bt_ci_high": 1.7, "elo": 1230.5},
                              {"id": "H-b", "bt_score": -0.4, "bt_ci_low": -1.7, "bt_ci_high": 0.9, "elo": 1169.5}]


@pytest.fixture
def drawn(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """The kinds of plot actually drawn (the cache is the test's own, tests/conftest.py)."""
    out: list[str] = []
    elo, bt = figures._draw_elo, figures._draw_bt

    def draw_elo(*args: Any) -> str:
        out.append("elo")
        return elo(*args)

    def draw_bt(*args: Any) -> str:
        out.append("bt")
        return bt(*args)

    monkeypatch.setattr(figures, "_draw_elo", draw_elo)
    monkeypatch.setattr(figures, "_draw_bt", draw_bt)
    return out


def test_the_same_numbers_are_read_not_drawn(drawn: list[str]) -> None:
    first_elo, first_bt = figures.elo_svg(TRAJECTORIES, 1200.0), figures.bt_svg(ROWS)
    assert first_elo.startswith("<svg") and first_bt.startswith("<svg")
    assert figures.elo_svg(dict(reversed(TRAJECTORIES.items())), 1200.0) == first_elo
    assert figures.bt_svg([{**r, "elo": 0.0} for r in ROWS]) == first_bt  # a field the plot does not show
    assert drawn == ["elo", "bt"]


def test_a_moved_number_is_drawn_anew(drawn: list[str]) -> None:
    figures.elo_svg(TRAJECTORIES, 1200.0)
    figures.bt_svg(ROWS)
    moved = [{**ROWS[0], "bt_ci_high": 1.8}, ROWS[1]]
    assert figures.bt_svg(moved) != figures.bt_svg(ROWS)
    figures.elo_svg({**TRAJECTORIES, "H-a": [(1, 1216.0), (2, 1231.0)]}, 1200.0)
    figures.elo_svg(TRAJECTORIES, 1000.0)
    assert drawn == ["elo", "bt", "bt", "elo", "elo"]
