"""A plain agent name read misspelled or as the head of a compound ("botchulinum", "uranuim", "anthraxsporen"):
what a term list's ``names`` match besides their patterns (:class:`cosci.safety.prescreen.Terms`,
docs/design.md#safety-screen)."""

from __future__ import annotations

from functools import lru_cache

from rapidfuzz.distance import OSA

FUZZY_MIN_CHARS = 6
"""Shortest name read misspelled by any one edit or as the head of a compound; a five-letter name (sarin, ricin)
has too many real neighbours (satin, rican) and is read misspelled only with one letter added ("sarrin")."""
NOT_MISSPELLINGS = frozenset({"plaque", "plaques", "radius", "stores", "bonnet", "toxic", "toxics", "satin",
                              "saris", "sabin", "rican", "lasso", "scores", "spares", "shores", "mustang",
                              "chloride", "chlorides", "chlorite", "chlorate", "spreadsheet", "spreadsheets"})
"""Real words one edit away from a name (amyloid plaque, radium, sodium chloride): never read as its misspelling.
Edits are optimal string alignment: a swap of two neighbouring letters ("uranuim") is one edit."""


def misspelling(name: str, token: str) -> bool:
    """Whether ``token`` reads as ``name`` misspelled or as a compound it heads (see :data:`FUZZY_MIN_CHARS`)."""
    if token == name or token[0] != name[0] or token in NOT_MISSPELLINGS:
        return False
    if len(name) < FUZZY_MIN_CHARS:
        return len(token) == len(name) + 1 and OSA.distance(name, token, score_cutoff=1) <= 1
    if token.startswith(name):
        return True
    # two edits for a long name, or for a name of nine letters or more read with its ending intact ("botchulinum")
    edits = 2 if len(name) >= 11 or (len(name) >= 9 and token[-3:] == name[-3:]) else 1
    return abs(len(name) - len(token)) <= edits and OSA.distance(name, token, score_cutoff=edits) <= edits


@lru_cache(maxsize=1 << 16)
def reads_as_one_of(names: tuple[str, ...], token: str) -> bool:
    """Whether ``token`` is a misspelling or compound of one of ``names`` (cached: words repeat across texts)."""
    return any(misspelling(name, token) for name in names)
