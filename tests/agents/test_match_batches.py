"""The ranking batch pool (design.md#batches) on the scripted fake's batch endpoint.

Matches whose two hypotheses have almost no chance of the top k (by the Bradley–Terry fit's uncertainty) are
queued and sent as one provider batch once ``ranking.batch_size`` are queued (the session's last batch: any
number), the others are played directly; results are priced at the batch price; an expired batch falls back to
direct calls; a session killed while a batch runs polls the same batch after resume, submits nothing twice and
applies each verdict's Elo once. The pool enqueues nothing: the Scheduler's follow-up rules enqueue its tasks, as
the Supervisor runs them here.
"""

from __future__ import annotations

import asyncio
import functools
from pathlib import Path
from typing import Any

import pytest

from cosci.domain import Task, TaskResult
from cosci.llm.fake.batches import FakeBatches
from cosci.llm.fake.provider import FakeBackend
from cosci.session.runtime import SessionRuntime
from cosci.store import task_specs as specs
from cosci.supervisor.rules import Scheduler
from cosci.text import counted
from cosci.tournament.elo import EloRule

BATCHING = ("+models.tiers.cheap.batch=true", "ranking.top_k=2", "ranking.batch_top_chance=0.1",
            "ranking.batch_size=2", "ranking.batch_poll_seconds=0")
STATEMENTS = ["Metformin inhibits complex I to deplete leukemic stem cells",
              "Itraconazole blocks SMO to sensitise relapsed blasts to cytarabine",
              "Disulfiram inhibits ALDH1A1 in NPM1-mutant AML stem cells",
              "Atorvastatin starves FLT3-ITD blasts of geranylgeranyl lipids"]
ELOS = [1600.0, 1590.0, 1000.0, 990.0]  # far apart: direct matches never move a top player to the bottom


@pytest.fixture
def players(planned: SessionRuntime, add_player: Any) -> list[str]:
    """Four players; each of the top two has beaten each of the bottom two three times (those pairs are at the
    rematch cap), so by the BT fit the bottom two have almost no chance of the top 2: only their pair is low-stakes."""
    ids = [add_player(s, elo=e, matches=6) for s, e in zip(STATEMENTS, ELOS, strict=True)]
    rule = EloRule.from_config(planned.config.ranking)
    for n in range(3):
        for top in ids[:2]:
            for low in ids[2:]:
                a, b = sorted((top, low))
                assert planned.store.matches.apply(f"M-seed{n}-{a}-{b}", a, b, mode="pairwise", winner=top,
                                                   rule=rule, rationale="", transcript=[], task_id=None)
    return ids


@pytest.fixture
def batch_dir(fake: FakeBackend, tmp_path: Path) -> Path:
    """Fake batches kept on disk (they outlive a runtime), with their create / poll log."""
    folder = tmp_path / "batches"
    fake.configure(fake.cfg.model_copy(update={"batch_dir": str(folder)}))
    return folder


async def finish(rt: SessionRuntime, task: Task) -> TaskResult:
    """Run a claimed task as the Supervisor does: execute, apply the Scheduler's follow-ups, mark it done."""
    result = await rt.execute(task)
    Scheduler(rt.config, rt.store).follow_ups(task, result)
    rt.store.tasks.complete(task.id, result)
    return result


async def run_match_batches(rt: SessionRuntime, *, stop_after: int | None = None) -> list[TaskResult]:
    """Execute pending MatchBatch tasks (and the polls the Scheduler enqueues after them) as the Supervisor would."""
    results: list[TaskResult] = []
    while stop_after is None or len(results) < stop_after:
        rows = rt.store.db.query("SELECT id FROM tasks WHERE action='MatchBatch' AND status='pending'"
                                  " ORDER BY created_at, id LIMIT 1")
        if not rows:
            break
        task = rt.store.tasks.get(rows[0]["id"])
        assert task is not None
        with rt.store.db.tx() as c:
            c.execute("UPDATE tasks SET status='in_progress' WHERE id=?", (task.id,))
        results.append(await finish(rt, task))
    return results


async def settle_all(rt: SessionRuntime) -> list[TaskResult]:
    """The batches of full size, then the session's last batch with what is left, all run to their end."""
    results = await run_match_batches(rt)
    Scheduler(rt.config, rt.store).last_batch()
    return results + await run_match_batches(rt)


async def play_tournament(rt: SessionRuntime, n: int) -> list[str]:
    ids: list[str] = []
    for k in range(n):
        tid = rt.store.tasks.enqueue("ranking", "RunTournamentRound", f"b{k}")
        task = rt.store.tasks.get(tid or "")
        assert task is not None
        ids += (await finish(rt, task)).match_ids
    return ids


def journal(rt: SessionRuntime) -> list[str]:
    return [r["match_id"] for r in rt.store.db.query("SELECT match_id FROM elo_journal ORDER BY seq")
            if not r["match_id"].startswith("M-seed")]


@pytest.mark.overrides(*BATCHING)
async def test_low_stakes_matches_go_to_batches_of_batch_size_priced_at_the_discount(
        planned: SessionRuntime, fake: FakeBackend, players: list[str], batch_dir: Path) -> None:
    rt = planned
    match_ids = await play_tournament(rt, 12)
    bottom = set(players[2:])
    queued = {m.match_id: m for m in rt.store.batches._select("1=1", ())}
    played = {m.id: m for m in rt.store.matches.all()}
    assert queued and played, "both paths must occur in 12 matches"
    for mid in match_ids:
        if mid in queued:
            assert {queued[mid].hyp_a, queued[mid].hyp_b} == bottom and mid not in played
        else:
            assert {played[mid].hyp_a, played[mid].hyp_b} != bottom  # a top or mixed pair: played at once
    # nothing queued was asked of the model: one direct call per played match (all pairwise or debates here)
    direct_tasks = {c.task_id for c in fake.calls_for("ranking")}
    assert {m.task_id for m in queued.values()}.isdisjoint(direct_tasks)

    results = await run_match_batches(rt)
    sizes = [len(e["custom_ids"]) for e in FakeBatches().log() if e["op"] == "create"]
    assert sizes and min(sizes) >= 2 and sum(sizes) <= len(queued)  # no batch below ranking.batch_size
    results += await settle_all(rt)  # the session's end: what is left goes out, however few
    assert all(r.kind in ("tournament_match_complete", "match_batch_pending", "nothing_to_do") for r in results)
    log = FakeBatches().log()
    creates = [e for e in log if e["op"] == "create"]
    assert sorted(c for e in creates for c in e["custom_ids"]) == sorted(queued)  # each queued match sent once
    last = [e["payload"]["last"] for e in rt.store.logs.events("match_batch_submitted")]
    assert all(n >= 2 or is_last for n, is_last in zip([len(e["custom_ids"]) for e in creates], last, strict=True))
    assert set(journal(rt)) >= set(queued)  # every batched verdict applied
    assert len(journal(rt)) == len(set(journal(rt)))
    rows = rt.store.db.query("SELECT input_tokens, output_tokens, cost_usd, request FROM transcripts"
                              " WHERE agent='ranking' AND request LIKE '%batch_id%' AND outcome='ok'")
    assert len(rows) == len(queued)
    for r in rows:  # the fake's cheap tier: 0.5 / 2.5 USD per 1M tokens; batch price: half of it
        assert r["cost_usd"] == pytest.approx((r["input_tokens"] * 0.25 + r["output_tokens"] * 1.25) / 1e6)
        assert r["cost_usd"] > 0
    assert {m.status for m in rt.store.batches._select("1=1", ())} == {"applied"}
    # hypothesis 1 of a batched prompt is the id shown first, whichever id sorts first (design.md#position-bias)
    stored = {m.id: m for m in rt.store.matches.all()}
    firsts = set()
    for mid, q in queued.items():
        row, text = stored[mid], rt.store.matches.transcript(mid)[0]["text"]
        second = row.hyp_b if q.request["first"] == row.hyp_a else row.hyp_a
        assert row.first_shown == q.request["first"] and row.judge == "cheap"
        assert row.winner == (q.request["first"] if text.rstrip().endswith("better idea: 1") else second)
        assert row.verdicts == ({"first": row.first_shown, "winner": row.winner},)
        firsts.add(row.first_shown == row.hyp_a)
    assert firsts == {True, False}, "both id orders shown first among the batched matches"


@pytest.mark.overrides(*BATCHING, "models.fake.batch_outcome=expired")
async def test_an_expired_batch_falls_back_to_direct_calls(planned: SessionRuntime, fake: FakeBackend,
                                                           players: list[str], batch_dir: Path) -> None:
    rt = planned
    await play_tournament(rt, 12)
    queued = {m.match_id for m in rt.store.batches._select("1=1", ())}
    assert queued
    before = len(fake.calls_for("ranking"))
    await settle_all(rt)
    assert len(fake.calls_for("ranking")) - before == len(queued)  # each one played directly instead
    assert set(journal(rt)) >= queued
    assert {m.status for m in rt.store.batches._select("1=1", ())} == {"direct"}
    outcomes = [r["outcome"] for r in rt.store.db.query(
        "SELECT outcome FROM transcripts WHERE request LIKE '%batch_id%'")]
    assert outcomes.count("error:batch_expired") == len(queued)


@pytest.mark.overrides(*BATCHING, "models.fake.batch_polls=3")
async def test_a_killed_session_polls_the_same_batch_and_applies_elo_once(
        planned: SessionRuntime, fake: FakeBackend, players: list[str], batch_dir: Path) -> None:
    rt = planned
    await play_tournament(rt, 12)
    queued = {m.match_id for m in rt.store.batches._select("1=1", ())}
    assert len(queued) >= 2
    # the first MatchBatch task submits and polls once; the process dies while it is still in progress
    [pending] = rt.store.db.query("SELECT id FROM tasks WHERE action='MatchBatch' AND status='pending'")
    task = rt.store.tasks.get(pending["id"])
    assert task is not None
    with rt.store.db.tx() as c:
        c.execute("UPDATE tasks SET status='in_progress' WHERE id=?", (task.id,))
    result = await rt.execute(task)  # no follow-ups, no complete(): killed before the row was marked done
    assert result.kind == "match_batch_pending"
    [submitted] = rt.store.db.query("SELECT batch_id FROM tasks WHERE id=?", (task.id,))
    batch_id = submitted["batch_id"]
    assert batch_id and batch_id.startswith("fakebatch_")

    killed = set(next(e["custom_ids"] for e in FakeBatches().log() if e["batch_id"] == batch_id))
    seen_before = len(FakeBatches().log())

    # resume: leases of the dead process are void, a new runtime (no in-memory state) continues
    config, sid = rt.config, rt.session_id
    await rt.close()
    resumed = await SessionRuntime.open(config, session_id=sid, models_choice="fake")
    fake.configure(fake.cfg.model_copy(update={"batch_dir": str(batch_dir)}))  # open() configured it anew
    try:
        resumed.store.tasks.reclaim()
        await settle_all(resumed)
        log = FakeBatches().log()
        sent = [c for e in log if e["op"] == "create" for c in e["custom_ids"]]
        assert sorted(sent) == sorted(queued)  # no match submitted twice (other matches: their own batches)
        after = log[seen_before:]
        assert not any(e["op"] == "create" and killed & set(e["custom_ids"]) for e in after)
        polls = [e for e in after if e["op"] == "poll" and e["batch_id"] == batch_id]
        assert len(polls) >= 2 and polls[-1]["polls"] == 3  # the same batch polled until it ended
        applied = journal(resumed)
        assert set(applied) >= queued and len(applied) == len(set(applied))  # Elo applied once per match
        row = resumed.store.tasks.get(task.id)
        assert row is not None and row.status == "done"
    finally:
        await resumed.close()


@pytest.mark.overrides(*BATCHING, "models.fake.batch_polls=3")
async def test_a_submitted_batch_left_without_a_poll_is_polled_after_resume(
        planned: SessionRuntime, fake: FakeBackend, players: list[str], batch_dir: Path) -> None:
    """Whatever step a process died at, a batch the provider holds gets a next poll from ``reconcile``."""
    rt = planned
    await play_tournament(rt, 12)
    queued = {m.match_id for m in rt.store.batches._select("1=1", ())}
    [first] = await run_match_batches(rt, stop_after=1)
    assert first.kind == "match_batch_pending"
    # the task the Scheduler enqueued after it is lost: its next poll
    with rt.store.db.tx() as c:
        c.execute("DELETE FROM tasks WHERE action='MatchBatch' AND status='pending'")
    held, waiting = rt.store.batches.stranded()
    assert [submitted for _, _, submitted in held] == [True] and waiting is None  # the paid batch took them all
    scheduler = Scheduler(rt.config, rt.store)
    scheduler.exhausted.add("ranking")  # ranking's share spent: the poll of a paid batch is enqueued all the same
    assert scheduler.reconcile() == 1
    assert scheduler.reconcile() == 0  # idempotent: the task is open now
    assert rt.store.batches.stranded() == ([], None)
    await run_match_batches(rt)
    assert set(journal(rt)) >= queued
    assert rt.store.batches.counts().get("submitted", 0) == 0


@pytest.mark.overrides(*BATCHING)
async def test_queued_matches_are_gathered_at_batch_size_or_by_the_last_batch(
        planned: SessionRuntime, players: list[str]) -> None:
    """One queued match waits (``batch_size`` 2), also after a resume; two make a gathering task; the session's end
    sends what is left, however few."""
    rt = planned
    a, b = sorted(players[2:])
    rt.store.batches.queue("M-w1", "T-x", 0, a, b, {})
    scheduler = Scheduler(rt.config, rt.store)
    assert scheduler.reconcile() == 0 and scheduler.gather_batch() == 0  # one: it waits for more
    rt.store.batches.queue("M-w2", "T-x", 1, a, b, {})
    assert scheduler.reconcile() == 1  # two, and no gathering task open: one on resume
    assert scheduler.gather_batch() == 0 and scheduler.last_batch() == 0  # one is open already
    with rt.store.db.tx() as c:
        c.execute("DELETE FROM tasks WHERE action='MatchBatch'")
        c.execute("DELETE FROM batched_matches WHERE match_id='M-w2'")
    assert scheduler.gather_batch() == 0
    assert scheduler.last_batch() == 1
    [row] = rt.store.db.query("SELECT idempotency_key k FROM tasks WHERE action='MatchBatch'")
    assert row["k"].endswith(specs.match_batch_last("M-w1").key)


@pytest.mark.overrides(*BATCHING)
async def test_matches_held_by_a_task_that_died_before_submitting_are_submitted_after_resume(
        planned: SessionRuntime, fake: FakeBackend, players: list[str]) -> None:
    rt = planned
    await play_tournament(rt, 12)
    queued = {m.match_id for m in rt.store.batches._select("1=1", ())}
    with rt.store.db.tx() as c:  # the gathering task took the matches, then its process died for good
        c.execute("DELETE FROM tasks WHERE action='MatchBatch'")
    dead = rt.store.tasks.enqueue("ranking", "MatchBatch", "ranking::match_batch::dead", payload={"poll": 0})
    assert dead
    rt.store.batches.assign(dead, 100)
    rt.store.tasks.fail(dead, "killed", dead=True)
    assert rt.store.batches.stranded() == ([(dead, 1, False)], None)
    assert Scheduler(rt.config, rt.store).reconcile() == 1
    await run_match_batches(rt)
    assert set(journal(rt)) >= queued
    assert set(rt.store.batches.counts()) == {"applied"}


@pytest.mark.overrides(*BATCHING, "models.fake.batch_polls=1000000")
async def test_a_budget_stop_shows_a_running_batch_as_outstanding_and_resume_settles_it(
        planned: SessionRuntime, fake: FakeBackend, players: list[str], batch_dir: Path,
        capsys: pytest.CaptureFixture[str]) -> None:
    """A session that stops on budget while its batch is at the provider polls it once at the stop; still running,
    the batch is outstanding spend (a figure of its own in the summary and in ``cosci status``, not in the cost),
    and ``cosci resume`` of the finished session settles it: verdicts applied once, costs booked at the batch
    price."""
    from cosci.cli import main
    from cosci.session.status import status_report
    from cosci.session.summary import summarise
    from cosci.store import SessionStore
    from cosci.supervisor.loop import Supervisor
    from cosci.supervisor.termination import StopReason

    rt = planned
    await play_tournament(rt, 12)
    [first] = await run_match_batches(rt, stop_after=1)
    assert first.kind == "match_batch_pending"  # submitted, polled once, running at the provider
    [sent] = [e for e in FakeBatches().log() if e["op"] == "create"]

    await Supervisor(rt.config, rt.store, rt.budget, rt.execute).finalize(StopReason.BUDGET)

    polls = [e for e in FakeBatches().log() if e["op"] == "poll" and e["batch_id"] == sent["batch_id"]]
    assert len(polls) == 2  # polled once more at the stop, not cancelled
    [batch] = rt.store.batches.outstanding()
    assert batch.batch_id == sent["batch_id"] and batch.matches == len(sent["custom_ids"])
    assert batch.reserved_usd > 0
    summary = summarise(rt, StopReason.BUDGET, rt.home.overview_path, None)
    assert (summary.outstanding_batches, summary.outstanding_matches) == (1, batch.matches)
    assert summary.outstanding_usd == pytest.approx(batch.reserved_usd)
    [line] = [x for x in summary.lines() if "outstanding" in x]
    assert f"outstanding ${batch.reserved_usd:.4f} at most" in line and f"cosci resume {rt.session_id}" in line
    assert any("outstanding $" in x for x in status_report(rt.home, rt.store))
    assert summary.spent_usd == pytest.approx(sum(s["usd"] for s in rt.store.logs.spend().values()))
    assert rt.store.sessions.get().status == "done"
    data, sid = rt.config.paths.data_dir, rt.session_id
    snapshot = rt.store.sessions.get().config_snapshot  # the fixture keeps the fake's batches on disk: say where
    snapshot["models"]["fake"]["batch_dir"] = str(batch_dir)
    rt.store.sessions.update(config_snapshot=snapshot)
    await rt.close()

    cli = functools.partial(asyncio.to_thread, main)  # the commands run their own event loop
    await cli(["--data-dir", str(data), "status", sid])  # the frozen config: still running at the provider
    out = capsys.readouterr().out
    assert f"batches      batch {batch.batch_id}: still running at the provider" in out
    assert "outstanding $" in out

    await cli(["--data-dir", str(data), "resume", sid, "models.fake.batch_polls=1"])  # it has ended by now
    out = capsys.readouterr().out
    applied = counted(batch.matches, "match", "matches")
    assert f"{sid}: batch {batch.batch_id}: settled, {batch.matches} of {applied} applied" in out
    store = SessionStore.open(rt.home.store_path, sid)
    try:
        assert store.batches.outstanding() == []
        applied = [r["match_id"] for r in store.db.query("SELECT match_id FROM elo_journal")]
        assert set(sent["custom_ids"]) <= set(applied) and len(applied) == len(set(applied))
        rows = store.db.query("SELECT cost_usd FROM transcripts WHERE request LIKE ? AND outcome='ok'",
                               (f'%{batch.batch_id}%',))
        assert len(rows) == batch.matches and all(r["cost_usd"] > 0 for r in rows)
        spent = sum(s["usd"] for s in store.logs.spend().values())
        assert spent == pytest.approx(summary.spent_usd + sum(r["cost_usd"] for r in rows))  # now in the spend
        assert sum(r["cost_usd"] for r in rows) <= batch.reserved_usd  # within what was held for it
        assert store.logs.events("match_batch_settled")
    finally:
        store.close()
    await cli(["--data-dir", str(data), "status", sid])
    assert "outstanding" not in capsys.readouterr().out
