"""`cosci rate`, `cosci result` and projects on sessions run in-process on the scripted fake (no Prefect)."""

from __future__ import annotations

import asyncio
import itertools
from pathlib import Path

import pytest

from cosci.cli import main
from cosci.config.schema import CosciConfig
from cosci.llm.fake.provider import FakeBackend
from cosci.session.runtime import SessionRuntime
from cosci.store import STORE_FILE, SessionStore
from cosci.store.project import ProjectStore
from cosci.supervisor.loop import Supervisor
from tests.conftest import make_config


async def run_plain(config: CosciConfig, finish: bool = True) -> str:
    """A whole session in-process (``finish=False``: stopped before finalisation, as a killed process leaves it)."""
    rt = await SessionRuntime.open(config, models_choice="fake")
    sup = Supervisor(config, rt.store, rt.budget, rt.execute)
    reason = await sup.run()
    if finish:
        rt.write_overview(await sup.finalize(reason))
    sid = rt.session_id
    await rt.close()
    return sid


def _cli(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str, str]:
    try:
        main(list(args))
        code = 0
    except SystemExit as exc:
        code = int(exc.code or 0)
    out = capsys.readouterr()  # LiteLLM's worker says once per new event loop of this test process that it moved
    return code, out.out, "".join(line for line in out.err.splitlines(keepends=True) if "LiteLLM" not in line)


def _store(data: Path, sid: str) -> SessionStore:
    return SessionStore.open(data / "sessions" / sid / STORE_FILE, sid)


def test_a_preference_moves_the_bradley_terry_order_of_two_close_hypotheses(
        config: CosciConfig, fake: FakeBackend, capsys: pytest.CaptureFixture[str]) -> None:
    data, sid = config.paths.data_dir, asyncio.run(run_plain(config))
    store = _store(data, sid)
    bt = store.matches.bt()
    order = sorted(bt, key=lambda h: -bt[h][0])
    gaps = [(bt[a][0] - bt[b][0], a, b) for a, b in itertools.pairwise(order)]
    _, upper, lower = min(gaps)  # the closest adjacent pair
    store.close()
    code, out, err = _cli(capsys, "--data-dir", str(data), "rate", sid, lower, upper, "--prefer", "a",
                          "--why", "the mechanism of the other is known to fail in vivo")
    assert code == 0, err
    store = _store(data, sid)
    after = store.matches.bt()
    assert after[lower][0] > after[upper][0]  # the rated direction
    assert [r.prefer for r in store.researcher.ratings()] == ["a"]
    from cosci.agents.researcher_context import agreement, agreement_line

    rows = agreement(store, 1.0)
    assert [a.agrees for a in rows] == [False]  # the judge alone still ranks `upper` first
    assert "0 of 1" in agreement_line(rows)
    store.close()
    code, out, _ = _cli(capsys, "--data-dir", str(data), "rate", sid, upper, "--score", "2")
    assert code == 0
    code, out, _ = _cli(capsys, "--data-dir", str(data), "report", sid)
    assert "Researcher ratings" in out and "0 of 1 preferences agree" in out
    code, out, _ = _cli(capsys, "--data-dir", str(data), "report", sid, "--html")
    page = Path(out.strip()).read_text(encoding="utf-8")
    assert code == 0 and 'id="researcher"' in page and "0 of 1 preferences agree" in page


BAD = [
    (["rate", "{sid}", "H-000000000000", "{h}", "--prefer", "a"], "no hypothesis H-000000000000"),
    (["rate", "{sid}", "{h}", "{h}", "--prefer", "b"], "against itself"),
    (["rate", "{sid}", "{h}", "--score", "7"], "--score must be"),
    (["rate", "{sid}", "{h}", "--prefer", "a"], "--score 1-5"),
    (["result", "{sid}", "{h}", "--outcome", "refuted", "--measure", "IC50"], "is not NAME=VALUE"),
    (["result", "{sid}", "{h}", "--outcome", "refuted", "--measure", "x=nan"], "not a finite number"),
    (["result", "{sid}", "{h}", "--outcome", "refuted", "--measure", "x=1", "--measure", "x=2"], "given twice"),
    (["result", "{sid}", "H-000000000000", "--outcome", "supported"], "no hypothesis"),
    (["result", "{sid}", "{h}", "--outcome", "supported", "--file", "/no/such/file"], "no such file"),
    (["result", "nope", "{h}", "--outcome", "supported"], "no session 'nope'"),
    (["project", "show", "nope"], "no project 'nope'"),
]


def test_bad_input_is_one_line_and_writes_nothing(config: CosciConfig, fake: FakeBackend,
                                                  capsys: pytest.CaptureFixture[str]) -> None:
    data, sid = config.paths.data_dir, asyncio.run(run_plain(config))
    store = _store(data, sid)
    h = store.hypotheses.ranked()[0].id
    store.close()
    for args, message in BAD:
        code, _, err = _cli(capsys, "--data-dir", str(data), *[a.format(sid=sid, h=h) for a in args])
        assert code == 2 and err.count("\n") == 1 and message in err, (args, err)
    store = _store(data, sid)
    assert not store.researcher.ratings() and not store.researcher.observations()
    assert store.hypotheses.get(h).state == "in_tournament"  # type: ignore[union-attr]
    store.close()


def test_a_refuted_result_leaves_the_tournament_and_resume_reviews_its_relatives(
        tmp_path: Path, fake: FakeBackend, capsys: pytest.CaptureFixture[str]) -> None:
    config = make_config(tmp_path / "data", "session.project=lab")
    data = config.paths.data_dir
    sid = asyncio.run(run_plain(config, finish=False))  # stopped, not done: `cosci resume` continues it
    store = _store(data, sid)
    ranked = [h.id for h in store.hypotheses.ranked()]
    tested, relatives = ranked[0], ranked[1:3]
    store.hypotheses.set_clusters({hid: 7 for hid in [tested, *relatives]})  # one cluster
    from cosci.supervisor.rules import relatives as relatives_of

    relatives = relatives_of(store, tested, config.reflection.result_relatives)  # the cluster, then descendants
    assert len(relatives) >= 2 and set(ranked[1:3]) == set(relatives[:2])
    store.close()
    code, out, err = _cli(capsys, "--data-dir", str(data), "result", "lab", tested, "--outcome", "refuted",
                          "--measure", "IC50_uM=3.2", "--measure", "assay=HTRF", "--notes", "no effect at 10 uM")
    assert code == 0, err
    assert f"{len(relatives)} queued for `cosci resume" in out
    store = _store(data, sid)
    assert store.hypotheses.get(tested).state == "rejected"  # type: ignore[union-attr]
    assert tested not in [h.id for h in store.hypotheses.ranked()]
    assert store.researcher.observations()[0].measures == {"IC50_uM": 3.2, "assay": "HTRF"}
    store.close()
    project = ProjectStore.open(data, "lab")
    assert (tested, "refuted") in [(d.hypothesis_id, d.reason) for d in project.rejected()]  # reviews may add more
    project.close()
    code, _, err = _cli(capsys, "--data-dir", str(data), "result", "other", tested, "--outcome", "refuted")
    assert code == 2 and "no session 'other'" in err
    fake.calls.clear()

    async def resume() -> str:
        rt = await SessionRuntime.open(config, session_id=sid, models_choice="fake")
        sup = Supervisor(config, rt.store, rt.budget, rt.execute)
        overview = await sup.finalize(await sup.run())
        rt.write_overview(overview)
        await rt.close()
        return overview

    overview = asyncio.run(resume())
    store = _store(data, sid)
    oid = store.researcher.observations()[0].id
    reviewed = {r.hypothesis_id for r in store.hypotheses.reviews()
                if r.mode == "observation" and store.tasks.by_key(f"reflection::{r.hypothesis_id}::result::{oid}")}
    assert reviewed == set(relatives)
    prompts = [str(c.messages) for c in fake.calls_for("reflection")]
    assert any("IC50_uM = 3.2" in p and "experimental-result" in p for p in prompts)
    assert "# Researcher ratings and experimental results" in overview and "IC50_uM = 3.2" in overview
    later = [str(c.messages) for c in fake.calls if c.agent in ("generation", "evolution") and c.mode != "grounding"]
    assert all("## Experimental results" in p for p in later) and later
    store.close()


def test_a_second_session_of_a_project_starts_from_the_first(
        tmp_path: Path, fake: FakeBackend, capsys: pytest.CaptureFixture[str]) -> None:
    data = tmp_path / "data"
    first = asyncio.run(run_plain(make_config(data, "session.project=p1")))
    store = _store(data, first)
    top = [h.id for h in store.hypotheses.ranked()]
    store.close()
    code, _, err = _cli(capsys, "--data-dir", str(data), "feedback", first, "--kind", "rejection",
                        "--hypothesis", top[-1])
    assert code == 2  # a done session takes no feedback; a result does
    code, _, err = _cli(capsys, "--data-dir", str(data), "result", first, top[-1], "--outcome", "refuted",
                        "--notes", "the knockout showed no change")
    assert code == 0, err
    fake.calls.clear()
    second = asyncio.run(run_plain(make_config(data, "session.project=p1", "run.seed=1")))
    store = _store(data, second)
    entrants = store.researcher.entrants()
    assert {o["origin_session"] for o in entrants.values()} == {first} and len(entrants) == 3
    project = ProjectStore.open(data, "p1")
    best = [h.hypothesis_id for h in project.best(3, exclude_session=second)]  # top Elo, not a rejected direction
    project.close()
    assert {o["origin_hypothesis"] for o in entrants.values()} == set(best) and set(best) <= set(top[:-1])
    assert all(store.hypotheses.get(h).state != "draft" for h in entrants)  # type: ignore[union-attr]
    gen = [str(c.messages) for c in fake.calls_for("generation") if c.mode != "grounding"]  # no feedback there
    project = ProjectStore.open(data, "p1")
    rejected_title = project.rejected(exclude_session=second)[0].title  # the first session's: what it was shown
    project.close()
    assert gen and all("Rejected directions from earlier sessions" in p and rejected_title in p for p in gen)
    overview = store.sessions.get().final_overview or ""
    assert "# Since the last session" in overview and f"Compared with session {first}" in overview
    store.close()
    code, out, _ = _cli(capsys, "--data-dir", str(data), "project", "show", "p1")
    assert code == 0 and first in out and second in out and "refuted" in out
    code, out, _ = _cli(capsys, "--data-dir", str(data), "project", "list")
    assert code == 0 and out.startswith("p1  2 sessions")


def test_two_sessions_of_one_project_run_at_once(tmp_path: Path, fake: FakeBackend) -> None:
    data = tmp_path / "data"

    async def both() -> list[str]:
        return list(await asyncio.gather(run_plain(make_config(data, "session.project=twin")),
                                         run_plain(make_config(data, "session.project=twin", "run.seed=1"))))

    sids = asyncio.run(both())
    project = ProjectStore.open(data, "twin")
    assert sorted(s["session_id"] for s in project.sessions()) == sorted(sids)
    assert all(s["status"] == "done" for s in project.sessions())
    assert {h.session_id for h in project.hypotheses()} == set(sids)
    project.close()


def test_a_hypothesis_near_a_rejected_direction_is_flagged() -> None:
    import numpy as np

    from cosci.agents.project_context import nearest_rejected
    from cosci.store.project import Direction

    dirs = [Direction("s-1", "H-a", "A", "a", "refuted", "no effect"),
            Direction("s-1", "H-b", "B", "b", "rejected", "")]
    vectors = np.eye(2, 3, dtype=np.float32)
    close = np.array([0.1, 0.995, 0.0], np.float32)
    hit = nearest_rejected(close / np.linalg.norm(close), dirs, vectors, 0.92)
    assert hit is not None and hit[0].hypothesis_id == "H-b" and hit[1] > 0.99
    assert nearest_rejected(np.array([0.0, 0.0, 1.0], np.float32), dirs, vectors, 0.92) is None
    assert nearest_rejected(close, [], np.zeros((0, 3), np.float32), 0.92) is None
