"""Which language a screened text is in, and whether the offline screen reads it (docs/design.md#safety-language).

The offline screen reads intent through a multilingual embedding (:mod:`cosci.safety.intent`); it *reads* the
languages of :data:`READ` (the 20 most-spoken and the others its labelled set measures, bench/README.md). Every
other language is *unread*: the screen says so instead of scoring text it was never measured on.

Detection is lingua's (its n-gram models ship inside the wheel: nothing is downloaded), built once per process
from every language it knows, so an unread language is named rather than mistaken for a read one, in its
low-accuracy mode (trigrams only): its high-accuracy models took 162 s to load on the first Latin-script text on
this 2-core machine under load, the trigrams 5 s (bench/README.md). A short text naming Latin binomials
("Yersinia pestis ciprofloxacin trial") reads as Latin, Albanian or Tsonga to any n-gram detector, so binomials,
codes with digits (H5N1) and acronyms are left out of what is detected (:func:`detected_part`), and an unread
language is only believed from :data:`UNREAD_MIN_CONFIDENCE` over at least :data:`UNREAD_MIN_WORDS` words, and
not when the text uses two of a read Latin-script language's own function words (:data:`FUNCTION_WORDS`:
trigrams read "Role of cholera toxin in diarrhoea and oral rehydration response." as Latin); otherwise the text is
read as the likeliest read language (English for Latin script when none is likely).
A text whose letters are mostly of a script no read language uses (Ethiopic, Georgian, Khmer...) is unread
whatever lingua says.
"""

from __future__ import annotations

import re
import unicodedata
from collections import Counter
from dataclasses import dataclass
from functools import cache
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from lingua import LanguageDetector

READ = {"en": "English", "zh": "Chinese", "hi": "Hindi", "es": "Spanish", "fr": "French", "ar": "Arabic",
        "bn": "Bengali", "pt": "Portuguese", "ru": "Russian", "ur": "Urdu", "id": "Indonesian", "de": "German",
        "ja": "Japanese", "pa": "Punjabi", "mr": "Marathi", "te": "Telugu", "tr": "Turkish", "ta": "Tamil",
        "vi": "Vietnamese", "ko": "Korean", "it": "Italian", "fa": "Persian", "pl": "Polish", "sw": "Swahili",
        "th": "Thai", "el": "Greek", "he": "Hebrew", "nl": "Dutch", "ms": "Malay", "uk": "Ukrainian"}
"""ISO 639-1 code -> name of each language the screen reads (docs/design.md#safety-language)."""
READ_SCRIPTS = frozenset({"LATIN", "CJK", "HIRAGANA", "KATAKANA", "HANGUL", "ARABIC", "DEVANAGARI", "BENGALI",
                          "GURMUKHI", "TELUGU", "TAMIL", "THAI", "GREEK", "HEBREW", "CYRILLIC"})
"""Unicode script names (the first word of a letter's character name) of the read languages."""
UNREAD_MIN_CONFIDENCE = 0.8
"""lingua's confidence (0-1) from which an unread language is believed; below, the text is read."""
UNREAD_MIN_WORDS = 8
"""Words (after :func:`detected_part`) from which an unread language is believed: a shorter text is mostly names
and units, and lingua's trigrams read "antibody escape for vaccine design" as Sotho (0.92)."""
FUNCTION_WORDS = {
    "en": "the of and to in is for with from how what why can which there any my at by this that are on",
    "es": "el la los las de del que en por para con una como qué cómo es se su",
    "fr": "le la les des du de et est pour dans une avec comment quels quelles sur qui que",
    "pt": "o os as da do das dos que em para com uma como é não se",
    "de": "der die das und ist mit von für wie ein eine den dem nicht zu auf",
    "it": "il lo gli della delle di che per con una come è nel sono",
    "nl": "de het een van en is voor met hoe wat niet op te",
    "id": "yang dan di untuk dengan dari apa bagaimana ini itu pada bisa",
    "ms": "yang dan di untuk dengan dari apa bagaimana ini itu pada boleh",
    "tr": "ve bir bu için ile nasıl ne mi da de olarak",
    "pl": "i w z na jak do nie się czy jest oraz dla",
    "vi": "và của các cho trong là một những có không",
    "sw": "na ya wa kwa za la katika ni jinsi gani",
}
"""A few function words per read Latin-script language: two in a text outweigh trigrams that name an unread one."""
_FUNCTION = {code: frozenset(words.split()) for code, words in FUNCTION_WORDS.items()}
_WORD = re.compile(r"\w+")
_NAMES = re.compile(r"\b[A-Z][a-z]{2,}\.? [a-z]{3,}\b|\b\w*\d\w*\b|\b[A-Z]{2,}\w*\b|[\w-]*-[\w-]*\d[\w-]*")
"""Binomials ("Bacillus anthracis"; a capitalised word then a lower-case one, as "Improve stability" also is:
dropping those costs an English text little), words with digits (H5N1, Cs-137) and acronyms (MERS, SARS-CoV-2)."""


@dataclass(frozen=True)
class Reading:
    """The language of one text: ``code`` (ISO 639-1, or a script name when no language is known), ``name``,
    ``read`` (the screen reads it) and lingua's ``confidence`` (0-1)."""

    code: str
    name: str
    read: bool
    confidence: float

    def label(self) -> str:
        """``en`` for a read language, ``unread (Georgian)`` for an unread one."""
        return self.code if self.read else f"unread ({self.name})"


def _script(ch: str) -> str:
    name = unicodedata.name(ch, "")
    return "CJK" if name.startswith("CJK") else name.split(" ", 1)[0]


def dominant_script(text: str) -> str | None:
    """The Unicode script of most letters of ``text`` (None without letters)."""
    counts = Counter(_script(c) for c in text if c.isalpha())
    return counts.most_common(1)[0][0] if counts else None


@cache
def detector() -> LanguageDetector:
    """lingua's detector over every language it knows (models load lazily, per script met; once per process)."""
    from lingua import LanguageDetectorBuilder

    return LanguageDetectorBuilder.from_all_languages().with_low_accuracy_mode().build()


def detected_part(text: str) -> str:
    """``text`` without what reads as Latin to a detector in any language (:data:`_NAMES`)."""
    return re.sub(r"\s+", " ", _NAMES.sub(" ", text)).strip()


def read_language(text: str) -> Reading:
    """The language of ``text`` and whether the screen reads it (see the module docstring for the rules).

    An empty or letterless text reads as English (there is nothing to misread).
    """
    script = dominant_script(text)
    if script is None:
        return Reading("en", READ["en"], True, 0.0)
    if script not in READ_SCRIPTS:
        return Reading(script.lower(), f"{script.title()} script", False, 1.0)
    part = detected_part(text)
    values = detector().compute_language_confidence_values(part) if part else []
    if not values:
        return Reading("en", READ["en"], True, 0.0)
    top = values[0]
    code = top.language.iso_code_639_1.name.lower()
    if code in READ:
        return Reading(code, READ[code], True, top.value)
    # function words are counted on the whole text: the binomial pattern also drops a sentence's opening pair
    words = {w.lower() for w in _WORD.findall(text)}
    own = max(_FUNCTION, key=lambda c: len(_FUNCTION[c] & words))
    if len(_FUNCTION[own] & words) >= 2:
        return Reading(own, READ[own], True, top.value)
    if top.value >= UNREAD_MIN_CONFIDENCE and len(_WORD.findall(part)) >= UNREAD_MIN_WORDS:
        return Reading(code, top.language.name.title(), False, top.value)
    best = next((v for v in values if v.language.iso_code_639_1.name.lower() in READ and v.value > 0), None)
    if best is None or (script == "LATIN" and best.value < 0.05):
        return Reading("en", READ["en"], True, 0.0)
    best_code = best.language.iso_code_639_1.name.lower()
    return Reading(best_code, READ[best_code], True, best.value)
