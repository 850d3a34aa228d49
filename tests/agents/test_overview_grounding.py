"""Issue 14, the final overview: claims checked against the record (one repair, then ``[unsupported]``),
``final/claims.json``, verdict-aware directions, and the independent audit on another model."""

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


async def test_failing_claims_get_one_repair_then_are_marked_and_counted(planned: SessionRuntime,
                                                                         fake: FakeBackend, run_task,
                                                                         players: list[str]) -> None:
    h0, h1, _ = players
    good = f"- Metformin inhibits complex I in leukemic stem cells [{h0}] [S1]."
    unknown = "- Metformin depletes leukemic stem cells in every patient [H-0123456789ab]."
    foreign = f"- Itraconazole sensitises relapsed blasts to cytarabine [{h1}] [S1]."
    number = f"- Complex I activity fell by 95 percent in blasts [{h0}] [S1]."
    fake.script(FakeReply(text=overview_with(good, unknown, foreign, number)), agent="metareview", mode="final")
    fixed = f"- Itraconazole sensitises relapsed blasts to cytarabine [{h1}] [S2]."
    fake.script(FakeReply(text=overview_with(good, fixed, number)), agent="metareview", mode="final")
    _, result = await run_task("metareview", "GenerateFinalResearchOverview", "final")

    writer, repair = fake.calls_for("metareview", "final")  # exactly one repair call
    assert repair.action == "GenerateFinalResearchOverview/repair"
    for problem in ("unknown hypothesis id H-0123456789ab", "source S1 is not a verified source",
                    "'95' is not in the cited record text"):
        assert problem in repair.prompt, problem
    assert "[S1] " in writer.prompt and "complex I activity fell by 40 percent" in writer.prompt

    overview = planned.store.sessions.get().final_overview or ""
    assert "- Complex I activity fell by 95 percent in blasts" in overview
    assert re.search(r"fell by 95 percent in blasts \[H-[0-9a-f]{12}\] \[S1\]\. \[unsupported\]", overview)
    assert f"{good}\n{fixed}\n" in overview  # supported claims are left as written
    assert (result.detail["claims_total"], result.detail["claims_unsupported"]) == (3, 1)

    path = planned.write_overview(overview)
    claims = json.loads((path.parent / "claims.json").read_text())
    assert (claims["claims_total"], claims["claims_supported"], claims["claims_unsupported"]) == (3, 2, 1)
    bad = [c for c in claims["claims"] if c["status"] == "unsupported"]
    assert len(bad) == 1 and bad[0]["hypothesis_ids"] == [h0] and bad[0]["sources"][0]["source_id"] == "PMID:5550"
    assert claims["repaired"] is True and claims["audit"]["overall_score"] is not None


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
    assert result.detail["claims_unsupported"] == 0
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
    assert result.detail["claims_unsupported"] == 0 and result.detail["claims_total"] > 0


async def test_the_audit_runs_on_another_model_and_is_appended(planned: SessionRuntime, fake: FakeBackend,
                                                               run_task, players: list[str]) -> None:
    _, result = await run_task("metareview", "GenerateFinalResearchOverview", "final")
    (audit,) = fake.calls_for("metareview", "audit")
    (writer,) = fake.calls_for("metareview", "final")
    assert audit.model == "cosci-fake/cheap" and writer.model == "cosci-fake/strong"
    assert audit.tool_choice == {"type": "function", "function": {"name": "record_audit"}}
    assert "## Claim map" in audit.prompt and '<untrusted_source id="overview"' in audit.prompt
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
    assert "# Audit" in overview and "The audit could not be completed: TruncatedArguments" in overview
