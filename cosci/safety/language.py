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
read as the likeliest read language (English for Latin script when none is likely). Within a group of read
languages the detector confuses (Spanish and Portuguese, Hindi and Marathi, Arabic, Persian and Urdu, Indonesian and
Malay, Russian and Ukrainian) the language whose own function words and letters the text shows most is read
(:func:`closest`).
A text whose letters are mostly of a script no read language uses (Ethiopic, Georgian, Khmer...) is unread
whatever lingua says. A short Latin-script text showing a language's own letters or function words that lingua misses
(Czech, Romanian, Tagalog) more than another read language's function words is in that language (:func:`_by_cues`;
letters Slovak, Croatian or Hungarian share name lingua's unread language), and it is read as English by default only
when English function words or lingua's English say so (:func:`_likeliest_read`).
"""

from __future__ import annotations

import re
import unicodedata
from collections import Counter
from dataclasses import dataclass
from functools import cache
from typing import TYPE_CHECKING

from cosci.safety.language_close import CLOSE_NAMES, close_counts, close_reading
from cosci.safety.language_cues import (
    ENGLISH_ONLY,
    OWN_WORDS,
    cues,
    cyrillic_reading,
    english_only,
    folded,
    own_forms,
    shouted,
)
from cosci.safety.language_cues import FUNCTION as _FUNCTION
from cosci.safety.language_full import DRUG_STEMS, UNREAD_CHECK_TOP, cyrillic_choice, full_choice
from cosci.safety.romanised import IN_LATIN, READ_FORMS, form_name, own_words, romanised
from cosci.safety.transliteration import TABLES, to_cyrillic

if TYPE_CHECKING:
    from lingua import ConfidenceValue, LanguageDetector

READ = {"en": "English", "zh": "Chinese", "hi": "Hindi", "es": "Spanish", "fr": "French", "ar": "Arabic",
        "bn": "Bengali", "pt": "Portuguese", "ru": "Russian", "ur": "Urdu", "id": "Indonesian", "de": "German",
        "ja": "Japanese", "pa": "Punjabi", "mr": "Marathi", "te": "Telugu", "tr": "Turkish", "ta": "Tamil",
        "vi": "Vietnamese", "ko": "Korean", "it": "Italian", "fa": "Persian", "pl": "Polish", "sw": "Swahili",
        "th": "Thai", "el": "Greek", "he": "Hebrew", "nl": "Dutch", "ms": "Malay", "uk": "Ukrainian", "cs": "Czech",
        "ro": "Romanian", "sv": "Swedish", "tl": "Tagalog", "sk": "Slovak", "hr": "Croatian", "bs": "Bosnian",
        "da": "Danish", "nb": "Norwegian", "nn": "Norwegian", "fi": "Finnish", "hu": "Hungarian"}
"""ISO 639-1 code -> name of each language the screen reads (docs/design.md#safety-language). Czech, Romanian,
Swedish and Tagalog are read as the other Latin-script languages are (the embedding, the term lists, their actions
glossed): on the tuning rows in them the screen refuses 31 of 31 harmful requests and none of 51 benign goals, all
of which were refused as unread before (bench/README.md, "thirteenth stop, false refusals"). Slovak, Croatian (and
Bosnian, which lingua names for the same text), Danish and Norwegian by the same machinery, their actions glossed
beside Czech's and Swedish's (bench/README.md, "fourteenth stop, false refusals"); Finnish and Hungarian, their stems
glossed, since the fifteenth stop (25 of 25 harmful tuning requests, 2 of 53 benign refused: "unread languages")."""
READ_SCRIPTS = frozenset({"LATIN", "CJK", "HIRAGANA", "KATAKANA", "HANGUL", "ARABIC", "DEVANAGARI", "BENGALI",
                          "GURMUKHI", "TELUGU", "TAMIL", "THAI", "GREEK", "HEBREW", "CYRILLIC"})
"""Unicode script names (the first word of a letter's character name) of the read languages."""
UNREAD_MIN_CONFIDENCE = 0.8
"""lingua's confidence (0-1) from which an unread language is believed; below, the text is read."""
UNREAD_MIN_WORDS = 8
"""Words (after :func:`detected_part`) from which an unread language is believed: a shorter text is mostly names
and units, and lingua's trigrams read "antibody escape for vaccine design" as Sotho (0.92)."""
SHORT_UNREAD_MIN_CONFIDENCE = 0.95
"""A shorter Latin-script text of at least 3 words is unread when lingua gives the same unread language at this
confidence on the whole text, the read languages together under :data:`SHORT_UNREAD_MAX_READ` there, and prefers it
on the text's detected part (:data:`SHORT_UNREAD_PART_MIN_CONFIDENCE`), and the text uses no read language's
function word nor Vietnamese letters: read as English before, a fresh user's 4-word Finnish, Estonian, Lithuanian
and Latvian requests to make sarin deadlier passed the screen (docs/design.md#safety-language)."""
SHORT_UNREAD_PART_MIN_CONFIDENCE = 0.5
"""lingua's confidence in that unread language on the detected part (binomials, codes and acronyms left out) from
which it is believed for a short text. Was 0.95 (the whole text's bar): a 4-word Finnish request read 0.78 there and
1.0 on the whole text, and was read as English. At 0.5, the 6,946 labelled texts of tests/data/safety read unread as
before (one benign goal, a Turkish one as Tswana; bench/README.md, 2026-12-06)."""
SHORT_UNREAD_MAX_READ = 0.01
"""The read languages' summed confidence on the whole text below which a short text's unread language is believed."""
_READ_WORDS = [*_FUNCTION.values(), *(frozenset(words.split()) for words in OWN_WORDS.values())]
LATIN_WORDS = frozenset({"et", "est", "sunt", "cum", "quod", "ut", "sed", "quomodo", "quid", "atque", "etiam", "aut",
                         "nisi", "quae", "potest", "enim", "ergo", "autem", "vel", "inter", "ad", "ex", "ab", "sub",
                         "qui"})
"""Latin's function words: a text is believed Latin (unread) only with two of them. Scientific English is mostly
Latinate words and few function words, so lingua's trigrams read "Map antibody escape mutations to design
next-generation vaccines" as Latin (0.95); a Latin request ("Quomodo virus ... et quomodo id ...") has them."""
CLOSE_GROUPS: tuple[tuple[str, ...], ...] = (("es", "pt"), ("hi", "mr"), ("ar", "fa", "ur"), ("id", "ms"), ("ru", "uk"))
"""Read languages an n-gram detector confuses with each other (they share a script and much vocabulary): within a
group the language whose own cues (:data:`CLOSE_CUES`) a text shows most is read; lingua's choice stands on a tie.
Which language is read does not move a decision (every one of them is read); it is what ``cosci screen`` reports
and what the bench counts by, and lingua read Spanish goals as Portuguese (docs/design.md#safety-language)."""
CLOSE_CUES = {
    "es": ("el los las del y al lo qué cómo cuál cuáles muy un una es son pero sin hay puede pueden", "ñ¿¡"),
    "pt": ("os do da dos das e em na nos nas um uma não é ao à pelo pela são mas sem há pode podem", "ãõçâêô"),
    "hi": ("है हैं और के की का में कैसे नहीं से को क्या लिए करना कौन किया", ""),
    "mr": ("आहे आहेत आणि कसे कसा कशी नाही होते काय कोणते कोणत्या केले व करणे", "ळ"),
    "ar": ("في من على كيف هل التي الذي إلى عن هذا هذه", "ةىكي"),
    "fa": ("است را می این که برای چگونه از با به چه آن ها", "ژ"),
    "ur": ("کے کی ہے ہیں میں کو سے کیسے اور نہیں کا کہ", "ٹڈڑںےہھ"),
    "id": ("bisa karena saja pasien hanya sangat obat dokter kantor uang agar supaya apakah gimana nggak tapi"
           " penelitian pengobatan deteksi efektivitas dosis penanganan surveilans lewat antar", ""),
    "ms": ("boleh kerana sahaja iaitu ialah daripada pesakit ubat doktor wang pejabat bagaimanakah adakah", ""),
    "ru": ("", "ыэъё"),
    "uk": ("", "іїєґ"),
}
"""Per language of :data:`CLOSE_GROUPS`: its own function words (space-separated) and letters its group's other
languages do not write."""
_CLOSE = {code: (frozenset(words.split()), frozenset(letters)) for code, (words, letters) in CLOSE_CUES.items()}
_TOKEN = re.compile(r"[^\s.,;:!?¿¡()\"'«»،؛؟。、]+")
r"""A word for the cues: ``\w`` stops at the vowel signs of Indic scripts (combining marks), so "कसा" would be "कस"."""
_MARATHI_ENDINGS = re.compile(r"\S(?:च्या|ची|चे|चा|मध्ये|साठी)(?=[\s.,;:!?]|$)")
_WORD = re.compile(r"\w+")
_NAMES = re.compile(rf"\b(?!(?i:{'|'.join(map(re.escape, sorted(frozenset().union(*_FUNCTION.values()))))})\b)"
                    r"[A-Z][a-z]{2,}\.? [a-z]{3,}\b|\b\w*\d\w*\b|\b[A-Z]{2,}\w*\b|[\w-]*-[\w-]*\d[\w-]*")
"""Binomials ("Bacillus anthracis": a capitalised word, no read language's function word, then a lower-case one;
design.md#safety-language), words with digits (H5N1, Cs-137) and acronyms (MERS, SARS-CoV-2)."""


@dataclass(frozen=True)
class Reading:
    """The language of one text: ``code`` (ISO 639-1, or a script name when no language is known), ``name``,
    ``read`` (the screen reads it) and lingua's ``confidence`` (0-1)."""

    code: str
    name: str
    read: bool
    confidence: float
    latin: str | None = None
    """For Russian or Ukrainian typed in Latin letters and read, the table it is written back in Cyrillic by
    (:mod:`cosci.safety.transliteration`; the screen reads that form); None otherwise."""

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


def closest(code: str, text: str) -> str:
    """``code``, or the language of its :data:`CLOSE_GROUPS` group whose cues ``text`` shows most (function words
    count once each, letters per occurrence; Marathi's case endings written onto a word count as its words)."""
    group = next((g for g in CLOSE_GROUPS if code in g), None)
    if group is None:
        return code
    words = {w.lower() for w in _TOKEN.findall(text)}
    cues = {c: len(_CLOSE[c][0] & words) + sum(ch in _CLOSE[c][1] for ch in text) for c in group}
    if "mr" in cues:
        cues["mr"] += len(_MARATHI_ENDINGS.findall(text))
    best = max(group, key=lambda c: cues[c])
    return best if cues[best] > cues[code] else code


def _read(code: str, confidence: float, text: str) -> Reading:
    code = closest(code, text)
    return Reading(code, READ[code], True, confidence)


_VIETNAMESE = re.compile("[ăâđêôơưạảấầẩẫậắằẳẵặẹẻẽếềểễệỉịọỏốồổỗộớờởỡợụủứừửữựỳỵỷỹ]", re.IGNORECASE)
LONG_MIN_CUES = 3
"""Cues (:func:`cues`) from which a text of :data:`UNREAD_MIN_WORDS` words or more is read by them, when they
outnumber the other read languages' function words in it."""


def _by_cues(text: str, words: set[str], values: list[ConfidenceValue]) -> Reading | None:
    """A short Latin-script text (under :data:`UNREAD_MIN_WORDS` words) showing more cues (:func:`cues`) than
    function words of the other read languages (:data:`FUNCTION_WORDS`), or as many while lingua prefers a language
    they are cues of, is in the language they name (read) or, when only shared letters cue it, in lingua's likeliest
    such language (unread for Slovak, Croatian, Hungarian...). A longer text is read by its cues only with
    :data:`LONG_MIN_CUES` of them and more than the read languages' function words: an 8-word Romanian request
    ("Cultivarea antraxului la scară mare, pas cu pas") was read as English by default."""
    count, named = cues(text, words)
    read = max((len(_FUNCTION[c] & words) for c in _FUNCTION), default=0)
    if len(_WORD.findall(text)) >= UNREAD_MIN_WORDS and (count < LONG_MIN_CUES or count <= read):
        return None
    top = values[0].language.iso_code_639_1.name.lower() if values and values[0].value > 0 else None
    top_cued = top is not None and (top not in READ or top in OWN_WORDS)
    if count == 0 or count < read or (count == read and not top_cued):
        return None
    if named is not None:
        return Reading(named, READ[named], True, 1.0)
    if top is not None and top in OWN_WORDS:
        return Reading(top, READ[top], True, values[0].value)
    other = next((v for v in values if v.value > 0 and ((c := v.language.iso_code_639_1.name.lower()) not in READ
                                                         or c in CLOSE_NAMES)), None)
    if other is None:
        return Reading("und", "an unread language", False, 0.0)
    code = other.language.iso_code_639_1.name.lower()
    return Reading(code, READ[code] if code in READ else other.language.name.title(), code in READ, other.value)


def _close(script: str, words: set[str], values: list[ConfidenceValue]) -> tuple[Reading | None, list[ConfidenceValue]]:
    """The close language a Latin-script text's own words name over the read languages' (:func:`close_reading`),
    and lingua's ``values`` believed for it."""
    named, values = close_reading(script, words, values, _READ_WORDS)
    return (None if named is None else Reading(*named)), values


def english_said(words: set[str], values: list[ConfidenceValue]) -> bool:
    """Whether a Latin-script text lingua does not read as a read language is English by its own evidence: an
    English function word (:data:`FUNCTION_WORDS`), or English among lingua's languages for it (its vocabulary)."""
    return bool(_FUNCTION["en"] & words) or any(v.language.iso_code_639_1.name == "EN" and v.value > 0
                                                for v in values)


def _short_unread(text: str, values: list[ConfidenceValue], words: set[str]) -> bool:
    """Whether a Latin-script text under :data:`UNREAD_MIN_WORDS` words is in lingua's top language on its detected
    part (``values``, an unread one; ``words`` the text's lower-cased words): see
    :data:`SHORT_UNREAD_MIN_CONFIDENCE`."""
    if len(_WORD.findall(text)) < 3 or values[0].value < SHORT_UNREAD_PART_MIN_CONFIDENCE or \
            _VIETNAMESE.search(text):
        return False
    if any(_FUNCTION[c] & words for c in _FUNCTION):
        return False
    whole = detector().compute_language_confidence_values(text)
    if sum(v.value for v in whole if v.language.iso_code_639_1.name.lower() in READ) >= SHORT_UNREAD_MAX_READ:
        return False
    return bool(whole) and whole[0].language == values[0].language and whole[0].value >= SHORT_UNREAD_MIN_CONFIDENCE


def read_language(text: str) -> Reading:
    """The language of ``text`` and whether the screen reads it (the module docstring's rules; a text in capitals on
    a lower-cased copy, :func:`folded`). An empty or letterless text reads as English (nothing to misread). A text
    in Latin letters read as unread is checked by lingua's full models (:func:`_confirmed`); one in ASCII letters
    showing more of Russian's or Ukrainian's own words typed in Latin letters (:data:`~cosci.safety.romanised.CUES`;
    two name the form before lingua is asked) than function words of the read language lingua gives it (none for an
    unread one) is read as Russian or Ukrainian when written back in Cyrillic it is confidently so
    (:func:`in_cyrillic`): "chy mozhna shchepyty dytynu ..." was refused as unread Welsh, "skolko dlitsya
    inkubatsionnyy period kori" read as Malay; Swahili's "ili" (so that), Russian's "or", is outweighed by
    Swahili's own function words."""
    text = folded(text) if shouted(text) else text
    reading = _reading(text)
    if dominant_script(text) != "LATIN" or reading.name.endswith(IN_LATIN) or reading.latin is not None or \
            reading.code in READ_FORMS:
        return reading  # a romanised form named by its own words stays as read (romanised.READ_FORMS)
    words = {w.lower() for w in _WORD.findall(text)}
    rivals = len(_FUNCTION.get(reading.code, frozenset()) & words) if reading.read else 0
    if text.isascii() and (native := next((r for code in TABLES if own_words(text, code) > rivals
                                           and (r := in_cyrillic(text, code)) and r.read), None)) is not None:
        return native
    return reading if reading.read else _confirmed(text, reading)


def _confirmed(text: str, reading: Reading) -> Reading:
    """``reading`` (an unread Latin-script language lingua's trigrams gave ``text``), or the read language lingua's
    full models prefer (:func:`~cosci.safety.language_full.full_choice`) on ``text`` without binomials, codes and drug
    names (:data:`~cosci.safety.language_full.DRUG_STEMS`) among the trigrams' likeliest languages and the read
    languages whose function words ``text`` shows. The trigrams alone read short texts of a read language naming
    agents, drugs and places as Catalan, Shona, Yoruba, Xhosa or Esperanto (Portuguese "vigilância de febre maculosa
    em Campinas" as Yoruba at 0.91); the full models over the same few languages read them as Portuguese and keep
    Estonian, Slovene, Latvian, Basque, Welsh... unread (bench/README.md, twenty-fourth stop: read-language texts said
    unread)."""
    part = detected_part(DRUG_STEMS.sub(" ", text))
    if not any(ch.isalpha() for ch in part):
        return reading
    values = detector().compute_language_confidence_values(part)
    words = {w.lower() for w in _WORD.findall(text)}
    candidates = {v.language.iso_code_639_1.name.lower() for v in values[:UNREAD_CHECK_TOP] if v.value > 0}
    candidates |= {c for c in _FUNCTION if _FUNCTION[c] & words}
    if len(candidates) < 2:
        return reading
    code, value = full_choice(part, frozenset(candidates))
    return _read(code, value, text) if code in READ else reading


def _reading(text: str) -> Reading:
    """:func:`read_language`'s reading before an unread Latin-script one is checked (:func:`in_cyrillic`,
    :func:`_confirmed`)."""
    script = dominant_script(text)
    if script is None:
        return Reading("en", READ["en"], True, 0.0)
    if (early := _unread_script(script) or _romanised(text, script)) is not None:
        return early
    # a run written without spaces holding a digit ("镥-177治疗...") is one word with a digit: all of it was dropped,
    # and lingua's order of languages all at confidence 0 is arbitrary; a Latin-script text that is all names and
    # codes ("Sarin recipe?": a binomial's shape, then "?") was read as Persian, Marathi or Thai by that order, a
    # different one in each process, and is read as English (nothing left to misread)
    part = detected_part(text)
    letters = any(ch.isalpha() for ch in part)
    part = part if letters else ("" if script == "LATIN" else text)
    values = detector().compute_language_confidence_values(part) if part else []
    if not values:
        return Reading("en", READ["en"], True, 0.0)
    # function words are counted on the whole text: the binomial pattern also drops a sentence's opening pair
    words = {w.lower() for w in _WORD.findall(text)}
    near, values = _close(script, words, values)
    top, code = values[0], values[0].language.iso_code_639_1.name.lower()
    if script == "LATIN" and (cued := near or _by_cues(text, words, values)) is not None:
        return cued
    if (lettered := _by_letters(script, code, text, values)) is not None:
        return lettered
    own = max(_FUNCTION, key=lambda c: len(_FUNCTION[c] & words))
    if code in READ:
        # lingua's Tagalog, Czech or Romanian for a text showing none of its cues and two function words of another
        # read language ("Best way to aerosolize ... over a crowded stadium" as Tagalog): that language
        belied = script == "LATIN" and cues(text, words)[1] != code and own != code
        # lingua's Spanish or French for plain English ("combinations to treat multidrug-resistant tuberculosis"):
        # English by one English function word in a text of ASCII letters showing none of that language's own
        english = own == "en" and text.isascii() and not _FUNCTION.get(code, frozenset()) & words and \
            bool(ENGLISH_ONLY & words)
        # one such word also belies Tagalog, Czech or Romanian (lingua's choice for short English without a function
        # word it knows: "TB efflux pump inhibitors worth testing with bedaquiline?" as Tagalog), their cues absent
        needed = 1 if english else 2
        # any other read language's lingua choice showing none of its own function words and two of another's
        # ("tratamento da dengue em criancas com soro" as Italian)
        unsaid = code in _FUNCTION and not _FUNCTION[code] & words
        belied = belied and (code in OWN_WORDS or english or unsaid)
        return _read(own if belied and len(_FUNCTION[own] & words) >= needed else code, top.value, text)
    if len(_FUNCTION[own] & words) >= 2:
        return _read(own, top.value, text)
    latin_unbacked = code == "la" and len(LATIN_WORDS & words) < 2
    if top.value >= UNREAD_MIN_CONFIDENCE and len(_WORD.findall(part)) >= UNREAD_MIN_WORDS and not latin_unbacked:
        return Reading(code, top.language.name.title(), False, top.value)
    if script == "LATIN" and not latin_unbacked and _short_unread(text, values, words):
        return Reading(code, top.language.name.title(), False, top.value)
    return _likeliest_read(text, script == "LATIN", latin_unbacked, words, values)


def _unread_script(script: str) -> Reading | None:
    """An unread reading for a script no read language writes (``script``, a Unicode script name), else None."""
    return None if script in READ_SCRIPTS else Reading(script.lower(), f"{script.title()} script", False, 1.0)


def _romanised(text: str, script: str) -> Reading | None:
    """The reading of a language of another script typed in Latin letters (:mod:`cosci.safety.romanised`), named by
    its own words over every read Latin-script language's function words and the close languages' own words: read
    (its code) or unread ("Bengali in Latin letters"); None for a text showing no such form or not in Latin script."""
    if script != "LATIN":
        return None
    words = {w.lower() for w in _WORD.findall(text)}
    rivals = max([*(len(_FUNCTION[c] & words) for c in _FUNCTION if c != "hi"), *close_counts(words).values()])
    code = romanised(text, rivals)
    if code is None:
        return None
    if code in READ_FORMS:
        return Reading(code, READ[code], True, 1.0)
    if code in TABLES and (native := in_cyrillic(text, code)) is not None:
        return native if native.read else None
    return Reading(code, form_name(code), False, 1.0)


def in_cyrillic(text: str, code: str) -> Reading | None:
    """The reading of ``text`` (Latin letters, named Russian or Ukrainian by its own words, ``code``) written back
    in Cyrillic (:func:`~cosci.safety.transliteration.to_cyrillic`): Russian or Ukrainian, whichever
    :func:`~cosci.safety.language_full.cyrillic_choice` gives, read (``latin`` the table); Serbian (unread in Cyrillic,
    a sign to read the Latin text as the Serbo-Croatian it is: the caller reads it as any Latin-script text) when
    Serbian is likeliest; None otherwise."""
    chosen = cyrillic_choice(detected_part(to_cyrillic(text, code)))
    if chosen is None:
        return None
    best, value = chosen
    if best == "sr":
        return Reading("sr", "Serbian", False, value)  # Serbian in Latin letters: read as it is written
    return Reading(best, READ[best], True, value, latin=code)


def _by_letters(script: str, code: str, text: str, values: list[ConfidenceValue]) -> Reading | None:
    """The reading a text's own letters give (:mod:`cosci.safety.language_cues`), None when they give none: a
    Cyrillic text's letters (Russian or Ukrainian, read; ``other``, unread, named as lingua's likeliest unread
    language for it); a Latin-script text lingua names unread (``code``) showing a read language's own forms."""
    if script == "LATIN" and code not in READ and (form := own_forms(text)) is not None:
        return Reading(form, READ[form], True, values[0].value)
    letters = cyrillic_reading(text) if script == "CYRILLIC" else None
    if letters is None:
        return None
    if letters != "other":
        return Reading(letters, READ[letters], True, values[0].value)
    other = next((v for v in values if v.language.iso_code_639_1.name.lower() not in READ), None)
    if other is None:
        return Reading("und", "a Cyrillic language the screen does not read", False, 0.0)
    return Reading(other.language.iso_code_639_1.name.lower(), other.language.name.title(), False, other.value)


def _likeliest_read(text: str, latin: bool, latin_unbacked: bool, words: set[str],
                    values: list[ConfidenceValue]) -> Reading:
    """The likeliest read language of a text no rule reads as unread; English for a Latin-script text (``latin``)
    when no read language is likely, but only when English says so
    (:func:`english_said`) or lingua is unsure of the unread language it prefers (under
    :data:`SHORT_UNREAD_PART_MIN_CONFIDENCE`): a short Czech request was read as English by default."""
    top = values[0]
    best = next((v for v in values if v.language.iso_code_639_1.name.lower() in READ and v.value > 0), None)
    if best is not None and latin and english_only(text, words, best.language.iso_code_639_1.name.lower()):
        return Reading("en", READ["en"], True, 0.0)
    if best is None or (latin and best.value < 0.05):
        if latin and not latin_unbacked and top.value >= SHORT_UNREAD_PART_MIN_CONFIDENCE and \
                not english_said(words, values):
            return Reading(top.language.iso_code_639_1.name.lower(), top.language.name.title(), False, top.value)
        return Reading("en", READ["en"], True, 0.0)
    return _read(best.language.iso_code_639_1.name.lower(), best.value, text)
