"""Terminal text helpers (cosci/text.py) and the summary's paste-able lines."""

from __future__ import annotations

import shlex

import pytest

from cosci.session.summary import SessionSummary
from cosci.text import dollars


@pytest.mark.parametrize(("amount", "shown"), [
    (0, "0.00"), (25, "25.00"), (0.01, "0.01"), (123.456, "123.46"),
    (0.0056, "0.0056"), (0.001, "0.001"), (0.0001, "0.0001"),
    (1e-9, "0.000000001"),  # fresh user: ".2g" printed "1e-09"
])
def test_dollars_are_fixed_point_with_two_significant_figures_under_a_cent(amount: float, shown: str) -> None:
    assert dollars(amount) == shown


def test_the_mlflow_line_pastes_into_a_shell_when_the_data_folder_has_spaces(tmp_path) -> None:  # type: ignore[no-untyped-def]
    uri = f"sqlite:///{tmp_path}/my data/dönnées ü/mlflow.db"
    summary = SessionSummary(session_id="s-1", stop_reason="done", spent_usd=0.0, tokens=0, hypotheses=0,
                             matches=0, top_elo=1200.0, elapsed_seconds=1.0, overview_path="o.md",
                             store_path="s.sqlite", mlflow_run_id="r1", tracking_uri=uri)
    (line,) = [x for x in summary.lines() if "mlflow ui" in x]
    assert shlex.split(line)[-1] == uri


@pytest.mark.parametrize(("text", "named"), [
    ("Suggest drugs \u202efor AML\u202c repurposing", "(U+202E RIGHT-TO-LEFT OVERRIDE) at character 15, and 1 more"),
    ("\u2067AML\u2069 drugs", "(U+2067 RIGHT-TO-LEFT ISOLATE) at character 1, and 1 more"),
    ("drugs for AML \u202a", "(U+202A LEFT-TO-RIGHT EMBEDDING) at character 15;"),
])
def test_a_bidirectional_control_character_is_named_with_its_position(text: str, named: str) -> None:
    """Fresh-user trial: `--goal $'Suggest drugs \\u202efor AML\\u202c repurposing'` was stored as typed, so the goal
    showed reversed in reports, and the screen read a text the researcher did not see (design.md#cli)."""
    from cosci.text import unreadable

    why = unreadable("--goal", text)
    assert why is not None and why.startswith("--goal holds a bidirectional control character ") and named in why, why
    assert "\n" not in why and not any(0x202A <= ord(c) <= 0x202E or 0x2066 <= ord(c) <= 0x2069 for c in why)
    # right-to-left marks and right-to-left letters are text: an Arabic or Hebrew goal is typed without controls
    assert unreadable("--goal", "اقترح أدوية معتمدة لإعادة استخدامها \u200f في ابيضاض الدم النقوي الحاد") is None


def test_a_bidirectional_control_is_displayed_escaped_never_applied() -> None:
    """A stored goal holding U+202E (from before such goals were refused) is shown in the order it is read:
    ``cosci list``, ``status``, the report page and every ``cosci:`` line escape it (design.md#cli)."""
    from cosci.text import bidi_control, bidi_escaped, escaped

    text = "drugs \u202efor AML\u2069 \u200fkept\x1b"
    assert bidi_escaped(text) == "drugs \\u202efor AML\\u2069 \u200fkept\x1b"  # a right-to-left mark is kept
    assert escaped(text) == "drugs \\u202efor AML\\u2069 \u200fkept\\x1b"
    assert bidi_control(text) == "(U+202E RIGHT-TO-LEFT OVERRIDE) at character 7, and 1 more"
    assert bidi_control("no control \u200f") is None
    # break-it pass: `cosci status $'\xff'` read "no session '\udcff'"; the byte typed is shown
    assert escaped("no session '\udcff'") == "no session '\\xff'" and escaped("x\ud800") == "x\ud800"
