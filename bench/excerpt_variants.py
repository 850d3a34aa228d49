"""Variants of a quoted sentence for the labelled excerpt set (``tests/data/excerpts/``).

Each function takes the sentence, a seeded RNG and the pools it may draw on, and returns ``(excerpt, detail)``
or None when the sentence offers nothing to vary. *Should verify*: the same words presented differently.
*Must not*: one meaning-bearing edit (a number, a unit, a negation, a direction word, an entity, a hedge).
Nothing here knows how :mod:`cosci.grounding.excerpts` decides.
"""

from __future__ import annotations

import random
import re
import unicodedata
from collections.abc import Callable

from breame.data.spelling_constants import AMERICAN_ENGLISH_SPELLINGS, BRITISH_ENGLISH_SPELLINGS

Variant = tuple[str, str] | None
WORD = re.compile(r"\S+")
NUMBER = re.compile(r"(?<![\w.])([−-]?)(\d+(?:\.\d+)?)(?![\w.]*\d)")
UNIT_SWAPS = {"mg": "µg", "µg": "mg", "μg": "mg", "g": "kg", "kg": "g", "mM": "µM", "µM": "nM", "μM": "nM",
              "nM": "µM", "M": "mM", "h": "min", "min": "h", "s": "ms", "ms": "s", "nm": "µm", "µm": "nm",
              "μm": "nm", "mm": "cm", "cm": "mm", "°C": "K", "K": "°C", "mL": "µL", "ml": "µl", "µL": "mL",
              "L": "mL", "kDa": "Da", "mV": "V", "V": "mV", "kV": "V", "eV": "meV", "W": "mW", "mW": "W",
              "Hz": "kHz", "kHz": "MHz", "MHz": "GHz", "GHz": "MHz", "days": "weeks", "weeks": "months",
              "months": "years", "years": "months", "wt%": "mol%", "mol%": "wt%", "Pa": "kPa", "MPa": "GPa",
              "GPa": "MPa", "mol": "mmol", "mmol": "mol", "nmol": "µmol", "ppm": "ppb", "bp": "kb", "Gy": "cGy"}
DIRECTION_PAIRS = [("increase", "decrease"), ("increased", "decreased"), ("increases", "decreases"),
                   ("increasing", "decreasing"), ("higher", "lower"), ("high", "low"), ("upregulated", "downregulated"),
                   ("up-regulated", "down-regulated"), ("upregulation", "downregulation"), ("inhibit", "activate"),
                   ("inhibited", "activated"), ("inhibits", "activates"), ("inhibition", "activation"),
                   ("enhanced", "reduced"), ("enhance", "reduce"), ("enhances", "reduces"), ("promotes", "suppresses"),
                   ("promoted", "suppressed"), ("promote", "suppress"), ("more", "less"), ("improved", "impaired"),
                   ("improve", "impair"), ("positive", "negative"), ("positively", "negatively"), ("gain", "loss"),
                   ("rise", "fall"), ("above", "below"), ("faster", "slower"), ("stronger", "weaker"),
                   ("strong", "weak"), ("elevated", "reduced"), ("augmented", "attenuated"), ("larger", "smaller"),
                   ("greater", "smaller"), ("maximum", "minimum"), ("superior", "inferior"), ("better", "worse"),
                   ("agonist", "antagonist"), ("stabilizes", "destabilizes"), ("hydrophobic", "hydrophilic"),
                   ("anodic", "cathodic"), ("accelerated", "slowed"), ("enhancement", "reduction"), ("up", "down"),
                   ("efficient", "inefficient"), ("stable", "unstable"), ("increment", "decrement"),
                   ("reduction", "increase"), ("improvement", "deterioration"), ("excellent", "poor")]
DIRECTION = {a: b for a, b in DIRECTION_PAIRS} | {b: a for a, b in DIRECTION_PAIRS}
AUXILIARIES = ("is", "are", "was", "were", "can", "could", "does", "did", "has", "have", "had", "will", "would",
               "should", "may", "might", "must")
NEGATIONS = {"not ": "", "no ": "a ", "without ": "with ", "never ": "", "cannot ": "can ", "unaffected": "affected",
             "unable": "able", "non-": "", "lack of ": "", "failed to ": "", "neither ": "either ", "nor ": "or "}
HEDGES = {"may ": "", "might ": "", "could ": "can ", "possibly ": "", "potentially ": "", "likely ": "",
          "probably ": "", "putative ": "", "suggest that": "show that", "suggests that": "shows that",
          "suggested that": "showed that", "appears to be": "is", "appear to be": "are", "seems to": "does",
          "presumably ": "", "is thought to": "does", "potential ": "", "partially ": "fully ", "partly ": "fully "}
LIGATURES = {"fi": "\ufb01", "fl": "\ufb02", "ff": "\ufb00"}
CITATIONS = (" [12]", " [3, 7]", " (4)", " (Smith et al., 2019)", "\u00b9\u2074", " [21\u201323]")


def words(s: str) -> list[str]:
    return WORD.findall(s)


def _one(rng: random.Random, options: list[tuple[int, int, str]], s: str) -> tuple[str, str] | None:
    """Apply one of ``(start, end, replacement)`` to ``s``."""
    if not options:
        return None
    a, b, new = rng.choice(options)
    return s[:a] + new + s[b:], f"'{s[a:b]}' -> '{new}'"


# --- should verify -------------------------------------------------------------------------------------------
def verbatim(s: str, rng: random.Random) -> Variant:
    return s, "the sentence as written"


def truncated(s: str, rng: random.Random) -> Variant:
    ws = [m for m in WORD.finditer(s)]
    if len(ws) < 9:
        return None
    k = rng.randint(5, len(ws) - 3)
    if rng.random() < 0.5:
        return s[: ws[k - 1].end()], f"first {k} words"
    return s[ws[len(ws) - k].start():], f"last {k} words"


def whitespace(s: str, rng: random.Random) -> Variant:
    spaces = [m.start() for m in re.finditer(" ", s)]
    picks = set(rng.sample(spaces, min(len(spaces), rng.randint(2, 5))))
    out = "".join(rng.choice(["  ", "\n", "\t", " \u00a0", "\u2009"]) if i in picks else c for i, c in enumerate(s))
    return f"  {out}\n", "spaces replaced by newlines, tabs, double and non-breaking spaces"


def case(s: str, rng: random.Random) -> Variant:
    how = rng.choice(["upper", "lower", "title"])
    return {"upper": s.upper(), "lower": s.lower(), "title": s.title()}[how], how


def unicode_forms(s: str, rng: random.Random) -> Variant:
    out, done = s, []
    for a, b in LIGATURES.items():
        if a in out:
            out, _ = out.replace(a, b, 1), done.append("ligature")
    out = out.replace("'", "\u2019").replace(" \"", " \u201c").replace("\" ", "\u201d ")
    out = re.sub(r"(?<=\w)-(?=\w)", "\u2011", out) if "-" in out else out
    out = out.replace("µ", "μ") if "µ" in out else out.replace("μ", "µ")
    if rng.random() < 0.5:
        out, _ = unicodedata.normalize("NFD", out), done.append("NFD")
    ws = [m.end() for m in WORD.finditer(out) if m.end() - m.start() > 7]
    if ws:
        at = rng.choice(ws) - 3
        out, _ = out[:at] + "\u200b" + out[at:], done.append("zero-width space")
    return (out, ", ".join(done) or "quotes") if out != s else None


def hyphenation(s: str, rng: random.Random) -> Variant:
    compounds = [m for m in re.finditer(r"\b([A-Za-z]{3,})-([a-z]{3,})\b", s)]
    if compounds and rng.random() < 0.5:
        m = rng.choice(compounds)
        return s[: m.start()] + m.group(1) + m.group(2) + s[m.end():], f"'{m.group(0)}' written closed"
    long = [m for m in re.finditer(r"\b[a-z]{9,}\b", s)]
    if not long:
        return None
    m = rng.choice(long)
    cut = m.start() + rng.randint(3, len(m.group(0)) - 3)
    return s[:cut] + rng.choice(["-\n", "- ", "\u00ad"]) + s[cut:], f"'{m.group(0)}' hyphenated at a line break"


def spelling(s: str, rng: random.Random) -> Variant:
    opts = [(m.start(), m.end(), table[m.group(0).lower()]) for m in re.finditer(r"[A-Za-z]+", s)
            for table in (AMERICAN_ENGLISH_SPELLINGS, BRITISH_ENGLISH_SPELLINGS) if m.group(0).lower() in table]
    return _one(rng, opts, s)


def ellipsis(s: str, rng: random.Random) -> Variant:
    ws = [m for m in WORD.finditer(s)]
    if len(ws) < 10:
        return None
    a = rng.randint(3, len(ws) - 6)
    b = rng.randint(a + 2, min(a + 10, len(ws) - 3))
    mark = rng.choice([" ... ", " … ", " [...] ", "... "])
    return s[: ws[a - 1].end()] + mark + s[ws[b].start():], f"words {a + 1}-{b} left out"


def citation_marker(s: str, rng: random.Random) -> Variant:
    return s.rstrip(". ") + rng.choice(CITATIONS) + ".", "a trailing citation marker"


# --- must not verify -----------------------------------------------------------------------------------------
def _number_detail(s: str, a: int, b: int) -> str:
    before, after = s[max(0, a - 6):a], s[b:b + 8]
    if re.search(r"[pP]\s*[<=>≤]\s*$", before):
        return "p_value"
    if re.match(r"\s*(%|percent|per cent)", after):
        return "percentage"
    if re.match(r"-?\s*fold", after):
        return "fold"
    if re.match(r"\s*[–-]\s*\d", after) or re.search(r"\d\s*[–-]\s*$", before):
        return "range"
    if re.match(r"\s*[A-Za-zµμ°]", after):
        return "with_unit"
    return "plain"


CITATION_GROUP = re.compile(r"(?<=[\w)\]}])\(\d+(?:[,–-]\d+)*\)|\[\d+(?:[,–-]\s?\d+)*\]|\bref\.\s*\d+|[(]\d+[)]\.?$")


def number(s: str, rng: random.Random) -> Variant:
    """One number changed (not a year, not a citation marker such as ``defects(4)`` or ``[12]``)."""
    cites = [range(m.start(), m.end()) for m in CITATION_GROUP.finditer(s)]
    opts = []
    for m in NUMBER.finditer(s):
        if any(m.start(2) in r for r in cites):
            continue
        sign, value = m.group(1), m.group(2)
        if len(value) == 4 and value.startswith(("19", "20")) and not sign:
            continue  # a year
        if sign and rng.random() < 0.5:
            opts.append((m.start(), m.end(), value, "sign"))
            continue
        if "." in value:
            whole, frac = value.split(".")
            new = f"{whole}.{(int(frac) + rng.randint(1, 8)) % 10 ** len(frac):0{len(frac)}d}"
        else:
            new = str(int(value) * rng.choice([2, 3, 10]) if int(value) else rng.randint(1, 9))
        if new != value:
            opts.append((m.start(2), m.end(2), new, _number_detail(s, m.start(2), m.end(2))))
    if not opts:
        return None
    a, b, new, detail = rng.choice(opts)
    return s[:a] + new + s[b:], f"{detail}: '{s[a:b]}' -> '{new}'"


def unit(s: str, rng: random.Random) -> Variant:
    opts = [(m.start(2), m.end(2), UNIT_SWAPS[m.group(2)])
            for m in re.finditer(r"(\d\s?)(°C|wt%|mol%|[A-Za-zµμ]+)(?![\w])", s) if m.group(2) in UNIT_SWAPS]
    return _one(rng, opts, s)


def negation(s: str, rng: random.Random) -> Variant:
    low = s.lower()
    dropped = [(low.find(k), low.find(k) + len(k), v) for k, v in NEGATIONS.items() if re.search(rf"\b{re.escape(k)}",
                                                                                                 low)]
    added = [(m.end(), m.end(), " not") for m in re.finditer(rf"\b(?:{'|'.join(AUXILIARIES)})\b", s)
             if not s[m.end():].lstrip().lower().startswith("not")]
    added += [(m.start(), m.end(), "without") for m in re.finditer(r"\bwith\b", s)]
    if dropped and (not added or rng.random() < 0.5):
        out = _one(rng, dropped, s)
        return (out[0], "dropped " + out[1]) if out else None
    out = _one(rng, added, s)
    return (out[0], "added " + out[1]) if out else None


def direction(s: str, rng: random.Random) -> Variant:
    opts = []
    for m in re.finditer(r"[A-Za-z-]+", s):
        w = m.group(0)
        new = DIRECTION.get(w.lower())
        if new:
            opts.append((m.start(), m.end(), new.capitalize() if w[0].isupper() else new))
    return _one(rng, opts, s)


def entity(s: str, rng: random.Random, pool: dict[str, list[str]], classify: Callable[[str], str | None]) -> Variant:
    opts = []
    for m in re.finditer(r"[A-Za-z0-9][\w+/-]*[\w+]|[A-Z]", s):
        cls = classify(m.group(0))
        others = [e for e in pool.get(cls or "", []) if e.lower() != m.group(0).lower() and e not in s]
        if cls and others:
            opts.append((m.start(), m.end(), rng.choice(others)))
    out = _one(rng, opts, s)
    return out


def _third_person(verb: str) -> str:
    if verb == "be":
        return "is"
    if verb == "have":
        return "has"
    if re.search(r"(s|sh|ch|x|z)$", verb):
        return verb + "es"
    return verb[:-1] + "ies" if re.search(r"[^aeiou]y$", verb) else verb + "s"


def hedge(s: str, rng: random.Random) -> Variant:
    modal = [(m.start(), m.end(), _third_person(m.group(2)))
             for m in re.finditer(r"\b(may|might|could)\s+([a-z]+)\b", s)
             if m.group(2) not in ("not", "also", "be") or m.group(2) == "be"]
    if modal and rng.random() < 0.6:
        return _one(rng, modal, s)
    low = s.lower()
    opts = [(low.find(k), low.find(k) + len(k), v) for k, v in HEDGES.items() if re.search(rf"\b{re.escape(k)}", low)]
    return _one(rng, opts, s)
