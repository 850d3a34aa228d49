"""The researcher's inputs in the corners, through the CLI on stopped fake sessions: a quarantined hypothesis takes
no result or rating until released and never becomes a project direction; a later rating of a pair replaces the
earlier; `cosci rate --withdraw` / `cosci result --withdraw` restore what the input changed; "rejected" means the
rejected state only (design.md#researcher-ratings, design.md#experimental-results, design.md#projects)."""

from __future__ import annotations

import asyncio
import re
import sqlite3
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest

from cosci.llm.fake.provider import FakeBackend
from cosci.records import RecordReview
from cosci.store import STORE_FILE, SessionStore
from cosci.store.project import ProjectStore, project_path
from tests.conftest import FinishedCopy, make_config, run_cli
from tests.session.test_researcher import run_plain


def _cli(capsys: pytest.CaptureFixture[str], data: Path, *args: str) -> tuple[int, str, str]:
    code, out, err = run_cli(capsys, "--data-dir", str(data), *args)
    return code, out, "".join(line for line in err.splitlines(keepends=True) if "LiteLLM" not in line)


def _store(data: Path, sid: str) -> SessionStore:
    return SessionStore.open(data / "sessions" / sid / STORE_FILE, sid)


def _one_line(code: int, out: str, err: str, *said: str) -> None:
    assert code == 2 and not out and err.count("\n") == 1, (code, out, err)
    assert all(s in err for s in said), err


def _new_id(out: str, prefix: str) -> str:
    found = re.search(rf"\b({prefix}-[0-9a-f]+)\b", out)
    assert found, out
    return found.group(1)


def test_a_quarantined_hypothesis_takes_no_input_until_released_and_is_never_a_direction(
        tmp_path: Path, fake: FakeBackend, capsys: pytest.CaptureFixture[str]) -> None:
    config = make_config(tmp_path / "data", "session.project=lab")
    data = config.paths.data_dir
    sid = asyncio.run(run_plain(config, finish=False))
    store = _store(data, sid)
    q, other = [h.id for h in store.hypotheses.ranked()[:2]]
    held = store.hypotheses.get(q)
    assert held is not None
    secret = [held.title, held.statement]
    # a rejecting review before the quarantine: before this fix, a demoted copy quoted its text into the project
    store.hypotheses.add_review(q, RecordReview(verdict="already_explained", evidence=[], notes="published"),
                                task_id="T-test")
    store.hypotheses.set_state(q, "quarantined")
    store.close()
    for args in (["result", sid, q, "--outcome", "refuted", "--notes", "no effect"],
                 ["result", "lab", q, "--outcome", "supported"],
                 ["rate", sid, q, "--score", "2"],
                 ["rate", sid, other, q, "--prefer", "b"],
                 ["feedback", sid, "--kind", "rejection", "--hypothesis", q]):
        _one_line(*_cli(capsys, data, *args), f"{q} is quarantined by safety screening", f"`cosci release {sid} {q}")
    store = _store(data, sid)
    assert store.hypotheses.get(q).state == "quarantined"  # type: ignore[union-attr]
    assert not store.researcher.ratings(withdrawn=True) and not store.researcher.observations(withdrawn=True)
    assert not store.logs.feedback(source="human")
    store.close()
    code, _, err = _cli(capsys, data, "rate", sid, other, "--score", "4")  # a sync of the project
    assert code == 0, err
    project = ProjectStore.open(data, "lab")
    directions = [*project.rejected(), *project.demoted()]
    project.close()
    assert q not in [d.hypothesis_id for d in directions]
    dump = "\n".join(sqlite3.connect(project_path(data, "lab")).iterdump())
    assert q in dump and not any(text in dump for text in secret)  # the copy holds no text of it
    from cosci.agents.project_context import demoted_directions_block, rejected_directions_block

    later = SimpleNamespace(session_id="s-later")  # what a later session's generation prompt is given
    said = rejected_directions_block(config, later) + demoted_directions_block(config, later)  # type: ignore[arg-type]
    assert not any(text in said for text in secret)
    code, out, err = _cli(capsys, data, "release", sid, q, "--why", "a false positive")
    assert code == 0, err
    code, out, err = _cli(capsys, data, "result", sid, q, "--outcome", "inconclusive")
    assert code == 0 and "result O-" in out, err  # released: it takes results again


def test_a_repeated_rating_weighs_as_one_and_a_withdrawn_one_gives_the_earlier_back(
        finished_copy: FinishedCopy, tmp_path: Path, fake: FakeBackend, capsys: pytest.CaptureFixture[str]) -> None:
    config = make_config(tmp_path / "data")
    data, sid = config.paths.data_dir, finished_copy(config.paths.data_dir)
    store = _store(data, sid)
    a, b = [h.id for h in store.hypotheses.ranked()[:2]]
    weight = config.ranking.researcher_weight
    store.close()

    def rate(*args: str) -> tuple[str, dict[str, Any], list[tuple[str, str, float]]]:
        code, out, err = _cli(capsys, data, "rate", *args)
        assert code == 0, err
        store = _store(data, sid)
        try:
            return out, store.matches.bt(), store.researcher.verdicts(weight)
        finally:
            store.close()

    out, once, verdicts = rate(sid, a, b, "--prefer", "a")
    first = _new_id(out, "RR")
    assert verdicts == [(a, b, 1.0)] * weight
    out, twice, verdicts = rate(sid, a, b, "--prefer", "a", "--why", "sure")
    assert twice == once and verdicts == [(a, b, 1.0)] * weight  # five agreeing ratings would weigh 20 before
    second = _new_id(out, "RR")
    assert f"replaces your earlier rating {first} of the pair in the tournament's Bradley–Terry fit" in out, out
    out, reversed_, verdicts = rate(sid, b, a, "--prefer", "a")  # b over a: the latest replaces, no cancellation
    latest = _new_id(out, "RR")
    assert verdicts == [(b, a, 1.0)] * weight and reversed_[b][0] > once[b][0]
    assert f"replaces your earlier rating {second} of the pair" in out, out
    out, back, verdicts = rate("--withdraw", latest)  # no session named: the one holding it
    assert f"{sid}: rating {latest} withdrawn" in out and "counts again" in out, out
    assert back == once and verdicts == [(a, b, 1.0)] * weight
    _one_line(*_cli(capsys, data, "rate", sid, "--withdraw", latest), f"rating {latest}", "withdrawn already")
    _one_line(*_cli(capsys, data, "rate", "--withdraw", "RR-0000000000000000"), "no rating 'RR-0000000000000000'")
    _one_line(*_cli(capsys, data, "rate", "--withdraw", "O-0000"), "is a result id, not a rating id")
    _one_line(*_cli(capsys, data, "rate", sid, a, "--withdraw", first), "--withdraw takes only the rating id")
    store = _store(data, sid)
    assert len(store.researcher.ratings(withdrawn=True)) == 3 and len(store.researcher.ratings()) == 2
    assert [e["payload"]["id"] for e in store.logs.events("rating_withdrawn")] == [latest]
    with store.db.tx() as c:  # as if rated before the overview was written: the overview counted it
        c.execute("UPDATE researcher_ratings SET created_at=0 WHERE id=?", (first,))
    store.close()
    out, after, _ = rate(sid, "--withdraw", first)  # replaced by the second: it counted in no fit
    assert after == once and "counts again" not in out, out
    code, out, _ = _cli(capsys, data, "report", sid)
    assert code == 0 and "1 withdrawal)" in out, out  # the overview's note names what it has not seen


def _state(data: Path, sid: str, hid: str) -> str:
    store = _store(data, sid)
    try:
        return store.hypotheses.get(hid).state  # type: ignore[union-attr]
    finally:
        store.close()


def test_a_withdrawn_result_restores_the_state_it_changed(
        finished_copy: FinishedCopy, tmp_path: Path, fake: FakeBackend, capsys: pytest.CaptureFixture[str]) -> None:
    config = make_config(tmp_path / "data")
    data, sid = config.paths.data_dir, finished_copy(config.paths.data_dir)
    store = _store(data, sid)
    h = store.hypotheses.ranked()[0].id
    store.close()

    def result(*args: str) -> str:
        code, out, err = _cli(capsys, data, "result", *args)
        assert code == 0, err
        return out

    refuted = _new_id(result(sid, h, "--outcome", "refuted"), "O")
    assert _state(data, sid, h) == "rejected"
    out = result("--withdraw", refuted)
    assert f"{h} is in_tournament again" in out, out
    store = _store(data, sid)
    assert store.hypotheses.get(h).state == "in_tournament" and h in store.matches.bt()  # type: ignore[union-attr]
    assert not store.researcher.observations() and store.researcher.observations(withdrawn=True)[0].id == refuted
    [event] = store.logs.events("result_withdrawn")
    assert event["payload"]["state_before"] == "rejected" and event["payload"]["state"] == "in_tournament"
    from cosci.store.standing import standing

    ranked = [e.id for e in standing(store).ranked]
    store.close()
    html = (data / "sessions" / sid / "final" / "report.html").read_text(encoding="utf-8")
    table = html[html.index('id="leaderboard-table"'):html.index("</table>", html.index('id="leaderboard-table"'))]
    assert h in ranked and re.findall(r'<tr data-id="(H-[0-9a-f]+)"', table) == ranked  # the page refreshed
    code, status, _ = _cli(capsys, data, "status", sid)
    assert code == 0 and "0 experimental results; 1 withdrawn, kept in the record" in status, status
    _one_line(*_cli(capsys, data, "result", sid, "--withdraw", refuted), f"result {refuted}", "withdrawn already")
    _one_line(*_cli(capsys, data, "result", "--withdraw", "O-00000000"), "no result 'O-00000000'")
    # pinned by a supported result, then refuted: each withdrawal undoes its own move, in either order
    supported = _new_id(result(sid, h, "--outcome", "supported"), "O")
    assert _state(data, sid, h) == "pinned"
    refuted = _new_id(result(sid, h, "--outcome", "refuted"), "O")
    assert _state(data, sid, h) == "rejected"
    assert "stays rejected" in result(sid, "--withdraw", supported)
    assert _state(data, sid, h) == "rejected"
    result(sid, "--withdraw", refuted)
    assert _state(data, sid, h) == "in_tournament"  # not pinned: the supported result is withdrawn too
    # two refuting results: withdrawing one leaves the other's rejection
    one = _new_id(result(sid, h, "--outcome", "refuted"), "O")
    two = _new_id(result(sid, h, "--outcome", "refuted"), "O")
    assert f"result {two} is refuted too" in result(sid, "--withdraw", one)
    result(sid, "--withdraw", two)
    assert _state(data, sid, h) == "in_tournament"


def test_rejected_means_the_rejected_state_in_status_and_project(
        finished_copy: FinishedCopy, tmp_path: Path, fake: FakeBackend, capsys: pytest.CaptureFixture[str]) -> None:
    """A hypothesis whose latest review is already_explained stays in the tournament (it may be in the BT top 5):
    it is a demoted direction, never a rejected one; the project's rejected directions are what `cosci status`
    counts as rejected."""
    config = make_config(tmp_path / "data", "session.project=lab")
    data, sid = config.paths.data_dir, finished_copy(config.paths.data_dir, "session.project=lab")
    store = _store(data, sid)
    ranked = [h.id for h in store.hypotheses.ranked()]
    top, refuted = ranked[0], ranked[-1]
    store.hypotheses.add_review(top, RecordReview(verdict="already_explained", evidence=[], notes="published"),
                                task_id="T-test")
    store.close()
    code, _, err = _cli(capsys, data, "result", sid, refuted, "--outcome", "refuted")
    assert code == 0, err
    code, status, _ = _cli(capsys, data, "status", sid)
    [top5] = [line for line in status.splitlines() if "BT top 5:" in line]
    rejected = re.search(r"(\d+) rejected", status)
    assert code == 0 and top in top5 and rejected, status
    code, shown, _ = _cli(capsys, data, "project", "show", "lab")
    lines = shown.splitlines()
    section = lines[lines.index("rejected directions:") + 1:]
    listed = [line.split()[0].strip("[]") for line in section[:section.index("")]]
    assert listed == [refuted] and int(rejected.group(1)) == len(listed), shown
    assert not set(listed) & set(re.findall(r"H-[0-9a-f]{12}", top5))  # nothing in the top 5 and rejected at once
    section = lines[next(i for i, line in enumerate(lines) if line.startswith("demoted directions")) + 1:]
    demoted = {line.split()[0].strip("[]"): line.split()[2] for line in section[:section.index("")]}
    assert demoted.get(top) == "already_explained", shown  # in the top 5 and demoted: two words, two meanings
