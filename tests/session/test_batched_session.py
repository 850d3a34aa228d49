"""A whole fake session with provider batches on (design.md#batches), run in-process without Prefect: no batch
goes out with fewer than ``ranking.batch_size`` (4) matches except the session's last, and the end-of-session
summary and ``cosci status`` show the share of ranking's spend that went through batches and what it saved."""

from __future__ import annotations

from pathlib import Path

import pytest

from cosci.llm.fake.provider import FakeBackend
from cosci.session.runtime import SessionRuntime
from cosci.session.status import status_report
from cosci.session.summary import SessionSummary, summarise
from cosci.supervisor.loop import Supervisor
from tests.conftest import make_config

BATCHED = ("+models.tiers.cheap.batch=true", "ranking.batch=true", "ranking.batch_size=4", "ranking.top_k=2",
           "ranking.batch_top_chance=0.6", "ranking.batch_poll_seconds=0", "run.concurrency=1")
"""The fake's cheap tier (ranking's) with a batch endpoint; a top-2 boundary so that a 6-hypothesis demo pool has
a low-stakes end; a 60 % chance so that enough of the pairs the pairing chooses are low-stakes to fill a batch;
one task at a time, so that the order of the tasks (and so the pairs chosen) is the same on every run."""


async def run_session(config_dir: Path) -> tuple[SessionSummary, list[str], list[tuple[int, bool]]]:
    config = make_config(config_dir, *BATCHED)
    rt = await SessionRuntime.open(config, models_choice="fake")
    try:
        sup = Supervisor(config, rt.store, rt.budget, rt.execute)
        reason = await sup.run()
        rt.write_overview(await sup.finalize(reason))
        summary = summarise(rt, reason, rt.home.overview_path, None)
        status = status_report(rt.home, rt.store)
        sent = [(int(e["payload"]["matches"]), bool(e["payload"]["last"]))
                for e in rt.store.logs.events("match_batch_submitted")]
        assert not rt.store.batches.counts().get("queued")  # nothing left waiting
    finally:
        await rt.close()
    return summary, status, sent


async def test_batches_hold_batch_size_but_the_last_and_the_summary_shows_the_batched_share(
        tmp_path: Path, fake: FakeBackend) -> None:
    summary, status, sent = await run_session(tmp_path / "data")
    assert any(n >= 4 for n, _ in sent), sent  # the low-stakes end filled at least one full batch
    assert all(n >= 4 or last for n, last in sent), sent  # a smaller batch only as the session's last
    first_last = next((i for i, (_, last) in enumerate(sent) if last), len(sent))
    assert all(last for _, last in sent[first_last:]), sent  # and no full batch after the end began
    spend = summary.batches
    assert spend is not None and spend.calls == sum(n for n, _ in sent)
    assert 0 < spend.batched_usd < spend.ranking_usd
    assert spend.share == pytest.approx(spend.batched_usd / spend.ranking_usd)
    # the fake's cheap tier has no batch prices in LiteLLM's table: half the list price, so it saved as much
    assert spend.saved_usd == pytest.approx(spend.batched_usd)
    [line] = [x for x in summary.lines() if x.startswith("batches")]
    assert f"{spend.share:.1%} of ranking's ${spend.ranking_usd:.4f}" in line and f"${spend.saved_usd:.4f}" in line
    assert any(x.startswith("batches      ") and f"{spend.share:.1%}" in x for x in status)
    assert SessionSummary(**summary.to_dict()).lines() == summary.lines()  # read back as the flow returns it
