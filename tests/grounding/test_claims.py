"""Issue 14: the deterministic claim check of the overview (no LLM)."""

from __future__ import annotations

from cosci.grounding.claims import (
    CitableSource,
    ClaimContext,
    check_overview,
    claims_in,
    mark_unsupported,
    totals,
)

H1, H2, H3 = "H-aaaaaaaaaaaa", "H-bbbbbbbbbbbb", "H-cccccccccccc"
CTX = ClaimContext(
    hypotheses={H1: "Metformin inhibits complex I; colony formation fell by 40 % at 10 uM in MOLM-13 cells.",
                H2: "Itraconazole blocks SMO to sensitise relapsed blasts.",
                H3: "Valproate restores differentiation."},
    verdicts={H1: "missing_piece", H3: "disproved"},
    sources={"S1": CitableSource("S1", "PMID:1", "https://pubmed.ncbi.nlm.nih.gov/1/", "Complex I in AML",
                                 "OXPHOS dependence of TP53-mutant leukemic stem cells", {H1})},
    entities={"metformin", "itraconazole", "valproate", "ciprofloxacin"})


def overview(*lines: str) -> str:
    return "# Executive summary\nNot checked 99.\n\n# Main research directions\n## One\n" + "\n".join(lines) + \
        "\n\n# Caveats and limitations\nNot checked either.\n"


def test_each_kind_of_failure_is_named() -> None:
    text = overview(
        f"- Metformin reduced colony formation by 40 % in MOLM-13 cells [{H1}].",
        f"- The OXPHOS dependence is strongest in TP53-mutant stem cells [{H1}] [S1].",
        "- A hypothesis nobody generated looks promising today [H-000000000000].",
        f"- Itraconazole is supported by the complex I literature [{H2}] [S1].",
        f"- Metformin cut colony formation by 95 % in MOLM-13 cells [{H1}].",
        f"- Metformin works best together with ciprofloxacin here [{H1}].",
        f"- Valproate restores differentiation of blasts in vitro [{H3}].",
        "- This sentence cites no hypothesis at all anywhere.")
    claims = check_overview(text, CTX)
    assert [c.problems for c in claims] == [
        [], [],
        ["unknown hypothesis id H-000000000000"],
        ["source S1 is not a verified source of the hypotheses this sentence cites"],
        ["'95 %' is not in the cited record text"],
        ["'ciprofloxacin' is not in the cited record text"],
        [f"{H3}'s latest review verdict is disproved: not a main direction"],
        ["cites no hypothesis"]]
    assert totals(claims) == {"claims_total": 8, "claims_supported": 2, "claims_unsupported": 6}


def test_sentences_inherit_their_lines_ids_and_marks_land_on_each_occurrence() -> None:
    line = f"- Metformin inhibits complex I in leukemic cells. Colony formation fell by 40 % at 10 uM in cells [{H1}]."
    text = overview(line, line.replace("40 %", "50 %"))
    assert [ids for _, ids, _ in claims_in(text)] == [[H1]] * 4
    claims = check_overview(text, CTX)
    marked = mark_unsupported(text, claims)
    assert marked.count("[unsupported]") == 1
    assert f"fell by 50 % at 10 uM in cells [{H1}]. [unsupported]" in marked
    assert "Not checked 99." in marked  # the executive summary is not a claim
