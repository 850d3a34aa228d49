"""The final overview: claims traced against the record (one repair), support-checked on scripted answers (right
and wrong), marked with their status word in ``overview.md``, ``final/claims.json`` and the report; verdict-aware
directions; and the blind, independent audit on another model, compared with the support check."""

from __future__ import annotations

import json
import re

import pytest

from cosci.llm.fake.provider import FakeBackend, FakeReply
from cosci.records import RecordReview
from cosci.session.runtime import SessionRuntime

STATEMENTS = ["Metformin inhibits complex I to deplete leukemic stem cells",
              "Itraconazole blocks SMO to sensitise relapsed blasts to cytarabine",
              "Disulfiram inhibits ALDH1A1 in NPM1-mutant AML stem cells"]
SOURCE_URL = "https://pubmed.ncbi.nlm.nih.gov/{}/"


def review(verdict: str, hid: str, i: int) -> RecordReview:
    """A review whose one evidence item is verified (as the reflection agent stores it)."""
    return RecordReview.model_validate({
        "verdict": verdict, "novelty": 0.7, "correctness": 0.6, "notes": f"Review {i}.",
        "evidence": [{"claim": "support", "url": SOURCE_URL.format(5550 + i),
                      "excerpt": f"complex I activity fell by 4{i} percent in blasts", "status": "verified",
                      "source_id": f"PMID:{5550 + i}"}]})


@pytest.fixture
def players(planned: SessionRuntime, add_player) -> list[str]:
    ids = [add_player(s, elo=1300.0 - 40 * i, matches=4) for i, s in enumerate(STATEMENTS)]
    for i, hid in enumerate(ids):
        planned.store.hypotheses.add_review(hid, review("missing_piece", hid, i), task_id=f"T-rev-{i}")
    return ids


def overview_with(*direction_lines: str) -> str:
    return ("# Executive summary\nThree directions.\n\n# Main research directions\n## Metabolism\n"
            + "\n".join(direction_lines)
            + "\n\n# Convergence and divergence\nThey share targets.\n\n# Caveats and limitations\nEarly.\n")


EXCERPT = "complex I activity fell by 40 percent in blasts"
STATUS_WORDS = ("[supported]", "[contradicted]", "[untraceable]", "[overclaim]", "[hypothesis_only]", "[unchecked]",
                "UNSUPPORTED", "untraceable", "hypothesis_only", "Claim map")


def verdict(v: str, excerpt: str = EXCERPT) -> dict[str, str]:
    return {"verdict": v, "excerpt": excerpt, "why": f"scripted in the test: {v}"}


async def test_claims_are_repaired_support_checked_and_marked_with_what_was_checked(
        planned: SessionRuntime, fake: FakeBackend, run_task, players: list[str]) -> None:
    h0 = players[0]
    good = f"- Metformin inhibits complex I in leukemic stem cells [{h0}] [S1]."
    rose = f"- Complex I activity rose by 40 percent in blasts [{h0}] [S1]."
    number = f"- Complex I activity fell by 95 percent in blasts [{h0}] [S1]."
    unknown = "- Metformin depletes leukemic stem cells in every patient [H-0123456789ab]."
    proves = f"- This conclusively proves that metformin works in blasts [{h0}] [S1]."
    only = f"- Metformin inhibits complex I to deplete leukemic stem cells [{h0}]."
    fake.script(FakeReply(text=overview_with(good, rose, number, unknown, proves, only)), agent="metareview",
                mode="final")
    fake.script(FakeReply(text=overview_with(good, rose, number, proves, only)), agent="metareview", mode="final")
    fake.script(FakeReply.record("record_claim_checks", c1=verdict("supported"), c2=verdict("contradicted"),
                                 c3=verdict("supported")), agent="metareview", mode="claim_check")
    _, result = await run_task("metareview", "GenerateFinalResearchOverview", "final")

    writer, repair = fake.calls_for("metareview", "final")  # exactly one repair call
    assert repair.action == "GenerateFinalResearchOverview/repair" and f"Verified excerpt: {EXCERPT}" in writer.prompt
    for problem in ("unknown hypothesis id H-0123456789ab", "'95' is not in the cited record text",
                    "overclaiming language 'proves'"):
        assert problem in repair.prompt, problem
    (check,) = fake.calls_for("metareview", "claim_check")
    assert check.tool_choice == {"type": "function", "function": {"name": "record_claim_checks"}}
    assert check.model == "cosci-fake/cheap" and check.action == "GenerateFinalResearchOverview/claim_check1"
    assert [c in check.prompt for c in ("### Claim C1", "### Claim C3", "### Claim C4")] == [True, True, False]
    assert f"Verified excerpt: {EXCERPT}" in check.prompt and "fell by 41 percent" not in check.prompt  # only S1
    assert "A word list flagged overclaiming language in it: proves, conclusively" in check.prompt

    overview = planned.store.sessions.get().final_overview or ""
    for line, status in ((good, "supported"), (rose, "contradicted"), (number, "untraceable"), (proves, "overclaim"),
                         (only, "hypothesis_only")):
        assert f"{line} [{status}]\n" in overview, status
    assert (result.detail["claims_total"], result.detail["claims_contradicted"],
            result.detail["claims_supported"]) == (5, 1, 1)

    path = planned.write_overview(overview)
    claims = json.loads((path.parent / "claims.json").read_text())
    by_status = {c["status"]: c for c in claims["claims"]}
    assert set(by_status) == {"supported", "contradicted", "untraceable", "overclaim", "hypothesis_only"}
    assert by_status["contradicted"]["relied_on"] == EXCERPT and by_status["contradicted"]["trace"] == "traceable"
    assert by_status["overclaim"]["support"] == "supported" and by_status["overclaim"]["overclaim"] == [
        "proves", "conclusively"]
    assert by_status["contradicted"]["sources"][0]["source_id"] == "PMID:5550"
    assert claims["claims_contradicted"] == 1 and claims["support_check"]["calls"] == 1
    assert claims["repaired"] is True and claims["audit"]["status"] == "done"
    report = (path.parent / "report.html").read_text()
    assert 'class="status-contradicted">contradicted</td>' in report and "Complex I activity rose by 40" in report


async def test_the_audit_is_blind_and_compared_with_the_support_check(planned: SessionRuntime, fake: FakeBackend,
                                                                      run_task, players: list[str]) -> None:
    h0 = players[0]
    good = f"- Metformin inhibits complex I in leukemic stem cells [{h0}] [S1]."
    rose = f"- Complex I activity rose by 40 percent in blasts [{h0}] [S1]."
    fake.script(FakeReply(text=overview_with(good, rose)), agent="metareview", mode="final")
    fake.script(FakeReply.record("record_claim_checks", c1=verdict("supported"), c2=verdict("contradicted")),
                agent="metareview", mode="claim_check")
    fake.script(FakeReply.record("record_audit", overclaims=[
        {"claim": "Complex I activity rose by 40 percent in blasts", "why": "the source says fell",
         "severity": "high"},
        {"claim": "Metformin inhibits complex I in leukemic stem cells", "why": "no stem-cell data",
         "severity": "low"}], missing_caveats=[], overall_score=0.4, summary="Two problems."),
        agent="metareview", mode="audit")
    _, result = await run_task("metareview", "GenerateFinalResearchOverview", "final")

    (audit,) = fake.calls_for("metareview", "audit")
    assert '<untrusted_source id="overview"' in audit.prompt and "Complex I activity rose by 40" in audit.prompt
    assert [w for w in STATUS_WORDS if w in audit.prompt] == []  # no claim-map verdict reaches the auditor
    assert result.detail["audit_agreement"] == 0.5
    (event,) = planned.store.logs.events("overview_checked")
    agree = event["payload"]["agreement"]
    assert (agree["compared"], agree["agree"]) == (2, 1)
    assert agree["disagreements"] == [{"claim": good[2:], "status": "supported", "support": "supported",
                                       "audit": "flagged", "audit_why": "no stem-cell data"}]


async def test_support_answers_that_cannot_be_grounded_are_unchecked(planned: SessionRuntime, fake: FakeBackend,
                                                                     run_task, players: list[str]) -> None:
    h0 = players[0]
    lines = [f"- Metformin inhibits complex I in leukemic stem cells [{h0}] [S1].",
             f"- Complex I activity fell by 40 percent in blasts [{h0}] [S1]."]
    fake.script(FakeReply(text=overview_with(*lines)), agent="metareview", mode="final")
    fake.script(FakeReply.record("record_claim_checks", c1=verdict("supported", "complex I activity fell by 90 "
                                                                                "percent in blasts"),
                                 c2=verdict("supported", "")), agent="metareview", mode="claim_check")
    _, result = await run_task("metareview", "GenerateFinalResearchOverview", "final")
    assert (result.detail["claims_unchecked"], result.detail["claims_supported"]) == (2, 0)
    notes = [c["support_note"] for c in planned.store.logs.events("overview_checked")[0]["payload"]["claims"]
             if c["status"] == "unchecked"]
    assert all("rests on no quote of the cited sources" in n for n in notes)


@pytest.mark.overrides("metareview.claim_check_batch=1", "metareview.claim_check_max_calls=1")
async def test_the_support_checks_budget_line_caps_its_calls(planned: SessionRuntime, fake: FakeBackend, run_task,
                                                             players: list[str]) -> None:
    h0 = players[0]
    lines = [f"- Metformin inhibits complex I in leukemic stem cells [{h0}] [S1].",
             f"- Complex I activity fell by 40 percent in blasts [{h0}] [S1]."]
    fake.script(FakeReply(text=overview_with(*lines)), agent="metareview", mode="final")
    fake.script(FakeReply.malformed("record_claim_checks"), agent="metareview", mode="claim_check", times=3)
    _, result = await run_task("metareview", "GenerateFinalResearchOverview", "final")
    assert len(fake.calls_for("metareview", "claim_check")) >= 1 and result.detail["claims_unchecked"] == 2
    (event,) = planned.store.logs.events("overview_checked")
    run = event["payload"]["support_check"]
    assert (run["calls"], run["max_calls"], run["batch"]) == (1, 1, 1) and run["errors"][0].startswith("Truncated")
    notes = {c["support_note"] for c in event["payload"]["claims"]}
    assert any("call budget" in n for n in notes) and any("call failed" in n for n in notes)


async def test_a_disproved_leader_is_not_a_main_direction(planned: SessionRuntime, fake: FakeBackend, run_task,
                                                          players: list[str]) -> None:
    leader = players[0]
    planned.store.hypotheses.add_review(leader, review("disproved", leader, 9), task_id="T-late")
    _, result = await run_task("metareview", "GenerateFinalResearchOverview", "final")
    assert result.detail["caveat_ids"] == [leader]
    overview = planned.store.sessions.get().final_overview or ""
    main = overview.split("# Main research directions")[1].split("# Convergence")[0]
    assert leader not in main
    first = re.search(r"\[(H-[0-9a-f]{12})\]", main)
    assert first and first.group(1) == players[1]
    assert "- Reviews (from the session store): " in main and "missing_piece (novelty 0.70, correctness 0.60)" in main
    assert f"fell by 41 percent in blasts [{players[1]}] [S3]." in main  # a verified source, cited by label
    assert result.detail["claims_untraceable"] == 0
    (call, *_) = fake.calls_for("metareview", "final")
    caveats = call.prompt.split("## Hypotheses for the caveats only")[1]
    assert f'<hypothesis_text id="{leader}"' in caveats and "disproved" in caveats
    assert "| disproved (novelty 0.70, correctness 0.60) |" in overview  # the leaderboard keeps it, marked


async def test_the_fallback_overview_keeps_a_disproved_leader_under_caveats(planned: SessionRuntime,
                                                                             fake: FakeBackend, run_task,
                                                                             players: list[str]) -> None:
    leader = players[0]
    planned.store.hypotheses.add_review(leader, review("already_explained", leader, 9), task_id="T-late")
    fake.script(FakeReply(fault="bad_request"), agent="metareview", mode="final")
    _, result = await run_task("metareview", "GenerateFinalResearchOverview", "final")
    overview = planned.store.sessions.get().final_overview or ""
    main, rest = overview.split("# Main research directions")[1].split("# Convergence")
    assert result.detail["fallback"] is True and leader not in main
    assert f"Not a main direction: {planned.store.hypotheses.get(leader).title} [{leader}]" in rest
    assert result.detail["claims_untraceable"] == 0 and result.detail["claims_total"] > 0
    # the fallback's claim lines cite their hypothesis's verified sources, so the support check judges them
    assert f"[{players[1]}] [S" in main and fake.calls_for("metareview", "claim_check")


async def test_the_audit_runs_on_another_model_and_is_appended(planned: SessionRuntime, fake: FakeBackend,
                                                               run_task, players: list[str]) -> None:
    _, result = await run_task("metareview", "GenerateFinalResearchOverview", "final")
    (audit,) = fake.calls_for("metareview", "audit")
    writer, *_ = fake.calls_for("metareview", "final")
    assert audit.model == "cosci-fake/cheap" and writer.model == "cosci-fake/strong"
    assert audit.tool_choice == {"type": "function", "function": {"name": "record_audit"}}
    assert '<untrusted_source id="overview"' in audit.prompt
    overview = planned.store.sessions.get().final_overview or ""
    assert "\n# Audit\n" in overview and "Independent audit by cosci-fake/cheap" in overview
    assert result.detail["audit_score"] is not None
    # the audit never rewrites the overview: everything above it is what the writer's check produced
    assert overview.index("# Appendix: leaderboard") < overview.index("# Audit")


@pytest.mark.overrides("agents.metareview.modes.audit.tier=strong")
async def test_the_audit_moves_off_the_writers_model_when_the_config_allows(planned: SessionRuntime,
                                                                            fake: FakeBackend, run_task,
                                                                            players: list[str]) -> None:
    await run_task("metareview", "GenerateFinalResearchOverview", "final")
    (audit,) = fake.calls_for("metareview", "audit")
    assert audit.model != "cosci-fake/strong"


async def test_a_failed_audit_is_reported_and_never_stops_the_overview(planned: SessionRuntime,
                                                                       fake: FakeBackend, run_task,
                                                                       players: list[str]) -> None:
    fake.script(FakeReply.malformed("record_audit"), agent="metareview", mode="audit", times=3)
    _, result = await run_task("metareview", "GenerateFinalResearchOverview", "final")
    overview = planned.store.sessions.get().final_overview or ""
    assert result.kind == "final_overview_generated" and result.detail["audit_score"] is None
    assert "# Audit" in overview and "The audit could not be completed (unchecked): TruncatedArguments" in overview
    (event,) = planned.store.logs.events("overview_checked")
    assert event["payload"]["audit"]["status"] == "unchecked"


async def test_an_embedded_models_support_verdicts_are_notes_and_its_claims_unchecked(
        planned: SessionRuntime, fake: FakeBackend, run_task, players: list[str],
        monkeypatch: pytest.MonkeyPatch) -> None:
    """A schema-constrained route (the embedded model) answers "supported" with a real quote: it is kept in the
    note, and the claim stays unchecked (``metareview.claim_check_constrained_verdicts`` is false by default)."""
    from dataclasses import replace

    from cosci.llm.gateway.routing import Router

    route = Router.route

    def constrained(self, agent, mode, tier=None):  # type: ignore[no-untyped-def]
        r = route(self, agent, mode, tier)
        return replace(r, constrained=True) if (agent, mode) == ("metareview", "claim_check") else r

    monkeypatch.setattr(Router, "route", constrained)
    h0 = players[0]
    fake.script(FakeReply(text=overview_with(f"- Metformin inhibits complex I in leukemic stem cells [{h0}] [S1].")),
                agent="metareview", mode="final")
    fake.script(FakeReply.record("record_claim_checks", c1=verdict("supported")), agent="metareview",
                mode="claim_check")
    _, result = await run_task("metareview", "GenerateFinalResearchOverview", "final")
    assert (result.detail["claims_supported"], result.detail["claims_unchecked"]) == (0, 1)
    (claim,) = planned.store.logs.events("overview_checked")[0]["payload"]["claims"]
    assert claim["support_note"].startswith("cosci-fake/cheap answered supported (not counted")
    assert "[unchecked]" in (planned.store.sessions.get().final_overview or "")
