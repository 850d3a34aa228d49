"""The final overview's text is checked by the offline screen ahead of its screen (design.md#supervisor, "The
session's end"): its appendices as soon as the judge statistics are made, the text before its audit section while
the audit's call is out, so the overview's screen, which reads that text and the audit's section, finds its windows
checked."""

from __future__ import annotations

import asyncio
import threading

import pytest

import cosci.safety.classifier as classifier
from cosci.config.schema.models import FakeModelCfg
from cosci.llm.fake.provider import FakeBackend
from cosci.session.runtime import SessionRuntime


@pytest.mark.usefixtures("overview_ready")
async def test_the_overview_before_its_audit_is_screened_while_the_audit_calls(
        planned: SessionRuntime, fake: FakeBackend, run_task,
        monkeypatch: pytest.MonkeyPatch) -> None:
    fake.configure(FakeModelCfg(seed=0, fault_rate=0.0, latency_seconds=0.3, call_log=None))
    auditing = threading.Event()  # the audit's call is at the fake, not yet answered
    screened = threading.Event()  # a check ran while it was
    respond = fake.respond

    async def observed(model, messages, params, metadata):  # type: ignore[no-untyped-def]
        audit = str(metadata.get("cosci_action", "")).endswith("/audit")
        if audit:  # the audit's answer waits for a check made while it is out (10 s at most: none comes, none made)
            auditing.set()
            await asyncio.to_thread(screened.wait, 10)
        try:
            return await respond(model, messages, params, metadata)
        finally:
            if audit:
                auditing.clear()

    monkeypatch.setattr(fake, "respond", observed)
    checked: list[tuple[str, str, bool, bool]] = []
    check = classifier._offline_check

    def recorded(screen, text, subject):  # type: ignore[no-untyped-def]
        on_loop = threading.current_thread() is threading.main_thread()
        # the text before the audit is checked once the audit's call is made: wait for it to reach the fake
        during = auditing.is_set() if text.startswith("# Appendix") else auditing.wait(5)
        checked.append((subject, text, on_loop, during))
        if during:
            screened.set()
        return check(screen, text, subject)

    monkeypatch.setattr(classifier, "_offline_check", recorded)
    _, result = await run_task("metareview", "GenerateFinalResearchOverview", "final")
    assert result.kind == "final_overview_generated"
    overview = planned.store.sessions.get().final_overview or ""
    assert [(subject, on_loop) for subject, _, on_loop, _ in checked] == [("overview", False)] * 2  # off the loop
    (_, appendices, _, after_audit), (_, before_audit, _, during_audit) = checked
    assert appendices.startswith("# Appendix: leaderboard") and appendices.rstrip() in overview and not after_audit
    assert during_audit and overview.startswith(before_audit.rstrip())  # while the audit's call was out
    assert "# Audit" in overview[len(before_audit.rstrip()):]
