"""The final overview's judge statistics are made while the writer's call is out (design.md#metareview): in a worker
thread, the same statistics the tournament appendix shows."""

from __future__ import annotations

import threading

import pytest

import cosci.agents.metareview as metareview
from cosci.config.schema.models import FakeModelCfg
from cosci.llm.fake.provider import FakeBackend
from cosci.session.runtime import SessionRuntime
from cosci.tournament.judge_stats import session_judge_stats


@pytest.mark.usefixtures("overview_ready")
async def test_the_judge_statistics_are_made_while_the_writer_calls(planned: SessionRuntime, fake: FakeBackend,
                                                                     run_task,
                                                                     monkeypatch: pytest.MonkeyPatch) -> None:
    fake.configure(FakeModelCfg(seed=0, fault_rate=0.0, latency_seconds=0.5, call_log=None))
    writing = threading.Event()  # the writer's call is at the fake, not yet answered
    respond = fake.respond

    async def observed(model, messages, params, metadata):  # type: ignore[no-untyped-def]
        final = metadata.get("cosci_mode") == "final"
        if final:
            writing.set()
        try:
            return await respond(model, messages, params, metadata)
        finally:
            if final:
                writing.clear()

    monkeypatch.setattr(fake, "respond", observed)
    seen: list[tuple[bool, bool]] = []

    def stats(store):  # type: ignore[no-untyped-def]
        seen.append((threading.current_thread() is threading.main_thread(), writing.wait(5)))
        return session_judge_stats(store)

    monkeypatch.setattr(metareview, "session_judge_stats", stats)
    _, result = await run_task("metareview", "GenerateFinalResearchOverview", "final")
    assert result.kind == "final_overview_generated"
    assert seen == [(False, True)]  # once, off the event loop's thread, while a writer's call was out
    lines = session_judge_stats(planned.store).lines(planned.config.ranking.first_position_flag,
                                                     planned.config.ranking.dual_order_biased_share)
    overview = planned.store.sessions.get().final_overview or ""
    assert lines and all(line in overview for line in lines)
