"""A window's gloss read as text: the English the gloss wrote for a non-English request, for the intent model to score.

The intent model (:mod:`cosci.safety.intent`) scores a window as written. A request in a language the labelled set
holds few harmful rows of can name an agent and a harmful step the gloss reads (a term hit) and still score far
under the term-hit rule's bar (a Russian request to spread an agent from a drone, 0.007; its English, 0.165;
bench/README.md, "twenty-first stop"). :func:`reading` is the window as the gloss reads it, in two forms
(:data:`READINGS`), and :func:`coverage` how much of it the gloss wrote: what bench/safety_gloss_score.py measures
against the original's score (docs/design.md#safety-language, "The gloss scored").
"""

from __future__ import annotations

import re
import unicodedata

from cosci.safety.gloss import FOREIGN_SCRIPTS, load_gloss

READINGS = ("glossed", "english")
"""``glossed``: the window with the gloss's English in place of the words it lists (the rest as written);
``english``: the same with every word left in a glossed script dropped (the gloss's English, names and numbers)."""
_FOREIGN_WORD = re.compile(f"\\S*[{FOREIGN_SCRIPTS}]\\S*")
_TOKEN = re.compile(r"\w+")


def _plain(text: str) -> str:
    """``text`` lower-cased with accents dropped and Hangul kept composed: the original as the gloss's output
    writes it, without the gloss."""
    decomposed = unicodedata.normalize("NFKD", text)
    return unicodedata.normalize("NFC", "".join(c for c in decomposed if not unicodedata.combining(c))).lower()


def reading(window: str, form: str = "glossed") -> str | None:
    """The window as the gloss reads it (``form`` one of :data:`READINGS`), or None when the gloss changes nothing
    in it (an English window, or one in a language whose gloss lists none of its words).

    Glossed scripts (:data:`~cosci.safety.gloss.FOREIGN_SCRIPTS`) are read by :meth:`~cosci.safety.gloss.Gloss.apply`
    (kept composed: the embedding reads Hangul as syllables, not the jamo :func:`~cosci.safety.text.normalise`
    leaves); a Latin-script window by :func:`~cosci.safety.text.normalise` (its action phrases in English)."""
    gloss = load_gloss()
    glossed = gloss.apply(window)
    if glossed == window:
        plain = " ".join(_plain(window).split())
        glossed = gloss.apply_latin(plain)
        if glossed == plain:
            return None
    if form == "english":
        glossed = _FOREIGN_WORD.sub(" ", glossed)
    out = " ".join(glossed.split())
    return out or None


def coverage(window: str, read: str) -> float:
    """Share of the words of ``read`` (a :func:`reading` of ``window``) that the original does not hold: the words
    the gloss wrote, 0-1 (0 for an empty reading)."""
    words = _TOKEN.findall(read)
    if not words:
        return 0.0
    original = set(_TOKEN.findall(_plain(window)))
    return sum(w not in original for w in words) / len(words)
