"""Is an excerpt really in the text its source returned? (design.md#grounding: the record tools ask for "a
verbatim short quote from the source").

Both texts are normalised (Unicode NFKC, lower case, one kind of quote, hyphens and soft hyphens removed so
``anti-tumour`` = ``antitumour`` = ``anti- tumour``, en and em dashes read as spaces, whitespace collapsed).
An excerpt is *found* when, after
normalisation, it is a substring of the text, or when rapidfuzz's ``partial_ratio`` (the best-aligned window
of the text, scored 0-100 by normalised Indel distance) reaches :data:`FUZZY_THRESHOLD` — a small edit
distance, about one character in ten, for OCR-like slips and dropped words. Excerpts shorter than
:data:`MIN_WORDS` words are never found: a two-word "quote" proves nothing.
"""

from __future__ import annotations

import re
import unicodedata

from rapidfuzz import fuzz

FUZZY_THRESHOLD = 90.0
"""rapidfuzz ``partial_ratio`` score (0-100) at or above which an excerpt counts as found (design.md#grounding)."""
MIN_WORDS = 4
"""Fewer words than this never verify."""

_QUOTES = str.maketrans({"\u2018": "'", "\u2019": "'", "\u201a": "'", "\u201b": "'", "\u2032": "'",
                         "\u201c": '"', "\u201d": '"', "\u201e": '"', "\u201f": '"', "\u2033": '"',
                         "\u00ab": '"', "\u00bb": '"', "`": "'"})
_HYPHENS = re.compile(r"\s*[\u00ad\u2010\u2011-]+\s*")
_DASHES = re.compile(r"\s*[\u2012\u2013\u2014\u2212]+\s*")
_SPACE = re.compile(r"\s+")
_EDGE = re.compile(r"^[\s\"'.,;:…]+|[\s\"'.,;:…]+$")


def normalise(text: str, *, keep_hyphens: bool = False) -> str:
    """Text reduced for comparison (see module docstring); ``keep_hyphens`` turns every dash into ``-`` instead
    of removing it (the overview's term check: ``1-10`` stays two numbers)."""
    t = unicodedata.normalize("NFKC", text).translate(_QUOTES).lower()
    t = _DASHES.sub("-" if keep_hyphens else " ", _HYPHENS.sub("-" if keep_hyphens else "", t))
    return _EDGE.sub("", _SPACE.sub(" ", t))


def excerpt_score(excerpt: str, text: str) -> float:
    """0-100: 100 when the normalised excerpt is a substring of the normalised text, else ``partial_ratio``.

    Returns 0 for an excerpt under :data:`MIN_WORDS` words or an empty text.
    """
    e, t = normalise(excerpt), normalise(text)
    if len(e.split()) < MIN_WORDS or not t:
        return 0.0
    if e in t:
        return 100.0
    if len(e) > len(t):
        return float(fuzz.ratio(e, t))
    return float(fuzz.partial_ratio(e, t, score_cutoff=FUZZY_THRESHOLD))


def excerpt_found(excerpt: str, text: str) -> bool:
    """Whether ``excerpt`` occurs in ``text`` (see module docstring)."""
    return excerpt_score(excerpt, text) >= FUZZY_THRESHOLD
