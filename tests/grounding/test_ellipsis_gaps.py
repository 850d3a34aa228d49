"""What an ellipsis leaves out is checked like the excerpt itself (docs/design.md#excerpt-verification): a gap of
any length holding a negation, hedge, qualifying number or contrast marker is a misquote naming the class; a
splice of two sentences and a quote cut just after its negation are too; parentheticals, citations, list items,
adjectives and idioms may be left out. Sources are real abstracts of tests/data/excerpts/sources.jsonl."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from bench.grounding import bars, load, measure
from cosci.grounding.excerpts import check_excerpt

DATA = Path(__file__).resolve().parents[1] / "data" / "excerpts"
SOURCES = {s["id"]: s["text"] for s in map(json.loads, (DATA / "sources.jsonl").read_text("utf-8").splitlines())}


@pytest.mark.parametrize(("source", "excerpt", "skipped"), [
    # a long gap (11 words) holding "do not": refused whatever its length
    ("europepmc-3", "These can cause severe suffering even ... disorder.", "negation"),
    ("europepmc-3", "These can cause severe suffering even if they ... meet the diagnostic criteria", "negation"),
    ("europepmc-4", "62% of discontinuations occurred ... any documented progression", "negation"),
    ("clinicaltrials-2", "However patients with other localized MSI/dMMR tumors … included.", "hedge"),
    ("europepmc-4", "rationale for the discontinuations. The ... incomplete reporting of reasons", "hedge"),
    ("europepmc-4", "we studied the course of ... patients under 60 years of age", "number"),
    ("europepmc-4", "After a diagnosis of prostate cancer, the ... cancer-specific survival probability is high",
     "number"),
    ("pubmed-0", "the after-activation motility profile confirmed a consistent drop from fresh at the prefreezing "
                 "[...] freezing and thawing did not affect the motility much further", "contrast"),
    ("europepmc-3", "The most common mental disorders in cancer patients are [...] 20% to 50%.", "splice"),
])
def test_a_gap_hiding_meaning_is_a_misquote_naming_what_it_hides(source: str, excerpt: str, skipped: str) -> None:
    verdict = check_excerpt(excerpt, SOURCES[source])
    assert not verdict.verified and verdict.kind == "skip" and verdict.skipped == skipped, verdict
    assert skipped in verdict.reason or skipped == "splice"


def test_a_negation_kept_elsewhere_does_not_restore_the_one_left_out() -> None:
    text = "Treatment with venetoclax did not increase overall survival and did not reduce relapse in this cohort."
    verdict = check_excerpt("Treatment with venetoclax ... increase overall survival and did not reduce relapse",
                            text)
    assert not verdict.verified and verdict.skipped == "negation", verdict


def test_a_quote_cut_just_after_its_negation_is_refused() -> None:
    text = SOURCES["europepmc-3"]
    verdict = check_excerpt("meet the diagnostic criteria for any particular mental disorder", text)
    assert not verdict.verified and verdict.skipped == "negation", verdict
    assert check_excerpt("they do not meet the diagnostic criteria for any particular mental disorder", text).verified


@pytest.mark.parametrize(("source", "excerpt"), [
    # a parenthetical holding numbers and a dose statistic, a parenthetical abbreviation
    ("europepmc-4", "732 patients under 60 years of age who were in active surveillance after receiving a diagnosis "
                    "of low-risk localized prostate cancer ... in the years 2016-2021"),
    ("clinicaltrials-2", "We hypothesize that immune checkpoint inhibitors ... will benefit to MSI/dMMR tumors"),
    # list items, an adjective
    ("europepmc-3", "The most common mental disorders in cancer patients are anxiety disorders, ... and adjustment "
                    "disorders."),
    ("europepmc-3", "Patients with cancer suffer from cancer- and treatment-specific, ... and care-related stress"),
    ("europepmc-3", "Common disease-associated psychological symptoms include distress ... demoralization"),
    # whole sentences left out between two whole sentences
    ("europepmc-3", "The empirical evidence for psychopharmacotherapy in cancer patients is limited. ... Conclusion "
                    "A large body of evidence shows"),
])
def test_meaning_preserving_ellipses_verify(source: str, excerpt: str) -> None:
    assert check_excerpt(excerpt, SOURCES[source]).verified, check_excerpt(excerpt, SOURCES[source])


@pytest.mark.parametrize(("text", "excerpt"), [
    ("Interleukins IL-6, IL-8 and TNF-alpha were elevated in 40% of patients.",
     "Interleukins IL-6, ... TNF-alpha were elevated in 40% of patients."),
    ("The drug not only reduced tumour growth but also improved survival in mice.",
     "The drug not only reduced tumour growth ... improved survival in mice."),
    ("A rapid, non-invasive and inexpensive test detected the infection in mice.",
     "A rapid, ... and inexpensive test detected the infection in mice."),
    ("Disulfiram lowered viability (Smith et al., 2019; n = 12; P < 0.01) in AML blasts.",
     "Disulfiram lowered viability ... in AML blasts."),
])
def test_names_idioms_and_brackets_are_no_meaning(text: str, excerpt: str) -> None:
    assert check_excerpt(excerpt, text).verified, check_excerpt(excerpt, text)


@pytest.mark.parametrize(("text", "excerpt", "skipped"), [
    ("The drug lowered glucose in non-responders to metformin.", "The drug lowered glucose in ... responders to "
                                                                 "metformin.", "negation"),
    ("Changes were nonsignificant in the treated group of mice.", "Changes were ... in the treated group of mice.",
     "negation"),
    ("The compound reduced the viability of blasts at 10 uM in culture.",
     "The compound reduced the viability of blasts ... in culture.", "number"),
    ("The compound reduced viability, although the effect was small in mice.",
     "The compound reduced viability, ... the effect was small in mice.", "contrast"),
])
def test_prefixes_doses_and_contrasts_left_out_are_refused(text: str, excerpt: str, skipped: str) -> None:
    verdict = check_excerpt(excerpt, text)
    assert not verdict.verified and verdict.skipped == skipped, verdict


def test_the_labelled_ellipsis_rows_meet_the_bars() -> None:
    rows = load(DATA / "ellipsis.jsonl", None, "all")
    kinds, overall, _wrong, _seconds = measure(rows)
    assert len(rows) > 1000 and bars(kinds, overall) == []
    assert kinds["ellipsis_negation"].verified == 0 and kinds["ellipsis_negation"].rows >= 50
    edges = [r for r in rows if r["id"].endswith(("/lead", "/trail"))]
    edge_kinds, _overall, _wrong, _seconds = measure(edges)
    assert edge_kinds["ellipsis_negation"].rows >= 50 and edge_kinds["ellipsis_negation"].verified == 0
    assert all(edge_kinds[k].verified == 0 for k in ("ellipsis_hedge", "ellipsis_number", "ellipsis_contrast"))
    assert (edge_kinds["ellipsis_plain"].recall or 0) >= 0.98


@pytest.mark.parametrize(("source", "excerpt", "skipped"), [
    # an opening mark over the sentence's start: "These can cause severe suffering even if they do not"
    ("europepmc-3", "... meet the diagnostic criteria for any particular mental disorder.", "negation"),
    ("europepmc-4", "[...] information concerning the clinical rationale for the discontinuations.", "negation"),
    ("fulltextxml_PMC13244564-2", "(...) control (HbA1c levels), duration of diabetes, and severity of diabetic "
                                  "autonomic neuropathy.", "negation"),
    # a closing mark over the sentence's end: "... received no information concerning ..."
    ("europepmc-4", "The cancer registries mostly received [...]", "negation"),
    ("europepmc-3", "These can cause severe suffering even if they do …", "negation"),
])
def test_an_ellipsis_opening_or_closing_the_quote_skips_the_rest_of_its_sentence(source: str, excerpt: str,
                                                                                skipped: str) -> None:
    verdict = check_excerpt(excerpt, SOURCES[source])
    assert not verdict.verified and verdict.skipped == skipped, verdict
    assert "before the quote" in verdict.reason or "after the quote" in verdict.reason


@pytest.mark.parametrize(("text", "excerpt", "verified"), [
    ("No significant difference in overall survival was found between the two arms.",
     "... in overall survival was found between the two arms.", False),
    ("Without venetoclax, the elderly mice died within five days of engraftment.",
     "... the elderly mice died within five days of engraftment.", False),
    ("Venetoclax increased overall survival in mice but not in the elderly patients.",
     "Venetoclax increased overall survival in mice ...", False),
    ("Venetoclax increased overall survival in mice (Smith et al., 2019) in the long term.",
     "Venetoclax increased overall survival in mice ...", True),
    ("In the elderly cohort, venetoclax increased overall survival in mice.",
     "… venetoclax increased overall survival in mice.", True),
])
def test_edge_gaps_are_checked_like_inner_ones(text: str, excerpt: str, verified: bool) -> None:
    assert check_excerpt(excerpt, text).verified is verified, check_excerpt(excerpt, text)


@pytest.mark.parametrize("gap", ["showed an inability to", "rarely", "seldom", "had little effect to"])
def test_negative_adverbs_and_absence_words_in_a_gap_are_negations(gap: str) -> None:
    text = f"Treatment with venetoclax in this elderly cohort {gap} increase overall survival."
    verdict = check_excerpt("Treatment with venetoclax in this elderly cohort ... increase overall survival.", text)
    assert not verdict.verified and verdict.skipped == "negation", verdict


def test_a_quote_cut_just_after_a_hedging_adverb_is_refused() -> None:
    text = SOURCES["europepmc-4"]
    verdict = check_excerpt("The incomplete reporting of reasons for discontinuing active surveillance suggests "
                            "that clinical reporting practices should be improved.", text)
    assert not verdict.verified and verdict.skipped == "hedge" and "potentially" in verdict.reason, verdict


def test_the_not_of_not_only_is_never_excused_in_a_gap_but_a_quote_may_start_after_it() -> None:
    text = "The drug not only reduced tumour growth but also improved survival in mice."
    verdict = check_excerpt("The drug ... reduced tumour growth but also improved survival", text)
    assert not verdict.verified and verdict.skipped == "negation", verdict
    assert check_excerpt("reduced tumour growth but also improved survival in mice", text).verified
