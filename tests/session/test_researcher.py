"""`cosci rate`, `cosci result` and projects on sessions run in-process on the scripted fake (no Prefect)."""

from __future__ import annotations

import asyncio
import itertools
import re
import time
from pathlib import Path

import pytest

from cosci.config.schema import CosciConfig
from cosci.domain import BT_INTERVAL_LABEL, Task, TaskResult
from cosci.llm.fake.provider import FakeBackend
from cosci.session.runtime import SessionRuntime
from cosci.store import STORE_FILE, SessionStore
from cosci.store.project import ProjectStore
from cosci.supervisor.loop import Supervisor
from tests.conftest import FinishedCopy, make_config, run_cli


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
    code, out, err = run_cli(capsys, *args)
    # LiteLLM's worker says once per new event loop of this test process that it moved
    return code, out, "".join(line for line in err.splitlines(keepends=True) if "LiteLLM" not in line)


def _store(data: Path, sid: str) -> SessionStore:
    return SessionStore.open(data / "sessions" / sid / STORE_FILE, sid)


def test_a_preference_moves_the_bradley_terry_order_of_two_close_hypotheses(
        finished_copy: FinishedCopy,
        config: CosciConfig, fake: FakeBackend, capsys: pytest.CaptureFixture[str]) -> None:
    from cosci.tournament.bt import fit_bt

    data, sid = config.paths.data_dir, finished_copy(config.paths.data_dir)
    store = _store(data, sid)
    # the order the agreement is judged against: the judge's verdicts alone (the stored fit may be a cadence fit of
    # fewer verdicts, with the position-bias term), so the closest pair is taken in it
    judged = fit_bt([h.id for h in store.hypotheses.ranked()], store.matches.verdicts(), 1.0)
    bt = {h: (float(t),) for h, t in zip(judged.ids, judged.theta, strict=True)}
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
    assert code == 0 and "does not enter the Bradley–Terry fit" in out  # a score is no verdict (fresh-user trial)
    code, out, _ = _cli(capsys, "--data-dir", str(data), "report", sid)
    assert "Researcher ratings" in out and "0 of 1 preference agree" in out
    code, out, _ = _cli(capsys, "--data-dir", str(data), "report", sid, "--html")
    page = Path(out.strip()).read_text(encoding="utf-8")
    assert code == 0 and 'id="researcher"' in page and "0 of 1 preference agree" in page


BAD = [
    (["rate", "{sid}", "H-000000000000", "{h}", "--prefer", "a"], "no hypothesis 'H-000000000000'"),
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


def test_bad_input_is_one_line_and_writes_nothing(
        finished_copy: FinishedCopy, config: CosciConfig, fake: FakeBackend,
        capsys: pytest.CaptureFixture[str]) -> None:
    data, sid = config.paths.data_dir, finished_copy(config.paths.data_dir)
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
    assert "measures: IC50_uM = 3.2, assay = 'HTRF' (text)" in out  # a text value is said, never silent
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
        finished_copy: FinishedCopy, tmp_path: Path, fake: FakeBackend, capsys: pytest.CaptureFixture[str]) -> None:
    data = tmp_path / "data"
    first = finished_copy(data, "session.project=lab")  # the project's first session, finished (a copy)
    store = _store(data, first)
    top = [h.id for h in store.hypotheses.ranked()]
    store.close()
    code, _, err = _cli(capsys, "--data-dir", str(data), "feedback", first, "--kind", "rejection",
                        "--hypothesis", top[-1])
    assert code == 2  # a done session takes no feedback; a result does
    code, out, err = _cli(capsys, "--data-dir", str(data), "result", first, top[-1], "--outcome", "refuted",
                          "--notes", "the knockout showed no change")
    assert code == 0, err
    # a done session does not resume: its project's next session reviews the relatives (README, "none queued" before)
    assert out.rstrip().endswith("observation reviews of its relatives: the session is done, so they reach project "
                                 "lab's next session"), out
    fake.calls.clear()
    # four hypotheses, not the tests' six: its entrants and a generated one (docs/development.md, test time)
    second = asyncio.run(run_plain(make_config(data, "session.project=lab", "run.seed=1", "run.max_hypotheses=4")))
    store = _store(data, second)
    entrants = store.researcher.entrants()
    project = ProjectStore.open(data, "lab")
    best = [h.hypothesis_id for h in project.best(3, exclude_session=second)]  # its standing, no rejected direction
    project.close()
    # as many entrants as the project's best gives: 3, or 2 when the first session ends with only two others in the
    # tournament beside the refuted one (retired, demoted or a copy of the same idea: it varies with the fake's timing)
    assert {o["origin_session"] for o in entrants.values()} == {first} and len(entrants) == len(best) >= 2
    assert {o["origin_hypothesis"] for o in entrants.values()} == set(best) and set(best) <= set(top[:-1])
    assert all(store.hypotheses.get(h).state != "draft" for h in entrants)  # type: ignore[union-attr]
    gen = [str(c.messages) for c in fake.calls_for("generation") if c.mode != "grounding"]  # no feedback there
    project = ProjectStore.open(data, "lab")
    rejected_title = project.rejected(exclude_session=second)[0].title  # the first session's: what it was shown
    project.close()
    assert gen and all("Rejected directions from earlier sessions" in p and rejected_title in p for p in gen)
    overview = store.sessions.get().final_overview or ""
    assert "# Since the last session" in overview and f"Compared with session {first}" in overview
    store.close()
    code, _, err = _cli(capsys, "--data-dir", str(data), "rate", second, top[0], "--score", "3")
    assert code == 2 and err.count("\n") == 1 and err.endswith(  # an id of the project's other session: named
        f"no hypothesis {top[0]!r} in session {second}; it is a hypothesis of session {first} of the same "
        "project\n"), err
    code, _, said = _cli(capsys, "--data-dir", str(data), "release", second, top[0], "--why", "a false positive")
    assert code == 2 and said == err, said  # `cosci release` names the project's other session as `cosci rate` does
    code, out, _ = _cli(capsys, "--data-dir", str(data), "project", "show", "lab")
    assert code == 0 and first in out and second in out and "refuted" in out
    code, out, _ = _cli(capsys, "--data-dir", str(data), "project", "list")
    assert code == 0 and out.startswith("lab  2 sessions")


@pytest.mark.slow
def test_two_sessions_of_one_project_run_at_once(prefect_api_url: str, tmp_path: Path) -> None:
    """Two ``python -m cosci.run`` processes of one project on one data folder, started together: each writes the
    project store from its own process (the store is locked per write, not per session). They share the worker's
    one Prefect server for subprocesses: with a server each on one home, the second waits for the first's to answer
    before it starts its own (``flows.server.first_start_lock``), and a fake session can end within that wait
    (issue 46)."""
    import os
    import subprocess
    import sys

    from tests.conftest import FAST
    from tests.flows.test_session_flow import SMALL

    data, root = tmp_path / "data", Path(__file__).resolve().parents[2]
    env = {**os.environ, "COSCI_DATA_DIR": str(data), "PYTHONPATH": str(root), "PREFECT_API_URL": prefect_api_url}
    # `python -m cosci.run` after a start barrier: the heavy imports (LiteLLM, the safety screen: tens of seconds on
    # a loaded machine) come first, so neither session is over before the other begins
    launch = ("import pathlib, runpy, sys, time\n"
              "import cosci.llm.gateway.adapter, cosci.run, cosci.safety.classifier, cosci.session.runtime\n"
              "barrier, me = pathlib.Path(sys.argv[1]), sys.argv[2]\n"
              "(barrier / me).touch()\n"
              "while len(list(barrier.iterdir())) < 2: time.sleep(0.05)\n"
              "sys.argv = [sys.modules['cosci.run'].__file__, *sys.argv[3:]]\n"
              "runpy.run_module('cosci.run', run_name='__main__', alter_sys=True)\n")
    barrier = tmp_path / "barrier"
    barrier.mkdir()
    # sessions of two hypotheses (SMALL): both write the project store, and they overlap (the barrier); the tests'
    # six added only time (docs/development.md, test time, seventh pass)
    args = [*FAST, f"paths.data_dir={data}", "session.project=twin", *SMALL]
    logs = [tmp_path / f"run{i}.log" for i in (0, 1)]
    procs = [subprocess.Popen([sys.executable, "-c", launch, str(barrier), str(i), *args, f"run.seed={i}"], env=env,
                              cwd=tmp_path, stdout=log.open("w"), stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL)
             for i, log in enumerate(logs)]
    try:
        codes = [p.wait(timeout=600) for p in procs]
    finally:
        for p in procs:
            if p.poll() is None:
                p.kill()
                p.wait()
    text = [log.read_text() for log in logs]
    assert codes == [0, 0], [t[-3000:] for t in text]
    assert not any("database is locked" in t or "not updated" in t for t in text), [t[-3000:] for t in text]
    sids = sorted(p.name for p in (data / "sessions").iterdir())
    assert len(sids) == 2
    project = ProjectStore.open(data, "twin")
    try:
        assert sorted(s["session_id"] for s in project.sessions()) == sids
        assert [s["status"] for s in project.sessions()] == ["done", "done"]
        held = {(h.session_id, h.hypothesis_id) for h in project.hypotheses()}
    finally:
        project.close()
    spans = []
    for sid in sids:
        store = _store(data, sid)
        try:
            assert store.sessions.get().status == "done"
            assert {(sid, h.id) for h in store.hypotheses.all()} == {x for x in held if x[0] == sid} != set()
            spans.append((store.sessions.get().created_at, store.logs.events("session_done")[-1]["created_at"]))
        finally:
            store.close()
    assert spans[0][0] < spans[1][1] and spans[1][0] < spans[0][1]  # the two sessions overlapped in time


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


@pytest.mark.slow
def test_a_preference_rated_while_the_session_runs_reaches_its_bradley_terry_fit(
        tmp_path: Path, fake: FakeBackend, capsys: pytest.CaptureFixture[str]) -> None:
    """``cosci rate`` on its own SQLite connection while the Supervisor loop plays matches: the
    rating is stored, the session refits with it after its next round, and the stored order at the end follows
    the rating; neither writer hits ``database is locked`` and no match row of the session is lost."""
    from cosci.agents.session_fit import fit_session_on

    # a pool of 6 leaves rounds after the gate below: with the demo's 3 the loop could end on the action that
    # completed its 4th valid match (CI saw it once)
    config = make_config(tmp_path / "data", "run.max_hypotheses=6")
    data = config.paths.data_dir
    seen: dict[str, object] = {}

    async def session() -> str:
        rt = await SessionRuntime.open(config, models_choice="fake")
        rated, gated = asyncio.Event(), [False]

        def ready() -> bool:
            played = rt.store.matches.all()
            return (sum(m.verdict_valid for m in played) >= 4
                    and len({h for m in played if m.verdict_valid for h in (m.hyp_a, m.hyp_b)}) >= 3)

        async def runner(task: Task) -> TaskResult:  # from the first action that sees 4 valid matches among 3
            gated[0] = gated[0] or ready()  # players, actions wait for the rating: the gate is checked by the
            if gated[0]:  # action itself, so the loop cannot run on (or end) between a poll and the gate
                await rated.wait()
            return await rt.execute(task)

        sup = Supervisor(config, rt.store, rt.budget, runner)
        run = asyncio.create_task(sup.run())
        while not run.done() and not gated[0]:
            await asyncio.sleep(0.05)
        assert not run.done(), "the session ended before a rating could be made"
        sup._refit_if_stale()  # the loop's fits run off the loop and may lag its verdicts: the pair is of this fit
        bt = rt.store.matches.bt()
        order = sorted(bt, key=lambda h: -bt[h][0])
        _, upper, lower = min((bt[a][0] - bt[b][0], a, b) for a, b in itertools.pairwise(order))  # closest pair
        seen.update(upper=upper, lower=lower, matches_before=rt.store.matches.count())
        # the CLI's entry function in a worker thread: its own SQLite connection, while the loop goes on writing
        code, out, err = await asyncio.to_thread(
            _cli, capsys, "--data-dir", str(data), "rate", rt.session_id, lower, upper, "--prefer", "a",
            "--why", "the mechanism of the other is known to fail in vivo")
        seen.update(code=code, out=out, err=err, running=not run.done(), matches_at_rating=rt.store.matches.count())
        rated.set()
        reason = await run
        # the loop has ended; the session still runs (finalisation is ahead). The loop's end abandons a running
        # leaderboard fit (design.md#supervisor): the fit finalisation would store first, so the pair is of players
        sup._refit_if_stale()
        bt = rt.store.matches.bt()
        order = sorted(bt, key=lambda h: -bt[h][0])
        _, upper2, lower2 = min((bt[a][0] - bt[b][0], a, b) for a, b in itertools.pairwise(order))
        seen.update(upper2=upper2, lower2=lower2)
        code, _, err = _cli(capsys, "--data-dir", str(data), "rate", rt.session_id, upper2, lower2, "--prefer", "b")
        assert code == 0, err
        assert rt.store.matches.bt()[upper2][0] > rt.store.matches.bt()[lower2][0]  # not refitted: the process runs
        rt.write_overview(await sup.finalize(reason))
        sid = rt.session_id
        await rt.close()
        return sid

    sid = asyncio.run(session())
    assert seen["code"] == 0 and "database is locked" not in str(seen["err"]), seen["err"]
    assert seen["running"], "the rating landed after the session's loop had ended"
    upper, lower = str(seen["upper"]), str(seen["lower"])
    store = _store(data, sid)
    try:
        assert store.sessions.get().status == "done"
        upper2, lower2 = str(seen["upper2"]), str(seen["lower2"])
        assert [(r.hyp_a, r.hyp_b, r.prefer) for r in store.researcher.ratings()] == [(lower, upper, "a"),
                                                                                    (upper2, lower2, "b")]
        events = [e["event"] for e in store.logs.events()]
        assert "bt_refit" in events[events.index("researcher_rating"):], "the session never refitted after it"
        assert store.matches.count() > int(str(seen["matches_at_rating"]))  # the session played on after it
        played = {e["payload"]["id"] for e in store.logs.events("match_complete")}
        assert played <= {m.id for m in store.matches.all()}  # every match the session logged is stored
        assert not store.db.query("SELECT id FROM tasks WHERE last_error LIKE '%locked%'")
        after = store.matches.bt()
        ids, weight = sorted(after), config.ranking.researcher_weight
        judged, first = store.matches.verdicts(), store.matches.first_shown()
        rated = store.researcher.verdicts(weight)
        # rated after the last round: refitted at finalisation, so the stored fit is the fit of every verdict and
        # both preferences (deterministic in its inputs). Whether the rating flips its pair is not asserted: a pair
        # with several judge verdicts one way may outweigh one preference (CI saw 0.457 against 0.554 once)
        assert store.matches.bt_fitted_at() >= store.researcher.preference_changes()  # type: ignore[operator]
        full = fit_session_on(ids, [*judged, *rated], [*first, *([None] * len(rated))], config.ranking.bt_prior_sd)
        assert {h: round(float(s), 9) for h, s in zip(full.ids, full.theta, strict=True)} == {
            h: round(after[h][0], 9) for h in ids}
        # the same fit without a preference: each rating is what moved its pair (the other rating stays in, so a
        # pair the two ratings share cannot mask the move)

        def gap_without(pair: tuple[str, str]) -> dict[str, float]:
            kept = [v for v in rated if {v[0], v[1]} != set(pair)]
            fit = fit_session_on(ids, [*judged, *kept], [*first, *([None] * len(kept))], config.ranking.bt_prior_sd)
            return {h: float(s) for h, s in zip(fit.ids, fit.theta, strict=True)}

        gap = gap_without((upper2, lower2))
        assert after[lower2][0] - after[upper2][0] > gap[lower2] - gap[upper2]
        gone = [h for h in (lower, upper) if h not in after]
        # the pair rated mid-session: a parent its evolved child beats is retired and leaves the fit (timing decides
        # whether that happens to the rated pair); otherwise the rating moves the stored fit's gap in its direction
        # unless the later rating was of the same pair (the current preference of a pair is its last). The pair's
        # order itself is not asserted: the session played on after the rating, and its later verdicts may reverse
        # a pair that was the closest when it was rated (CI saw this once in about 40 runs)
        assert all(store.hypotheses.get(h).state == "retired" for h in gone), gone  # type: ignore[union-attr]
        if not gone and {lower, upper} != {lower2, upper2}:
            gap = gap_without((lower, upper))
            assert after[lower][0] - after[upper][0] > gap[lower] - gap[upper]
    finally:
        store.close()


def test_a_text_measure_is_screened_with_the_notes(
        finished_copy: FinishedCopy, config: CosciConfig, fake: FakeBackend,
        capsys: pytest.CaptureFixture[str]) -> None:
    from cosci.session import researcher
    from cosci.session.folder import SessionFolder

    data, sid = config.paths.data_dir, finished_copy(config.paths.data_dir)
    store = _store(data, sid)
    h = store.hypotheses.ranked()[0].id
    store.close()
    screened: list[str] = []
    line = researcher.record_result(SessionFolder.existing(data, sid), h, "inconclusive", ["x=abc", "n=3"], "seen",
                                    None, lambda folder, store, text: screened.append(text))
    assert screened == ["seen\nx = abc"] and "measures: x = 'abc' (text), n = 3)" in line
    store = _store(data, sid)
    assert store.researcher.observations()[0].measures == {"x": "abc", "n": 3.0}
    store.close()


def test_a_rating_names_the_project_as_a_result_does(
        finished_copy: FinishedCopy, tmp_path: Path, fake: FakeBackend, capsys: pytest.CaptureFixture[str]) -> None:
    config = make_config(tmp_path / "data", "session.project=lab")
    data = config.paths.data_dir
    sid = finished_copy(data, "session.project=lab")
    store = _store(data, sid)
    a, b = [h.id for h in store.hypotheses.ranked()[:2]]
    store.close()
    code, out, err = _cli(capsys, "--data-dir", str(data), "rate", "lab", a, "--score", "4")
    assert code == 0 and out.startswith(f"{sid}: rating "), err
    code, out, err = _cli(capsys, "--data-dir", str(data), "rate", "--project", "lab", a, b, "--prefer", "b")
    assert code == 0 and out.startswith(f"{sid}: rating ") and "prefer b" in out, err
    code, out, err = _cli(capsys, "--data-dir", str(data), "result", "--project", "lab", a, "--outcome", "inconclusive")
    assert code == 0 and out.startswith(f"{sid}: result "), err
    # the session and the ids with --project, as `cosci rate --help` shows them: the session id is no hypothesis id
    code, out, err = _cli(capsys, "--data-dir", str(data), "rate", sid, b, "--score", "3", "--project", "lab")
    assert code == 0 and out.startswith(f"{sid}: rating ") and f"{b}: score 3/5" in out, err
    code, out, err = _cli(capsys, "--data-dir", str(data), "result", sid, b, "--project", "lab",
                          "--outcome", "supported")
    assert code == 0 and out.startswith(f"{sid}: result ") and f" on {b} " in out, err
    project = ProjectStore.open(data, "lab")
    assert len(project.ratings()) == 3 and len(project.observations()) == 2  # in the project's store
    project.close()
    for args, message in [(["rate", "--project", "nope", a, "--score", "4"], "no project 'nope'"),
                          (["rate", "--project", "lab", "H-000000000000", "--score", "4"], "in project lab"),
                          (["rate", "--project", "other", sid, a, "--score", "4"], "is not in project other"),
                          (["rate", "--project", "lab", sid, a, b, "H-000000000000", "--prefer", "a"], "(got 3;"),
                          (["rate", "lab"], "needs <session|project>"),
                          (["result", "--project", "lab", sid, "--outcome", "supported"], "(got 0;"),
                          (["result", sid, a, b, "--outcome", "supported"], "one hypothesis id (got 2;"),
                          (["result", "lab", "--outcome", "supported"], "needs <session|project>")]:
        code, _, err = _cli(capsys, "--data-dir", str(data), *args)
        assert code == 2 and err.count("\n") == 1 and message in err, (args, err)
    store = _store(data, sid)
    assert len(store.researcher.ratings()) == 3
    store.close()


def test_a_result_after_the_session_ended_reaches_the_reports_leaderboard_as_status_shows_it(
        finished_copy: FinishedCopy,
        config: CosciConfig, fake: FakeBackend, capsys: pytest.CaptureFixture[str]) -> None:
    """A done session; the BT leader then refuted by a lab result: `cosci report` ranks as `cosci status` does,
    the refuted one out of the ranking, and says the overview was written before that input (fresh-user trial)."""
    data, sid = config.paths.data_dir, finished_copy(config.paths.data_dir)
    store = _store(data, sid)
    assert store.sessions.status() == "done" and store.sessions.get().final_overview
    leader = max(store.matches.bt().items(), key=lambda kv: kv[1][0])[0]
    overview = store.sessions.get().final_overview or ""
    assert f"| 1 | [{leader}] |" in overview  # the overview's appendix ranks it first
    store.close()
    code, out, err = _cli(capsys, "--data-dir", str(data), "result", sid, leader, "--outcome", "refuted",
                          "--notes", "no effect at 10 uM")
    assert code == 0, err
    code, status, _ = _cli(capsys, "--data-dir", str(data), "status", sid)
    top = next(line.strip() for line in status.splitlines() if "BT top 5:" in line)
    order = re.findall(r"H-[0-9a-f]+", top)
    assert leader not in order and len(order) >= 2
    apart = next(line.strip() for line in status.splitlines() if "not ranked: " in line)
    assert f"{leader} refuted by result" in apart  # others out of the ranking may come first (best Elo first)
    code, report, _ = _cli(capsys, "--data-dir", str(data), "report", sid)
    assert code == 0
    assert report.startswith("> Note: this overview was written on ") and "before 1 researcher input that came " \
        "later (1 result)" in report
    current = report[report.index("# Current leaderboard"):]
    ranked = [line.split("|")[2].strip(" []") for line in current.splitlines() if line.startswith("| ")
              and line.split("|")[1].strip().isdigit()]
    assert ranked[:len(order)] == order and leader not in ranked  # the same standing as status
    assert f"- Not ranked: [{leader}] refuted by result" in current
    assert top in current  # the status line itself, under the table
    assert "(now, with the inputs after the overview)" in report or "# Researcher ratings" in report
    code, out, _ = _cli(capsys, "--data-dir", str(data), "report", sid, "--html")
    page = Path(out.strip()).read_text(encoding="utf-8")
    assert 'id="overview-note"' in page and "1 researcher input" in page
    board = page[page.index('id="leaderboard-table"'):page.index('id="out-of-ranking"')]
    shown = [board.split(f'data-id="{h}"')[0].count("<tr data-id=") for h in order]
    assert shown == list(range(len(order))) and f'data-id="{leader}"' not in board


def _standings(capsys: pytest.CaptureFixture[str], data: Path, sid: str) -> tuple[list[str], str, list[str], str,
                                                                                 list[str]]:
    """What `cosci status` ranks (its BT top 5), the text report with the ids its current leaderboard ranks, and
    the page (`cosci report --html`) with the ids its leaderboard table ranks, top down."""
    code, status, err = _cli(capsys, "--data-dir", str(data), "status", sid)
    assert code == 0, err
    top = next(line.strip() for line in status.splitlines() if "BT top 5:" in line)
    assert f"BT scores (logits) with their {BT_INTERVAL_LABEL}:" in status  # the interval named by its method
    code, report, err = _cli(capsys, "--data-dir", str(data), "report", sid)
    assert code == 0, err
    current = report[report.index("# Current leaderboard"):]
    ranked = [line.split("|")[2].strip(" []") for line in current.splitlines() if line.startswith("| ")
              and line.split("|")[1].strip().isdigit()]
    assert top in current  # the status line itself, under the table
    code, out, err = _cli(capsys, "--data-dir", str(data), "report", sid, "--html")
    assert code == 0, err
    page = Path(out.strip()).read_text(encoding="utf-8")
    board = page[page.index('id="leaderboard-table"'):page.index("</table>", page.index('id="leaderboard-table"'))]
    return re.findall(r"H-[0-9a-f]+", top), report, ranked, page, re.findall(r'<tr data-id="(H-[0-9a-f]+)"', board)


def test_a_rating_after_the_overview_is_in_the_reports_standing_and_named_above_the_overview(
        finished_copy: FinishedCopy,
        config: CosciConfig, fake: FakeBackend, capsys: pytest.CaptureFixture[str]) -> None:
    """A done session: status and report rank alike and no note says the overview is older than anything; then a
    preference on the closest pair of the BT top 5, against the fit: both show the new order, and the report (text,
    page, `cosci export --format md`) says the overview was written before that rating."""
    data, sid = config.paths.data_dir, finished_copy(config.paths.data_dir)
    order, report, ranked, page, shown = _standings(capsys, data, sid)
    assert len(order) >= 3 and ranked[:len(order)] == order and shown == ranked
    assert "Note: this overview was written" not in report and 'id="overview-note"' not in page
    store = _store(data, sid)
    bt = store.matches.bt()
    _, upper, lower = min((bt[a][0] - bt[b][0], a, b) for a, b in itertools.pairwise(order))
    store.close()
    code, _, err = _cli(capsys, "--data-dir", str(data), "rate", sid, lower, upper, "--prefer", "a")
    assert code == 0, err
    after, report, ranked, page, shown = _standings(capsys, data, sid)
    assert ranked.index(lower) < ranked.index(upper)  # the preference moved the pair in the stored fit
    assert ranked[:len(after)] == after and shown == ranked  # the same standing in status, report and page
    assert report.startswith("> Note: this overview was written on ") and "before 1 researcher input that came " \
        "later (1 rating)" in report
    assert 'id="overview-note"' in page and "(1 rating)" in page
    assert "\n# Researcher ratings and experimental results\n" in report  # the overview had none to list
    code, md, _ = _cli(capsys, "--data-dir", str(data), "export", sid, "--format", "md", "--out", "-")
    assert code == 0 and md.startswith("> Note: this overview was written on ") and "(1 rating)" in md
    exported = [line.split("|")[2].strip() for line in md[md.index("## Leaderboard"):].splitlines()
                if line.startswith("| ") and line.split("|")[1].strip().isdigit()]
    assert exported == ranked


def test_a_supported_result_takes_a_hypothesis_out_of_the_projects_demoted_directions(
        finished_copy: FinishedCopy, tmp_path: Path, fake: FakeBackend, capsys: pytest.CaptureFixture[str]) -> None:
    """A latest review ``already_explained`` makes a demoted direction (not a rejected one: the hypothesis is not in
    the rejected state); a lab's ``supported`` result outranks it."""
    from cosci.records import RecordReview

    config = make_config(tmp_path / "data", "session.project=lab")
    data = config.paths.data_dir
    sid = finished_copy(data, "session.project=lab")
    store = _store(data, sid)
    hid = store.hypotheses.ranked()[0].id
    store.hypotheses.add_review(hid, RecordReview(verdict="already_explained", evidence=[], notes="published"),
                                task_id="t-test")
    store.close()
    code, _, err = _cli(capsys, "--data-dir", str(data), "rate", sid, hid, "--score", "4")  # a sync, no result
    assert code == 0, err
    project = ProjectStore.open(data, "lab")
    assert (hid, "already_explained") in [(d.hypothesis_id, d.reason) for d in project.demoted()]
    assert hid not in [d.hypothesis_id for d in project.rejected()]
    project.close()
    code, _, err = _cli(capsys, "--data-dir", str(data), "result", sid, hid, "--outcome", "supported")
    assert code == 0, err
    project = ProjectStore.open(data, "lab")
    assert hid not in [d.hypothesis_id for d in [*project.rejected(), *project.demoted()]]
    project.close()


def test_rate_and_result_after_the_session_ended_rewrite_its_report_page(
        finished_copy: FinishedCopy,
        config: CosciConfig, fake: FakeBackend, capsys: pytest.CaptureFixture[str]) -> None:
    """A done session's ``final/report.html`` is rewritten by `cosci rate` and by `cosci result` (with `cosci report
    --html`'s code), so the page shows the standing they moved with no other command; a session without a page
    gets none (design.md#report)."""
    from cosci.report.standing import standing

    data, sid = config.paths.data_dir, finished_copy(config.paths.data_dir)
    page = data / "sessions" / sid / "final" / "report.html"

    def board() -> tuple[str, list[str]]:
        html = page.read_text(encoding="utf-8")
        table = html[html.index('id="leaderboard-table"'):html.index("</table>", html.index('id="leaderboard-table"'))]
        return html, re.findall(r'<tr data-id="(H-[0-9a-f]+)"', table)

    html, _ = board()
    assert 'id="overview-note"' not in html
    store = _store(data, sid)
    fitted = [e.id for e in standing(store).fitted(5)]
    bt = store.matches.bt()
    _, upper, lower = min((bt[a][0] - bt[b][0], a, b) for a, b in itertools.pairwise(fitted))
    store.close()
    code, _, err = _cli(capsys, "--data-dir", str(data), "rate", sid, lower, upper, "--prefer", "a")
    assert code == 0, err
    store = _store(data, sid)
    now = [e.id for e in standing(store).ranked]
    store.close()
    html, shown = board()
    assert now.index(lower) < now.index(upper) and shown == now  # the page as `cosci status` ranks now
    assert 'id="overview-note"' in html and "(1 rating)" in html
    leader = now[0]
    code, _, err = _cli(capsys, "--data-dir", str(data), "result", sid, leader, "--outcome", "refuted",
                        "--notes", "no effect at 10 uM")
    assert code == 0, err
    store = _store(data, sid)
    now = [e.id for e in standing(store).ranked]  # refitted without the refuted one
    store.close()
    html, shown = board()
    assert leader not in shown and shown == now and "1 result, 1 rating" in html
    apart = html[html.index('id="out-of-ranking"'):]
    assert f'href="#{leader}"' in apart[:apart.index("</table>")]  # listed apart, rejected
    assert "refuted by result O-" in apart[:apart.index("</table>")]  # why, as the text report says
    page.unlink()
    code, _, err = _cli(capsys, "--data-dir", str(data), "rate", sid, now[1], "--score", "4")
    assert code == 0, err
    assert not page.exists()  # no page to keep current: `cosci report --html` writes one


def test_a_rating_outside_the_fit_changes_no_bt_number(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """Fresh-user trial: after the session, `cosci rate <H> --score 3` moved every BT score and interval (the
    score refitted, and the refit fitted the players in Elo order, the session in id order). A score, and a
    preference naming a retired hypothesis, neither enter the fit nor refit it: the stored numbers stay exactly the
    session's (design.md#researcher-ratings)."""
    from cosci.agents.session_fit import session_verdicts
    from cosci.session.folder import SessionFolder
    from cosci.tournament.bt import fit_bt
    from tests.store.rows import insert_hypothesis, session_with
    from tests.tournament.shipped import ELO

    data = tmp_path / "data"
    statements = ("Metformin depletes leukemic stem cells", "Itraconazole blocks SMO in AML blasts",
                  "Disulfiram inhibits ALDH1A1 in AML stem cells", "Atorvastatin starves FLT3-ITD blasts")
    sid, ids = session_with(data, statements)
    folder = SessionFolder(data, sid)
    config = folder.frozen_config()
    with folder.store() as store:
        retired = insert_hypothesis(store, "Venetoclax alone clears relapsed AML", state="retired")
        for i, (a, b) in enumerate([(3, 0), (3, 1), (2, 0), (2, 1), (3, 2), (1, 0)]):  # Elo order is not id order
            store.matches.apply(f"M-{i}", ids[a], ids[b], mode="pairwise", winner=ids[a], rule=ELO,
                                rationale="sharper", transcript=[], task_id=None)
        assert [h.id for h in store.hypotheses.ranked()] != sorted(ids)
        verdicts, first = session_verdicts(store, config.ranking.researcher_weight)  # as the session fits
        fit = fit_bt(sorted(ids), verdicts, config.ranking.bt_prior_sd, first=first)
        store.matches.save_bt(fit.table(), fit.verdicts, time.time())
        stored, fitted_at = store.matches.bt(), store.matches.bt_fitted_at()
    for args in (["rate", sid, ids[0], "--score", "3"], ["rate", sid, retired, "--score", "5"],
                 ["rate", sid, retired, ids[1], "--prefer", "a"]):
        code, _, err = run_cli(capsys, "--data-dir", str(data), *args)
        assert code == 0, err
    with folder.store() as store:
        assert store.matches.bt() == stored and store.matches.bt_fitted_at() == fitted_at
