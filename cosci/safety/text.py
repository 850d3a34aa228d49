"""Texts as the term patterns read them: normalised (gloss applied, accents dropped, lower case), cut into sentences
and windows of sentences (split from :mod:`cosci.safety.prescreen`, which holds the term lists, and
:mod:`cosci.safety.readings`, which reads a request's purpose and object)."""

from __future__ import annotations

import re
import unicodedata
from functools import lru_cache
from itertools import pairwise

from cosci.safety.gloss import load_gloss

WINDOW_SENTENCES = 3
"""Sentences an agent and its harmful step may be apart (a goal split over two sentences is one window)."""
_TRANSLATE = str.maketrans({"\u2019": "'", "\u2018": "'", "\u02bc": "'", "\u2010": "-", "\u2011": "-",
                            "\u2012": "-", "\u2013": "-", "\u2014": "-", "\u00df": "ss", "\u00e6": "ae",
                            "\u0153": "oe", "\u00f8": "o", "\u0142": "l", "\u00bf": None, "\u00a1": None})
"""Typographic variants written as the patterns write them; Spanish's opening "¿" and "¡" dropped, so a question
opens with its first word ("¿Cómo aumentar ...?" is read as a request opening with "cómo")."""
_DENSE = "\u0e00-\u0e7f\u1100-\u11ff\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uac00-\ud7af"
_STOPS = "\u3002\uff01\uff1f\u061f\u0964\u0965\u06d4\u0589\u1362\u1367\u104b\u17d4\u037e"
"""Marks that end a sentence wherever they stand: the CJK full stop and wide ``!?``, the Arabic question mark, the
Devanagari danda and double danda, the Urdu full stop, the Armenian full stop, the Ethiopic full stop and question
mark, the Myanmar and Khmer full stops, the Greek question mark. None of them is written inside a word."""
_CLOSERS = "\"'\u201d\u2019)\\]\u300d\u300f"
SENTENCE_END = re.compile(
    rf"(?<!\s\d)(?<!\s\d\d)[.!?\u2026]+[{_CLOSERS}]*(?=\s|$|[{_DENSE}])|[{_STOPS}]+[{_CLOSERS}]*"
    r"|(?<=[\u0370-\u03ff\u1f00-\u1fff]);(?=\s|$)|(?<=[\u0531-\u0587]):(?=\s|$)"
    r"|(?<=\s)(?=[\u2022\u2023\u25aa\u25cf\u25e6]\s)")
"""A sentence's end, the one definition every reader of the screen cuts at (sentences, windows, a condition's
sentence, the clauses of a why-question, the sentences of a mechanism asked): ``.!?`` or an ellipsis (and a closing
quote or bracket) before a space, the text's end or a character of a language written without spaces ("...吗?然后"
once NFKD has made "？" "?"), not the dot of a one- or two-digit ordinal after a space ("im 19. Jahrhundert", "u 19.
stoljeću"; "COVID-19." ends); one of :data:`_STOPS` anywhere; ";" after a Greek letter (the Greek question mark,
which NFKD makes ";"); ":" after an Armenian letter (the Armenian full stop as typed on a Latin keyboard); before a
bullet standing alone (the bullet opens the next item). Thai writes no sentence mark (a space parts its phrases and
clauses alike): a Thai text is one sentence, its windows cut at line breaks only (docs/design.md#safety-language,
"One sentence end")."""
_BREAK = re.compile(r"\n+")
_CLAUSE_END = re.compile(r"[;:\u061b](?=\s)")
_DENSE_EDGE = re.compile(f"(?<=[a-z0-9])(?=[{_DENSE}])|(?<=[{_DENSE}])(?=[a-z0-9])")
"""Where a Latin-script word or a code (TATP, H5N1) meets Thai, kana, CJK or Hangul, written without a space: a space
goes there, or the word boundary the patterns need is missing ("制作tatp用于袭击" names no agent without it). Hangul
is read as its jamo (U+1100-U+11FF): NFKD has decomposed it before this runs, so a particle typed onto a name
("MRSA의", "VX를") was part of the name's word (design.md#safety-language, "CJK documents and traits")."""
Span = tuple[str, int, int]
"""A matched phrase and its start and end offsets in the normalised text."""


_ROMANIAN_AND = re.compile(r"(?<!\w)[\u0219\u015f\u0218\u015e]i(?!\w)")
"""Romanian "și" (and; s with a comma or a cedilla below), written "and": with its mark dropped it is the Romance "si"
(if) that opens a condition, and "Cum intru în sistemul ... și opresc alarmele pacienților" (how do I get into the ICU
monitors and switch off the patients' alarms) was read as a response to an incident and allowed (twenty-third stop,
safety43l; design.md#safety-screen). "si" typed without its mark is left as it is."""


@lru_cache(maxsize=4096)
def normalise(text: str) -> str:
    """``text`` as the patterns see it: NFKD, accents dropped, lower case, one apostrophe and dash, single spaces;
    words of the gloss (Cyrillic, Chinese, Japanese, Arabic, Persian, Hindi, Bengali, Thai, Korean) in English, a
    Latin-script word inside text written without spaces set apart (:data:`_DENSE_EDGE`), and a request's action in
    the Latin-script languages in English (:meth:`~cosci.safety.gloss.Gloss.apply_latin`; :mod:`cosci.safety.gloss`).
    Kept for the last 4,096 texts: one screen normalises each window four times or more (hits, agents, class words,
    purposes)."""
    decomposed = unicodedata.normalize("NFKD", load_gloss().apply(_ROMANIAN_AND.sub("and", text)).translate(_TRANSLATE))
    plain = "".join(c for c in decomposed if not unicodedata.combining(c)).lower()
    plain = load_gloss().apply_latin(_DENSE_EDGE.sub(" ", plain))
    return re.sub(r"[ \t\r\f\v]+", " ", plain).strip()


def sentences(text: str) -> list[str]:
    """The sentences of a text (cut after each :data:`SENTENCE_END` and at line breaks, not at ``;:`` as
    :func:`windows` does: a goal's "Nipah: which antivirals?" is one sentence), stripped, empty ones left out."""
    return [s for line in _BREAK.split(text) for s in cut(line, SENTENCE_END)]


CLAUSE_END = re.compile(r"[,;\uff0c\u3001\u060c](?=\s)|[\uff0c\u3001]|\s(?=\(?\d{1,2}[.)]\s)")
"""Where a clause of a sentence ends for the clause reading (:meth:`~cosci.safety.prescreen.Prescreen.clauses`): a
comma or semicolon before a space (the Chinese and Arabic commas too), or before a numbered item ("(3) ...",
"3. ...")."""


def clauses(sentence: str) -> list[str]:
    """The clauses of a sentence (:data:`CLAUSE_END`), stripped; one clause when it has no such end."""
    return cut(sentence, CLAUSE_END) or [sentence]


def cut(text: str, *ends: re.Pattern[str]) -> list[str]:
    """``text`` cut after each match of ``ends`` (the mark stays with what it ends), pieces stripped, empty ones
    left out."""
    at = sorted({m.end() for end in ends for m in end.finditer(text)} | {0, len(text)})
    return [p for i, j in pairwise(at) if (p := text[i:j].strip())]


def windows(text: str) -> list[str]:
    """Overlapping windows of :data:`WINDOW_SENTENCES` sentences of a normalised text (one for a short text); a
    sentence here also ends at ``;`` or ``:`` before a space."""
    parts = [s for line in _BREAK.split(text) for s in cut(line, SENTENCE_END, _CLAUSE_END)]
    if len(parts) <= WINDOW_SENTENCES:
        return [" ".join(parts)]
    return [" ".join(parts[i:i + WINDOW_SENTENCES]) for i in range(len(parts) - WINDOW_SENTENCES + 1)]


def dash_or_space(pattern: str) -> str:
    """``pattern`` with each space outside a character class also matching a dash."""
    out, depth = [], 0
    for i, c in enumerate(pattern):
        escaped = i > 0 and pattern[i - 1] == "\\"
        if c == "[" and not escaped:
            depth += 1
        elif c == "]" and not escaped and depth:
            depth -= 1
        out.append("[ -]" if c == " " and not depth else c)
    return "".join(out)
