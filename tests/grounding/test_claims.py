"""The overview's claims: traced (deterministic), guarded against overclaiming (a word list), support-checked
(answers scripted here, right and wrong), and given the status word that says what was checked."""

from __future__ import annotations

import pytest

from cosci.grounding.claims import (
    CitableSource,
    ClaimContext,
    check_overview,
    claims_in,
    mark_statuses,
    totals,
    unmarked,
)
from cosci.grounding.guards import load_guards
from cosci.grounding.support import agreement, apply, items
from cosci.records import ClaimVerdict

H1, H2, H3 = "H-aaaaaaaaaaaa", "H-bbbbbbbbbbbb", "H-cccccccccccc"
EXCERPT = "colony formation of MOLM-13 cells fell by 40 % at 10 uM metformin"
SOURCE_TEXT = (f"Metformin inhibits mitochondrial complex I. In this study, {EXCERPT}, while normal CD34+ "
               "progenitors were spared.")
CTX = ClaimContext(
    hypotheses={H1: "Metformin inhibits complex I; colony formation fell by 40 % at 10 uM in MOLM-13 cells.",
                H2: "Itraconazole blocks SMO to sensitise relapsed blasts.",
                H3: "Valproate restores differentiation."},
    verdicts={H1: "missing_piece", H3: "disproved"},
    sources={"S1": CitableSource("S1", "PMID:1", "https://pubmed.ncbi.nlm.nih.gov/1/", "Complex I in AML",
                                 SOURCE_TEXT, {H1}, [EXCERPT]),
             "S2": CitableSource("S2", "NCT01234567", "https://clinicaltrials.gov/study/NCT01234567",
                                 "A randomized phase 2 trial of metformin in AML", "Patients received metformin.",
                                 {H1}, [], tool="clinical_trials_search")},
    entities={"metformin", "itraconazole", "valproate", "ciprofloxacin"})
GUARDS = load_guards("overclaim_terms.yaml")


def overview(*lines: str, summary: str = "A summary sentence that cites nothing at all here.") -> str:
    return (f"# Executive summary\n{summary}\n\n# Main research directions\n## One\n" + "\n".join(lines)
            + "\n\n# Caveats and limitations\nNot checked 99.\n")


def test_each_kind_of_trace_failure_is_named() -> None:
    text = overview(
        f"- Metformin reduced colony formation by 40 % in MOLM-13 cells [{H1}].",
        f"- The complex I dependence is strongest in MOLM-13 cells [{H1}] [S1].",
        "- A hypothesis nobody generated looks promising today [H-000000000000].",
        f"- Itraconazole is supported by the complex I literature [{H2}] [S1].",
        f"- Metformin cut colony formation by 95 % in MOLM-13 cells [{H1}].",
        f"- Metformin works best together with ciprofloxacin here [{H1}].",
        f"- Valproate restores differentiation of blasts in vitro [{H3}].")
    claims = check_overview(text, CTX, GUARDS)
    assert [c.problems for c in claims] == [
        ["cites no hypothesis"], [], [],
        ["unknown hypothesis id H-000000000000"],
        ["source S1 is not a verified source of the hypotheses this sentence cites"],
        ["'95 %' is not in the cited record text"],
        ["'ciprofloxacin' is not in the cited record text"],
        [f"{H3}'s latest review verdict is disproved: not a main direction"]]
    assert [c.status for c in claims] == ["untraceable", "hypothesis_only", "unchecked", *["untraceable"] * 5]
    assert claims[0].section == "executive summary" and claims[1].section == "main research directions"
    assert totals(claims)["claims_untraceable"] == 6 and totals(claims)["claims_traceable"] == 2


def test_the_two_overclaims_of_the_specification_are_never_supported() -> None:
    text = overview(
        f"- This conclusively proves that the therapy cures patients and should enter clinical use now [{H1}].",
        f"- Metformin has been shown in randomized trials to eradicate the disease [{H1}].",
        f"- This conclusively proves that metformin cures MOLM-13 cells [{H1}] [S1].",
        f"- Metformin has been shown in randomized trials to reduce colony formation [{H1}] [S2].")
    claims = check_overview(text, CTX, GUARDS)
    assert claims[1].overclaim == ["proves", "conclusively", "cures", "should enter clinical use"]
    assert claims[2].overclaim == ["eradicate", "shown in randomized trials"]
    for i in (1, 2, 3):  # the support check answers "supported" with a real quote: still an overclaim
        if claims[i].checkable:
            apply(claims[i], items(claims, CTX)[0], ClaimVerdict(verdict="supported", excerpt=EXCERPT))
        assert claims[i].status == "overclaim", claims[i]
    assert claims[4].overclaim == [] and claims[4].status == "unchecked"  # the trial it cites allows the phrase


def test_a_sentence_citing_only_hypotheses_is_hypothesis_only() -> None:
    (claim,) = check_overview(overview(f"- Metformin inhibits complex I in MOLM-13 cells [{H1}]."), CTX,
                              GUARDS)[1:]
    assert (claim.trace, claim.sources, claim.status) == ("traceable", [], "hypothesis_only")
    assert not claim.checkable


@pytest.mark.parametrize(("verdict", "status"), [
    (ClaimVerdict(verdict="supported", excerpt=EXCERPT), "supported"),
    (ClaimVerdict(verdict="partially_supported", excerpt="In this study, " + EXCERPT), "partially_supported"),
    (ClaimVerdict(verdict="contradicted", excerpt="normal CD34+ progenitors were spared"), "contradicted"),
    (ClaimVerdict(verdict="not_supported", excerpt=""), "not_supported"),
    # a verdict resting on a quote that is not in the cited source is no verdict
    (ClaimVerdict(verdict="supported", excerpt="colony formation of MOLM-13 cells fell by 90 % at 10 uM"),
     "unchecked"),
    (ClaimVerdict(verdict="contradicted", excerpt=""), "unchecked"),
    (None, "unchecked"),
])
def test_the_support_checks_answer_becomes_the_status(verdict: ClaimVerdict | None, status: str) -> None:
    claims = check_overview(overview(f"- Colony formation of MOLM-13 cells fell by 40 % [{H1}] [S1]."), CTX, GUARDS)
    (item,) = items(claims, CTX)
    apply(claims[item.index], item, verdict, "the call failed")
    assert claims[item.index].status == status


def test_every_claim_is_marked_with_its_status_word_and_the_marks_can_be_removed() -> None:
    line = f"- Metformin inhibits complex I in MOLM-13 cells. Colony formation fell by 40 % at 10 uM [{H1}]."
    text = overview(line, line.replace("40 %", "50 %"))
    assert [ids for _, ids, _, _ in claims_in(text)][1:] == [[H1]] * 4
    marked = mark_statuses(text, check_overview(text, CTX, GUARDS))
    assert f"fell by 50 % at 10 uM [{H1}]. [untraceable]" in marked
    assert marked.count("[hypothesis_only]") == 3 and "at all here. [untraceable]" in marked
    assert "Not checked 99." in marked and unmarked(marked) == text


def test_agreement_with_the_audit_counts_only_the_claims_the_support_check_answered() -> None:
    lines = [f"- Colony formation of MOLM-13 cells fell by 40 % [{H1}] [S1].",
             f"- Metformin inhibits mitochondrial complex I in MOLM-13 cells [{H1}] [S1].",
             f"- Metformin inhibits complex I in MOLM-13 cells [{H1}]."]
    claims = check_overview(overview(*lines), CTX, GUARDS)
    first, second = items(claims, CTX)
    apply(claims[first.index], first, ClaimVerdict(verdict="supported", excerpt=EXCERPT))
    apply(claims[second.index], second, ClaimVerdict(verdict="contradicted", excerpt="normal CD34+ progenitors "
                                                                                         "were spared"))
    audit = [("Colony formation of MOLM-13 cells fell by 40 %", "stronger than the source"),
             ("Metformin inhibits complex I in MOLM-13 cells", "cites no source")]
    result = agreement(claims, audit)
    assert (result["compared"], result["agree"], result["share"]) == (2, 0, 0.0)
    assert [d["audit"] for d in result["disagreements"]] == ["flagged", "not flagged"]


def test_lines_cosci_writes_from_its_records_are_not_claims() -> None:
    from cosci.grounding.claims import STORE_NOTE, claims_in

    overview = ("# Executive summary\n"
                f"{STORE_NOTE} no model synthesis; the highest-ranked hypotheses are listed below [H-aaaaaaaaaaaa].\n\n"
                "# Main research directions\n## 1. Metformin [H-aaaaaaaaaaaa]\n"
                "- Claim: metformin lowers the colony formation of AML blasts [H-aaaaaaaaaaaa]\n"
                f"- {STORE_NOTE} Elo 1200 after 0 matches; mode literature. Latest review verdict: not reviewed. "
                "[H-aaaaaaaaaaaa]\n"
                "- Reviews (from the session store): [H-aaaaaaaaaaaa] missing_piece (novelty 0.70)\n")
    assert [c[0] for c in claims_in(overview)] == ["Claim: metformin lowers the colony formation of AML blasts "
                                                   "[H-aaaaaaaaaaaa]"]
