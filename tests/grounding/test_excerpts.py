"""Issue 14: excerpt matching — verbatim (after normalisation) or within a small edit distance, never a
paraphrase, an invention or a too-short quote."""

from __future__ import annotations

import pytest

from cosci.grounding.excerpts import FUZZY_THRESHOLD, excerpt_found, excerpt_score, normalise

TEXT = ("Disulfiram/copper depletes ALDH-high leukaemic stem cells. Colony formation of primary blasts fell by "
        "80 % at 0.5 \u00b5M disulfiram with copper, while CD34+ cord-blood progenitors were spared "
        "(\u201cno toxicity at therapeutic doses\u201d). Anti-\ntumour activity was confirmed in mice.")


def test_normalise_quotes_hyphens_case_and_space() -> None:
    curly = "\u201cNo  Toxicity\u201d at anti\u2010tumour doses."
    assert normalise(curly) == normalise('"no toxicity" at antitumour doses')
    assert normalise("  Mice \u2014 treated. ") == "mice treated"
    assert normalise("anti- tumour") == normalise("antitumour") == normalise("Anti-Tumour")


@pytest.mark.parametrize("excerpt", [
    "Colony formation of primary blasts fell by 80 % at 0.5 \u00b5M disulfiram",  # verbatim
    "colony formation of primary blasts   fell by 80 %",  # case and spacing
    '"no toxicity at therapeutic doses"',  # straight quotes for curly ones
    "Antitumour activity was confirmed in mice",  # hyphenation across a line break
    "Colony formation of primary blast fell by 80 % at 0.5 \u00b5M disulfiram",  # one letter dropped
])
def test_copied_excerpts_are_found(excerpt: str) -> None:
    assert excerpt_found(excerpt, TEXT), excerpt_score(excerpt, TEXT)


@pytest.mark.parametrize("excerpt", [
    "Blast colonies dropped sharply when disulfiram was combined with copper",  # paraphrase
    "Disulfiram doubled overall survival in a phase 3 trial of elderly patients",  # invented
    "fell by 80",  # too short to prove anything
    "",
])
def test_paraphrased_invented_or_short_excerpts_are_not(excerpt: str) -> None:
    assert excerpt_score(excerpt, TEXT) < FUZZY_THRESHOLD
    assert not excerpt_found(excerpt, TEXT)
