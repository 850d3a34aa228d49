"""A session that holds no hypothesis yet (paused or killed early): ``cosci report``, ``cosci status``, ``cosci
result`` and ``cosci rate`` say so in one line with how to continue, instead of explaining an empty leaderboard
(fresh-user trial: the report printed the leaderboard's explanation, how to read its intervals and the judge's
statistics, all "n/a", above "No hypothesis is in the ranking")."""

from __future__ import annotations

from pathlib import Path

import pytest

from cosci.session.folder import SessionFolder
from tests.conftest import run_cli
from tests.store.rows import session_with


def _empty(data: Path, status: str) -> str:
    sid, _ = session_with(data, [])
    with SessionFolder(data, sid).store() as store:
        store.sessions.update(status=status, **({"stop_reason": "budget"} if status == "done" else {}))
    return sid


@pytest.mark.parametrize("status", ["paused", "running"])  # running with no process holding it: shown stopped
def test_report_of_a_session_with_no_hypothesis_is_one_line(tmp_path: Path, status: str,
                                                            capsys: pytest.CaptureFixture[str]) -> None:
    data = tmp_path / "data"
    sid = _empty(data, status)
    shown = "paused" if status == "paused" else "stopped"
    code, out, err = run_cli(capsys, "--data-dir", str(data), "report", sid)
    assert (code, err) == (0, "")
    assert out == f"# Session {sid} ({shown}): no hypothesis has been generated yet; `cosci resume {sid}` continues " \
                  "it\n", out


def test_report_of_an_ended_session_with_no_hypothesis_names_no_resume(tmp_path: Path,
                                                                        capsys: pytest.CaptureFixture[str]) -> None:
    data = tmp_path / "data"
    sid = _empty(data, "done")
    code, out, _ = run_cli(capsys, "--data-dir", str(data), "report", sid)
    assert code == 0 and out.splitlines()[0] == f"# Session {sid} (done): no hypothesis was generated (stop reason: " \
                                                "budget)", out
    assert "resume" not in out and "BT scores" not in out and "judge:" not in out


def test_status_of_a_session_with_no_hypothesis(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    data = tmp_path / "data"
    sid = _empty(data, "paused")
    code, out, _ = run_cli(capsys, "--data-dir", str(data), "status", sid)
    assert code == 0
    assert f"hypotheses   none: no hypothesis has been generated yet; `cosci resume {sid}` continues it\n" in out, out
    assert "BT scores" not in out and "judge:" not in out and "\ntasks        \n" not in out, out
    assert "\ntasks        none queued\n" in out, out


@pytest.mark.parametrize("command", [["result", "{sid}", "H-0123456789ab", "--outcome", "refuted"],
                                     ["rate", "{sid}", "H-0123456789ab", "H-0123456789ac", "--prefer", "a"]])
def test_a_hypothesis_named_in_a_session_with_none_says_none_yet(tmp_path: Path, command: list[str],
                                                                  capsys: pytest.CaptureFixture[str]) -> None:
    data = tmp_path / "data"
    sid = _empty(data, "paused")
    code, out, err = run_cli(capsys, "--data-dir", str(data), *(a.format(sid=sid) for a in command))
    assert code == 2 and out == ""
    assert err == f"cosci: no hypothesis 'H-0123456789ab' in session {sid}: no hypothesis has been generated yet; " \
                  f"`cosci resume {sid}` continues it\n", err
    with SessionFolder(data, sid).store() as store:  # nothing recorded
        assert not store.researcher.ratings() and not store.researcher.observations()


@pytest.mark.parametrize(("status", "line"), [("paused", "No hypothesis has been generated yet."),
                                              ("done", "No hypothesis was generated.")])
def test_the_markdown_export_has_no_empty_leaderboard(tmp_path: Path, status: str, line: str,
                                                      capsys: pytest.CaptureFixture[str]) -> None:
    data = tmp_path / "data"
    sid = _empty(data, status)
    code, out, _ = run_cli(capsys, "--data-dir", str(data), "export", sid, "--format", "md", "--out", "-")
    assert code == 0 and out == f"# Session {sid}\n\nNo overview yet ({status}).\n\n{line}\n", out


@pytest.mark.parametrize(("status", "line"), [
    ("paused", "No hypothesis has been generated yet; <code>cosci resume {sid}</code> continues it."),
    ("done", "No hypothesis was generated (stop reason: budget)."),
])
def test_the_report_page_has_no_empty_leaderboard(tmp_path: Path, status: str, line: str,
                                                  capsys: pytest.CaptureFixture[str]) -> None:
    """The page says what the text report says, in one paragraph where the leaderboard was (fresh-user trial: it
    showed an empty sortable table, "no match has changed a rating yet", an empty lineage and hypotheses list)."""
    data = tmp_path / "data"
    sid = _empty(data, status)
    out = tmp_path / "r.html"
    code, _, err = run_cli(capsys, "--data-dir", str(data), "report", sid, "--html", "--out", str(out))
    assert (code, err) == (0, "")
    page = out.read_text(encoding="utf-8")
    assert f'<p class="none-yet">{line.format(sid=sid)}</p>' in page, page
    for gone in ('id="leaderboard-table"', "no hypotheses yet", 'id="ratings"', 'id="lineage"', 'id="claims"',
                 'id="hypotheses"', 'href="#leaderboard"'):
        assert gone not in page, gone
    assert 'id="session"' in page and 'id="safety"' in page  # what the session did is still shown
    code, html, _ = run_cli(capsys, "--data-dir", str(data), "export", sid, "--format", "html", "--out", "-")
    assert code == 0 and line.format(sid=sid) in html  # the export's page is the same page


def test_the_report_page_names_the_models_stepped_down(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """As the text report's "Models stepped down" section, also with no hypothesis: a session stopped early is often
    stopped by them (design.md#routing)."""
    from cosci.domain import Call

    data = tmp_path / "data"
    sid = _empty(data, "paused")
    with SessionFolder(data, sid).store() as store:
        for _ in range(2):
            store.logs.add_call(Call(agent="generation", action="a", mode="literature", model="a/x", task_id=None,
                                     attempt=0, outcome="degraded", error="a/x -> a/y"))
    out = tmp_path / "r.html"
    code, _, _ = run_cli(capsys, "--data-dir", str(data), "report", sid, "--html", "--out", str(out))
    page = out.read_text(encoding="utf-8")
    assert code == 0 and '<h3 id="stepped-down">Models stepped down</h3>' in page, page
    assert "<li><code>a/x -&gt; a/y</code>: 2 calls</li>" in page, page
    code, text, _ = run_cli(capsys, "--data-dir", str(data), "report", sid)
    assert "# Models stepped down" in text and "- a/x -> a/y: 2 calls" in text, text
