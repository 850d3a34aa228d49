"""lingua's full models (1- to 5-grams) over a few languages, where its trigrams over all of them misread a text
(docs/design.md#safety-language, "Romanised Russian and Ukrainian read in Cyrillic" and "A read language's short text
said unread").

:mod:`cosci.safety.language` detects with lingua's trigrams over every language it knows: its full models over all of
them took 162 s to load on this machine (bench/README.md). Over a handful of languages they load in 0.1-1.5 s each,
once per process, and only two kinds of text ask for them: a text typed in Latin letters written back in Cyrillic
(:func:`cyrillic_choice`) and a Latin-script text the trigrams call unread (:func:`full_choice`).
"""

from __future__ import annotations

import re
from functools import cache
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from lingua import LanguageDetector

UNREAD_CHECK_TOP = 5
"""lingua's likeliest languages on a text's trigrams among which its full models decide whether a Latin-script text
is in an unread language (:func:`cosci.safety.language._confirmed`)."""
DRUG_STEMS = re.compile(r"\b(?:\w{4,}(?:vir|cycline|ciclina|cyklina|quine|mycin|micina|azole|azol|cillin|cilina|"
                        r"floxacin|floxacino|mab|tinib|statin|sartan|olol|dipine|profen|fungin|penem)|cef\w{4,})\b",
                        re.IGNORECASE)
"""Drug names by their international nonproprietary name's stem (WHO's INN stems: "-vir" antivirals, "-cycline",
"-mycin", "-floxacin", "-azole", "-penem", "-mab", "cef-"...; with their Spanish, Portuguese and Polish endings;
four letters before a stem at least, so "servir" is no drug): like a binomial, a drug name reads as no language, and
"doxycycline plus hydroxychloroquine" made an 8-word Dutch question Yoruba to the trigrams."""
ROMANISED_MIN_CONFIDENCE = 0.6
"""lingua's confidence (0-1, among the Cyrillic Slavic languages: :func:`slavic_detector`) in Russian or Ukrainian,
its likeliest language there, on a text written back in Cyrillic from which that text is read as that language;
below, it stays unread ("Russian in Latin letters"): a Croatian text showing Russian's "gde" and "eto" is written
back as Russian at 0.42, a Serbian one as Serbian (0.65); Russian requests typed without the soft sign
("kak sdelat ...") read 0.63-1.0 (bench/README.md, twenty-fourth stop)."""
_SLAVIC = ("RUSSIAN", "UKRAINIAN", "BELARUSIAN", "BULGARIAN", "MACEDONIAN", "SERBIAN")


@cache
def full_detector(codes: frozenset[str]) -> LanguageDetector:
    """lingua's detector over the languages of ``codes`` (ISO 639-1, lower case; an unknown one KeyError) in its
    high-accuracy mode."""
    from lingua import IsoCode639_1, Language, LanguageDetectorBuilder

    return LanguageDetectorBuilder.from_languages(
        *(Language.from_iso_code_639_1(getattr(IsoCode639_1, c.upper())) for c in sorted(codes))).build()


def full_choice(part: str, codes: frozenset[str]) -> tuple[str, float]:
    """The language of ``codes`` lingua's full models find likeliest for ``part`` (a text without binomials, codes
    and drug names) and its confidence (0-1)."""
    top = full_detector(codes).compute_language_confidence_values(part)[0]
    return top.language.iso_code_639_1.name.lower(), top.value


@cache
def slavic_detector() -> LanguageDetector:
    """lingua's full models over the Cyrillic Slavic languages (Russian, Ukrainian, Belarusian, Bulgarian,
    Macedonian, Serbian; about 4 s to load, once per process, on the first romanised Russian or Ukrainian text): a
    text written back in Cyrillic from Latin letters holds no letter of another Cyrillic language, the detector over
    all languages reads Ukrainian's "і" as Kazakh ("дезінфекція палат після" as Kazakh at 1.0) and the trigrams
    alone a Ukrainian request as Macedonian at 1.0."""
    from lingua import Language, LanguageDetectorBuilder

    return LanguageDetectorBuilder.from_languages(*(getattr(Language, name) for name in _SLAVIC)).build()


def cyrillic_choice(part: str) -> tuple[str, float] | None:
    """For ``part`` (a text written back in Cyrillic, binomials and codes left out): ``ru`` or ``uk`` and lingua's
    confidence when that is :func:`slavic_detector`'s likeliest language at :data:`ROMANISED_MIN_CONFIDENCE` or more,
    ``sr`` likewise for Serbian; None otherwise."""
    values = slavic_detector().compute_language_confidence_values(part)
    if not values or values[0].value < ROMANISED_MIN_CONFIDENCE:
        return None
    best = values[0].language.iso_code_639_1.name.lower()
    return (best, values[0].value) if best in ("ru", "uk", "sr") else None
