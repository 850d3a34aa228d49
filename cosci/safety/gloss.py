"""A word-for-word English gloss of text in scripts the offline screen's term lists cannot read (Cyrillic, Chinese,
Japanese, Arabic, Persian, Urdu, Hindi, Marathi, Bengali, Punjabi, Tamil, Telugu, Thai, Korean).

The gloss (``conf/safety_gloss.yaml``) replaces the words that carry a request (agents, harmful steps,
protective purposes, a few function words) by their English, so the term patterns read a Russian, Chinese,
Japanese, Arabic, Persian, Hindi, Tamil, Telugu, Punjabi or Korean goal as they read an English one
(docs/design.md#safety-screen; the intent model reads the text as written). A text with no character of those
scripts is returned unchanged by :meth:`Gloss.apply`; :meth:`Gloss.apply_latin` reads the request's action (and
Hebrew's agents and actions: no glossed script) by patterns on every normalised text, and changes no English goal
(``tests/safety/test_action_languages.py``). Arabic-script text and entries are spelled alike first
(:func:`fold_arabic`).
"""

from __future__ import annotations

import re
import unicodedata
from dataclasses import dataclass
from functools import cache, lru_cache

import yaml

from cosci.errors import CosciError
from cosci.paths import conf_dir

GLOSS_FILE = "safety_gloss.yaml"
"""The gloss, under ``conf/``."""
FOREIGN_SCRIPTS = ("\u0400-\u04ff\u0600-\u06ff\u0750-\u077f\u0900-\u097f\u0980-\u09ff\u0a00-\u0a7f\u0b80-\u0bff"
                   "\u0c00-\u0c7f\u0e00-\u0e7f\u1100-\u11ff\u3040-\u30ff\u3130-\u318f\u3400-\u4dbf\u4e00-\u9fff"
                   "\uac00-\ud7af\ufb50-\ufdff\ufe70-\ufeff")
"""Character ranges of the glossed scripts: Cyrillic, Arabic (and Persian, Urdu), Devanagari (Hindi, Marathi),
Bengali, Gurmukhi (Punjabi), Tamil, Telugu, Thai, Hangul, kana, CJK (docs/design.md#safety-language)."""
_FOREIGN = re.compile(f"[{FOREIGN_SCRIPTS}]")
_HALFWIDTH_KANA = re.compile("[\uff61-\uff9f]+")
"""Half-width katakana ("ﾚｼﾋﾟ"), written as full-width kana before the gloss reads the text: the entries are full-width
and voiced ("レシピ"), and normalise's NFKD would fold the voicing marks of a word the gloss missed
(docs/design.md#safety-language, "CJK documents and traits")."""
_CYRILLIC_WORD = re.compile(r"[\u0400-\u04ff]+(?:-[\u0400-\u04ff]+)*")
_ORPHAN_MARKS = re.compile("(?<= )[" + "".join(c for c in map(chr, range(0x0900, 0x0e80))
                                               if unicodedata.category(c).startswith("M")) + "]+")
"""Vowel signs and other combining marks (Devanagari to Thai) left at the start of a word by a gloss: the rest of an
inflected word after its glossed stem ("తయారు చేయ|ాలి" -> "make ాలి"). A mark is no word character, so the term
patterns' word boundary after "make " found none; dropped, the rest is a word of its own."""
_ARABIC_MARKS = re.compile("[\u0640\u064b-\u065f\u0670]")
_ARABIC_LETTERS = str.maketrans({"\u0623": "\u0627", "\u0625": "\u0627", "\u0622": "\u0627", "\u0671": "\u0627",
                                 "\u064a": "\u06cc", "\u0649": "\u06cc", "\u0643": "\u06a9", "\u06c1": "\u0647",
                                 "\u200c": " ",
                                 **{chr(0x0660 + i): str(i) for i in range(10)},
                                 **{chr(0x06f0 + i): str(i) for i in range(10)}})
_NUKTA_LETTERS = "\u0915\u0916\u0917\u091c\u0921\u0922\u092b\u092f"
"""The letters Devanagari's precomposed nukta letters (U+0958-U+095F) dot, in order."""
_NUKTA = str.maketrans({"\u093c": None, "\u09bc": None, **{chr(0x0958 + i): b for i, b in enumerate(_NUKTA_LETTERS)},
                        "\u09dc": "\u09a1", "\u09dd": "\u09a2", "\u09df": "\u09af"})
"""The nukta dropped in Devanagari and Bengali, as the letter it dots ("ज़हर" and "जहर", "मरीज़ों" and "मरीजों"): writers
type it or leave it out, and an entry written one way missed a text written the other (docs/design.md#safety-language,
"Bengali, Urdu and Hindi words")."""
_ARTICLE_AFTER_LI = re.compile("(?<![\u0600-\u06ff])\u0644\u0644")
""""لل" opening a word: the preposition li- on the article al-, whose alef is not written ("للمضادات" is "to the
antibiotics"); written out ("لالمضادات"), the article's entries ("المضادات") match inside it."""
_SPACES = re.compile(" {2,}")
_MASS_NUMBER = re.compile(r"(?<=[a-z]) +(?=-\d)")
"""A space the gloss left between an English element name and its mass number ("kobaltu-60", "кобальт-60" ->
"cobalt -60"): removed, so the isotope reads as one ("cobalt-60") as the term lists write it."""


def fold_arabic(text: str) -> str:
    """``text`` with Arabic-script spelling folded as the gloss's entries are: short vowels, shadda, tanween and
    tatweel dropped, the hamza and madda forms of alef written as bare alef, Arabic yeh, alef maksura and kaf
    written as the Persian and Urdu letters ("ويروس" typed on an Arabic keyboard is Persian "ویروس"), Urdu's heh
    goal as heh ("شہر" as Persian "شهر", city), a zero-width
    non-joiner as a space
    (Persian compounds), Arabic-Indic digits as ASCII ones ("سيزيوم-١٣٧"), the article's alef written after li-
    (:data:`_ARTICLE_AFTER_LI`). Writers vary in all of
    these ("فتكًا" and "فتكا", "أشد" and "اشد", "سیاه‌زخم" and "سیاه زخم"), and the gloss matches substrings: an
    entry written one way missed a text written the other (docs/design.md#safety-language, "Local words")."""
    return _ARTICLE_AFTER_LI.sub("\u0644\u0627\u0644", _ARABIC_MARKS.sub("", text).translate(_ARABIC_LETTERS))


@dataclass(frozen=True)
class Gloss:
    """``phrases``, ``cjk`` and ``other``: substrings (longest first; ``other``: Arabic, Persian, Devanagari,
    Hangul); ``words``: exact Cyrillic words; ``stems``: Cyrillic stems, a word that starts with one is replaced
    (the longest stem wins)."""

    phrases: tuple[tuple[str, str], ...]
    words: dict[str, str]
    stems: tuple[tuple[str, str], ...]
    cjk: tuple[tuple[str, str], ...]
    other: tuple[tuple[str, str], ...] = ()
    latin: tuple[tuple[re.Pattern[str], str], ...] = ()
    """Patterns on a normalised text (lower case, accents dropped) in the read Latin-script languages, each with
    its English: the phrases that carry a request's *action* (without their knowledge, make resistant, escape a
    countermeasure, in large quantities), which the term lists read in English (:meth:`apply_latin`)."""

    def apply(self, text: str) -> str:
        """``text`` lower-cased with every listed word replaced by `` english ``; unchanged without a character of
        the glossed scripts (:data:`FOREIGN_SCRIPTS`) or half-width kana. Composed (NFC) first, half-width kana
        widened (:data:`_HALFWIDTH_KANA`), so an entry matches however the kana were typed."""
        if not _FOREIGN.search(text) and not _HALFWIDTH_KANA.search(text):
            return text
        # kana composed (NFC: a voicing mark typed as a combining character) and half-width kana widened first
        text = unicodedata.normalize("NFC", _HALFWIDTH_KANA.sub(lambda m: unicodedata.normalize("NFKC", m[0]), text))
        text = fold_arabic(text.lower()).translate(_NUKTA)
        for source, english in (*self.phrases, *self.cjk, *self.other):
            text = text.replace(source, f" {english} ")
        return _MASS_NUMBER.sub("", _ORPHAN_MARKS.sub("", _CYRILLIC_WORD.sub(self._word, text)))

    def apply_latin(self, plain: str) -> str:
        """``plain`` (normalised: lower case, accents dropped) with each :attr:`latin` phrase replaced by
        `` english `` (``\\1``... in the English keep a group of the phrase: the object between a causative verb and
        its adjective, "rendre *Yersinia pestis* resistante"); a text none of them matches is returned unchanged."""
        if self.latin_any is None or self.latin_any.search(plain) is None:
            return plain
        for pattern, english in self.latin:
            plain, n = pattern.subn(lambda m, e=english: f" {m.expand(e)} ", plain)  # type: ignore[misc]
            if n:  # one space again: a later phrase of several words reads the English between single spaces
                plain = _SPACES.sub(" ", plain)
        return _MASS_NUMBER.sub("", plain)

    @property
    def latin_any(self) -> re.Pattern[str] | None:
        """One pattern matching wherever a :attr:`latin` phrase does (a guard: one scan instead of one a phrase, a
        third of the time on a 2,000-character English hypothesis)."""
        return _any_of(self.latin)

    def _word(self, match: re.Match[str]) -> str:
        word = match[0].replace("ё", "е")
        if word in self.words:
            return f" {self.words[word]} "
        for stem, english in self.stems:
            if word.startswith(stem):
                return f" {english} "
        return match[0]


@lru_cache(maxsize=4)
def _any_of(latin: tuple[tuple[re.Pattern[str], str], ...]) -> re.Pattern[str] | None:
    return re.compile("|".join(f"(?:{p.pattern})" for p, _ in latin)) if latin else None


def _longest_first(items: dict[str, str]) -> tuple[tuple[str, str], ...]:
    """The entries, keys lower-cased and Arabic spelling folded (:func:`fold_arabic`), longest key first (two
    spellings of one key fold into one entry)."""
    folded = {fold_arabic(k.lower()).translate(_NUKTA): v for k, v in items.items()}
    return tuple(sorted(folded.items(), key=lambda kv: -len(kv[0])))


class GlossError(CosciError):
    """The gloss file holds an entry that is no text."""


@cache
def load_gloss() -> Gloss:
    """The shipped gloss (``conf/safety_gloss.yaml``); an absent file glosses nothing.

    Raises:
        GlossError: an entry whose word or English is no text: YAML reads an unquoted ``on``, ``no`` or ``yes`` as a
            boolean, and the Russian "на: on" glossed "на границе" as "true границе" until the twenty-second stop.
    """
    path = conf_dir() / GLOSS_FILE
    data = yaml.safe_load(path.read_text(encoding="utf-8")) if path.exists() else {}
    for section, entries in data.items():
        for key, value in (entries or {}).items():
            if not (isinstance(key, str) and isinstance(value, str)):
                raise GlossError(f"{path}: {section}: {key!r}: {value!r} is not a text on both sides; quote it")
    words = {k.lower(): v for k, v in (data.get("words") or {}).items()}
    return Gloss(_longest_first(data.get("phrases") or {}), words, _longest_first(data.get("stems") or {}),
                 # the actions are read in every glossed script (Chinese and Japanese before the cjk words they contain)
                 _longest_first({**(data.get("cjk") or {}), **(data.get("actions") or {})}),
                 _longest_first({**(data.get("other") or {}), **(data.get("actions") or {})}),
                 tuple((re.compile(rf"\b(?:{k})\b"), v) for k, v in (data.get("latin") or {}).items()))
