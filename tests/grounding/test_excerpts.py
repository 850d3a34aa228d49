"""Excerpt verification respects meaning-bearing tokens: a changed number, direction, negation, entity, unit or
hedge is never verified, whatever the character score; presentation differences always are."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from cosci.grounding.excerpts import check_excerpt, excerpt_found
from cosci.grounding.tokens import normalise

SOURCE = ("In this cohort, metformin reduced the colony formation of AML blasts by 40 percent compared with vehicle "
          "controls.")
TEXT = ("Disulfiram/copper depletes ALDH-high leukaemic stem cells. Colony formation of primary blasts fell by "
        "80 % at 0.5 \u00b5M disulfiram with copper, while CD34+ cord-blood progenitors were spared "
        "(\u201cno toxicity at therapeutic doses\u201d)[12]. Anti-\ntumour activity was confirmed in mice; "
        "the IC50 was \u22122.3 log units lower (p < 0.001) after 24\u201348 h.")
DATA = Path(__file__).resolve().parents[1] / "data" / "excerpts"


@pytest.mark.parametrize(("excerpt", "kind"), [
    ("metformin reduced the colony formation of AML blasts by 90 percent compared with vehicle controls", "number"),
    ("metformin increased the colony formation of AML blasts by 40 percent compared with vehicle controls",
     "direction"),
    ("metformin reduced the colony formation of AML stem cells by 40 percent compared with vehicle controls",
     "wording"),
])
def test_the_three_misquotes_of_the_specification_are_not_verified(excerpt: str, kind: str) -> None:
    verdict = check_excerpt(excerpt, SOURCE)
    assert not verdict.verified and verdict.kind == kind, verdict
    assert verdict.score >= 80  # close by edit distance, still a different claim


def test_a_swapped_entity_is_named_as_one_with_the_session_vocabulary() -> None:
    verdict = check_excerpt("metformin reduced the colony formation of AML stem cells by 40 percent", SOURCE,
                            frozenset({"stem cells", "stem"}))
    assert verdict.kind == "entity" and "blasts" in verdict.reason


@pytest.mark.parametrize("excerpt", [
    "Colony formation of primary blasts fell by 80 % at 0.5 \u00b5M disulfiram",  # verbatim
    "colony formation of primary BLASTS   fell by 80\u00a0per cent at 0.5 uM disulfiram",  # case, space, units
    '"no toxicity at therapeutic doses" [12]',  # straight quotes, a trailing citation marker
    "Antitumor activity was confirmed in mice",  # line-break hyphenation, American spelling
    "Disulfiram/copper depletes ALDH-high leukemic stem cells",  # spelling
    "Colony formation of primary blasts fell by 80 % at 0.5 \u00b5M disulfiram ... while CD34+ cord-blood "
    "progenitors were spared",  # an ellipsis leaving out "with copper,"
    "the IC50 was -2.3 log units lower (p < 0.001) after 24-48 h",  # the minus sign and the en dash as ASCII
    "Colony formation of primary blasts fell by 80 % at 0.5 \u00b5M disulfi\u00adram",  # a soft hyphen
])
def test_presentation_differences_are_verified(excerpt: str) -> None:
    assert excerpt_found(excerpt, TEXT), check_excerpt(excerpt, TEXT)


@pytest.mark.parametrize(("excerpt", "kind"), [
    ("the IC50 was 2.3 log units lower (p < 0.001) after 24-48 h", "sign"),  # the minus dropped
    ("the IC50 was -2.3 log units lower (p < 0.01) after 24-48 h", "number"),  # a p-value
    ("the IC50 was -2.3 log units lower (p > 0.001) after 24-48 h", "sign"),  # the comparator
    ("the IC50 was -2.3 log units lower (p < 0.001) after 24-72 h", "number"),  # a range
    ("the IC50 was -2.3 log units higher (p < 0.001) after 24-48 h", "direction"),
    ("Colony formation of primary blasts fell by 80 % at 0.5 mM disulfiram", "unit"),
    ("Colony formation of primary blasts did not fall by 80 %", "negation"),
    ("while CD34+ cord-blood progenitors were not spared", "negation"),
    ("while CD34- cord-blood progenitors were spared", "sign"),
    ("progenitors were spared (... toxicity at therapeutic doses)", "skip"),  # an ellipsis cutting out "no"
    ("Colony formation of primary blasts fell ... while CD34+ cord-blood progenitors were spared", "skip"),  # dose
    ("Disulfiram doubled overall survival in a phase 3 trial of elderly patients", "absent"),
    ("fell by 80", "short"),
    ("", "short"),
])
def test_meaning_changes_are_not_verified_and_are_named(excerpt: str, kind: str) -> None:
    verdict = check_excerpt(excerpt, TEXT)
    assert not verdict.verified and verdict.kind == kind, verdict


def test_normalise_makes_presentation_uniform() -> None:
    curly = "\u201cNo  Toxicity\u201d at anti\u2010tumour doses."
    assert normalise(curly) == normalise('"no toxicity" at anti-tumor doses')
    assert normalise("TNF-\u03b1, 10\u2075 cells, \ufb01bre") == normalise("TNF-alpha, 10^5 cells, fiber")
    assert normalise("1-10") == "1 - 10" != normalise("110")


def test_every_hand_written_row_of_the_labelled_set_gets_its_label() -> None:
    sources = {s["id"]: s["text"] for s in map(json.loads, (DATA / "sources.jsonl").read_text("utf-8").splitlines())}
    rows = [json.loads(line) for line in (DATA / "hand.jsonl").read_text("utf-8").splitlines()]
    wrong = [r["id"] for r in rows
             if excerpt_found(r["excerpt"], r.get("source_text") or sources[r["source"]]) != (r["label"] == "verify")]
    assert len(rows) >= 150 and wrong == []
