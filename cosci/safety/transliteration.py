"""Russian and Ukrainian typed in Latin letters, written back in Cyrillic (docs/design.md#safety-language,
"Romanised Russian and Ukrainian read in Cyrillic").

Russian and Ukrainian typed in Latin letters ("kak sdelat chtoby ...", "shcho pratsyuye krashche") follow no one
standard: BGN/PCGN, the Ukrainian national system, ISO 9 without diacritics and a typist's own mix ("h" or "kh"
for х, "c" or "ts" for ц, "'" for ь). No library in the project's environment writes Latin letters back as Cyrillic
(``transliterate`` and ``cyrtranslit`` are not installed, and the project adds no dependency for a table), so the
table is here: each language's letter groups (:data:`RU`, :data:`UK`), the longest group first, over each lower-case
word. The gloss and the intent model read the Cyrillic form as they read Russian and Ukrainian; a word the
table cannot know (a binomial, an acronym, a code, a drug or agent name the term lists read in Latin letters) is
kept as written (:func:`to_cyrillic`'s ``keep``).

The table is a reading aid, not a spelling: "rayon" gives "раён", "schet" "щет". What the screen needs is what
the gloss's stems and the embedding read (the start of each word, its consonants); bench/README.md, "twenty-fourth
stop: romanised Russian and Ukrainian", measures both ways what it reads.
"""

from __future__ import annotations

import re
from collections.abc import Callable

VOWELS = frozenset("аеёиоуыэюяіїє")
"""Cyrillic vowels: after one, Latin "y" not followed by a vowel is "й" ("novoy" новой), and "ya", "yu", "ye" are
"я", "ю", "е"/"є" whatever precedes."""
RU = {
    "shch": "щ", "sch": "щ", "t'sya": "ться", "tsya": "тся", "zh": "ж", "kh": "х", "ts": "ц", "tz": "ц", "ch": "ч",
    "sh": "ш", "ya": "я", "ja": "я", "ia": "я", "yu": "ю", "ju": "ю", "iu": "ю", "yo": "ё", "jo": "ё", "ye": "е",
    "je": "е",
    "a": "а", "b": "б", "v": "в", "w": "в", "g": "г", "d": "д", "e": "е", "z": "з", "i": "и", "j": "й", "k": "к",
    "l": "л", "m": "м", "n": "н", "o": "о", "p": "п", "r": "р", "s": "с", "t": "т", "u": "у", "f": "ф", "h": "х",
    "c": "ц", "x": "кс", "q": "к", "y": "ы", "'": "ь",
}
"""Russian: Latin letter groups -> Cyrillic (the reflexive ending "-tsya" as "-тся"; BGN/PCGN, ISO 9 without
diacritics and the informal "h", "c", "w", "'";
"y" after a consonant "ы", after a vowel "й"; a word's first "e" is "э", :data:`RU_E_WORDS` apart)."""
RU_E_WORDS = ("esli", "eshche", "eshe", "ego", "emu", "ee", "eyo", "est", "yest", "estestv", "edin", "ezh", "ekh")
"""Russian words (or stems) whose first "e" is "е", not "э": the pronouns and "если", "ещё", "есть"; otherwise a
word's first "e" is "э" ("eto" это, "effekt", "epidemiya", "ekstrakt")."""
UK = {
    "shch": "щ", "zh": "ж", "kh": "х", "ts": "ц", "tz": "ц", "ch": "ч", "sh": "ш",
    "ya": "я", "ia": "я", "ja": "я", "yu": "ю", "iu": "ю", "ju": "ю", "ye": "є", "ie": "є", "je": "є", "yi": "ї",
    "ji": "ї", "a": "а", "b": "б", "v": "в", "w": "в", "h": "г", "g": "г", "d": "д", "e": "е", "z": "з", "y": "и",
    "i": "і", "j": "й", "k": "к", "l": "л", "m": "м", "n": "н", "o": "о", "p": "п", "r": "р", "s": "с", "t": "т",
    "u": "у", "f": "ф", "c": "ц", "x": "кс", "q": "к", "'": "ь",
}
"""Ukrainian: Latin letter groups -> Cyrillic (the national system, ISO 9 without diacritics and the informal "c",
"w", "g", "'"; "y" is "и", "i" "і", "yi" "ї"; "y" after a vowel and not before one "й")."""
TABLES = {"ru": RU, "uk": UK}
"""Per language (ISO 639-1), its table."""
_GROUPS = {code: re.compile("|".join(sorted(map(re.escape, table), key=len, reverse=True)))
           for code, table in TABLES.items()}
_WORD = re.compile(r"[A-Za-z0-9][A-Za-z0-9']*")
_LATIN_VOWELS = frozenset("aeiouy")


def word_to_cyrillic(word: str, code: str) -> str:
    """One lower-case Latin ``word`` in the Cyrillic of ``code`` (``ru`` or ``uk``; KeyError for another)."""
    table, groups = TABLES[code], _GROUPS[code]
    out: list[str] = []
    at = 0
    while at < len(word):
        found = groups.match(word, at)
        if found is None:  # a letter the table does not hold (none in ASCII a-z): kept
            out.append(word[at])
            at += 1
            continue
        group = found.group()
        after = word[found.end():found.end() + 1]
        if group == "y" and out and out[-1] in VOWELS and after not in _LATIN_VOWELS:
            out.append("й")  # "novoy" новой, "stroyka" стройка, "yakyy"... after a vowel
        elif group == "i" and code == "uk" and out and out[-1] in VOWELS:
            out.append("ї")  # "chai" чаї, "talii" талії
        elif group == "e" and at == 0 and code == "ru" and not word.startswith(RU_E_WORDS):
            out.append("э")  # "eto" это
        else:
            out.append(table[group])
        at = found.end()
    return "".join(out)


def to_cyrillic(text: str, code: str, keep: Callable[[str], bool] | None = None) -> str:
    """``text`` (Russian or Ukrainian typed in Latin letters, ``code``) with each word of Latin letters written in
    Cyrillic (:func:`word_to_cyrillic`; a capitalised word capitalised). Kept as written: a word with a digit or two
    capitals (an acronym, a code: "UF", "H5N1"), the species word after an abbreviated genus ("M. tuberculosis"), and
    a word, or a capitalised word and the next (a binomial), that ``keep`` is true of (the screen passes the term
    lists' agents, read in Latin letters: "ricin", "Bacillus anthracis")."""
    words = list(_WORD.finditer(text))
    kept: set[int] = set()
    for i, found in enumerate(words):
        word = found.group()
        if any(ch.isdigit() for ch in word) or sum(ch.isupper() for ch in word) > 1:
            kept.add(i)
        elif i and re.fullmatch(r"[A-Z]\. ", text[words[i - 1].start():found.start()]):
            kept.update((i - 1, i))  # "M. tuberculosis"
        elif keep is not None and keep(word):
            kept.add(i)
        elif keep is not None and word[:1].isupper() and i + 1 < len(words) and \
                text[found.end():words[i + 1].start()] == " " and keep(f"{word} {words[i + 1].group()}"):
            kept.update((i, i + 1))
    out: list[str] = []
    at = 0
    for i, found in enumerate(words):
        word = found.group()
        out.append(text[at:found.start()])
        at = found.end()
        if i in kept:
            out.append(word)
            continue
        cyrillic = word_to_cyrillic(word.lower(), code)
        out.append(cyrillic[:1].upper() + cyrillic[1:] if word[:1].isupper() else cyrillic)
    out.append(text[at:])
    return "".join(out)
