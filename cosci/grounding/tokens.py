"""Text reduced to comparable tokens, and the classes of tokens that carry a claim's meaning.

Used by :mod:`cosci.grounding.excerpts` (is a quote really in its source?) and :mod:`cosci.grounding.claims`
(``normalise`` for term checks). Presentation differences vanish here, so that they never count as a
difference later (``docs/design.md#excerpt-verification``):

- Unicode: NFKC (ligatures ``ﬁ`` -> ``fi``, full-width forms, the micro sign), format characters removed (soft
  hyphens, zero-width spaces), every quote and prime one kind, case folded, Greek letters spelled out
  (``TNF-α`` = ``TNF-alpha``), ``μ`` written ``u`` (``μM`` = ``uM``), ``×`` written ``x``, ``per cent`` /
  ``percent`` = ``%``,
  ``n't`` = ``not``.
- Hyphenation: a hyphen inside a word or across a line break separates parts that are compared joined
  (``anti-tumour`` = ``antitumour`` = ``anti- tumour``); a dash or hyphen between two numbers is a range
  token ``-``; before a number it is a minus sign; after a symbol (``CD34-``) a sign token.
- Spelling: British forms become American (the ``breame`` dictionary, then morphemes of the medical
  vocabulary it lacks: ``haem`` -> ``hem``, ``leukaem`` -> ``leukem``, ``oesoph`` -> ``esoph``, ``-isation``
  -> ``-ization``, ``-yse`` -> ``-yze``, ``-elled`` -> ``-eled``...). Both texts are treated alike, so a
  rule can only merge two words that differ by that rule.
- Citation markers: numeric brackets (``[12]``, ``[3-5]``) are dropped; superscript digits after a word are
  kept as their own token (``^12``), which an excerpt may leave out; ``10⁵`` and ``10^5`` are the same.

Token classes (:func:`token_class`), for naming what differs: ``number`` (any digit), ``sign`` (``- + < > ≤ ≥
± = ~``), ``unit``, ``negation``, ``direction`` (polarity and change words), ``hedge``, ``contrast`` (``but``,
``although``, ``whereas``...), ``entity`` (capitalised or alphanumeric symbols as written, or a term of a given
vocabulary) and ``wording``. What an ellipsis may not skip uses the same lists (:func:`negating`, :data:`HEDGE`,
:data:`CONTRAST`; ``docs/design.md#excerpt-verification``).
"""

from __future__ import annotations

import re
import unicodedata
from dataclasses import dataclass
from functools import lru_cache

from breame.spelling import get_american_spelling

GREEK = dict(zip("αβγδεζηθικλνξπρστυφχψω", ["alpha", "beta", "gamma", "delta", "epsilon", "zeta", "eta", "theta",
                                             "iota", "kappa", "lambda", "nu", "xi", "pi", "rho", "sigma", "tau",
                                             "upsilon", "phi", "chi", "psi", "omega"], strict=True))
MORPHEMES = (("haem", "hem"), ("aemia", "emia"), ("aemic", "emic"), ("leukaem", "leukem"), ("ischaem", "ischem"),
             ("anaesth", "anesth"), ("oesoph", "esoph"), ("oestr", "estr"), ("oedem", "edem"), ("foet", "fet"),
             ("paed", "ped"), ("aetiol", "etiol"), ("gynaec", "gynec"), ("coeliac", "celiac"), ("caesium", "cesium"),
             ("sulph", "sulf"), ("isation", "ization"), ("ising", "izing"), ("ised", "ized"), ("ises", "izes"),
             ("yse", "yze"), ("ysed", "yzed"), ("ysing", "yzing"), ("elled", "eled"), ("elling", "eling"),
             ("metre", "meter"), ("litre", "liter"), ("tumour", "tumor"), ("colour", "color"), ("fibre", "fiber"))
"""British morphemes the dictionary misses, applied to words of 6 letters or more (``rise`` stays ``rise``)."""

def _split(text: str) -> list[str]:
    return text.split()


NEGATION = frozenset(_split("""
not no never without none neither nor cannot fail fails failed failing failure lack lacks
lacked lacking absent absence unable non nothing nobody nowhere unaffected insignificant
"""))
DIRECTION_STEMS = ("increas", "decreas", "reduc", "elevat", "enhanc", "inhibit", "activat", "suppress", "promot",
                   "upregulat", "downregulat", "stimulat", "attenuat", "augment", "amplif", "impair", "improv",
                   "worsen", "accelerat", "diminish", "abolish", "abrogat", "restor", "prevent", "induc", "block",
                   "boost", "lower", "higher", "rais", "declin", "exceed", "overexpress", "deplet", "accumulat",
                   "potentiat", "antagoni", "agoni", "sensitiz", "resist", "protect", "toxic", "gain", "loss",
                   "positiv", "negativ", "favor", "harm", "benefi", "strengthen", "weaken", "shorten", "lengthen",
                   "prolong", "delay", "hasten", "slow", "fast", "faster", "drop", "rise", "rose", "risen", "fell",
                   "fall", "grow", "shrink", "expan", "contract", "loss", "lost")
DIRECTION = frozenset(_split("""
up down more less greater fewer larger smaller above below over under better worse
superior inferior maximal minimal most least
"""))
HEDGE = frozenset(_split("""
may might could possibly possible potentially potential likely unlikely suggest suggests
suggested suggesting suggestive appear appears appeared seem seems seemed putative
presumably perhaps probably probable indicate indicates indicated hypothesize hypothesized
hypothesis tend tends partially partly speculate speculative preliminary apparently
plausibly conceivably tentative tentatively presumed postulated marginally uncertain unclear
"""))
CONTRAST = frozenset(_split("""
but although though whereas however while whilst yet despite nevertheless nonetheless conversely
unlike except unless instead albeit notwithstanding
"""))
"""Contrast and exception markers: a clause they open limits or opposes the claim next to it."""
NEGATED_STEMS = frozenset(_split("""
significant significantly changed altered affected effective effectively detectable detected
responsive successful successfully related correlated associated able active sufficient consistent
consistently possible reproducible feasible safe tolerated modified impaired
"""))
"""Stems a negating prefix (``non``, ``un``, ``in``, ``im``, ``ir``) turns into a negated result
(``nonsignificant``, ``unchanged``, ``ineffective``); other prefixed words (``noninvasive``) negate nothing."""
_NEGATING_PREFIX = re.compile(r"^(?:non|un|in|im|ir)(?P<stem>[a-z]{4,})$")
GAP_NEGATION = NEGATION | frozenset(_split("""
nobody hardly scarcely barely rarely seldom little deficient deficiency null devoid inability
"""))
"""Negations an ellipsis may not skip: :data:`NEGATION` (``failure`` too: a gap that holds ``heart failure`` is
refused rather than risk passing ``failure to respond``), negative adverbs (``rarely``, ``little effect``,
``little is known``) and absence words (``Nrf2-deficient``, ``an inability to``)."""
UNITS = frozenset(_split("""
% mg g kg ug ng pg fg l ml ul nl dl m mm um nm pm cm km mol mmol umol nmol pmol mm nm h hr
hrs hour hours min mins minute minutes s sec ms us d day days wk week weeks mo month
months y yr yrs year years c k f kda da bp kb mb gb gy sv hz khz mhz ghz v mv kv ev kev
mev w mw kw j kj kcal cal pa kpa mpa gpa bar atm torr rpm ppm ppb fold iu u wt vol eq
equiv ohm lux
"""))
ARTICLES = frozenset({"the", "an"})
"""Tokens an excerpt may add or leave out (``a`` too when written in lower case: ``vitamin A`` is a name)."""

_QUOTES = str.maketrans({c: "'" for c in "\u2018\u2019\u201a\u201b\u2032\u00b4`"}
                        | {c: '"' for c in "\u201c\u201d\u201e\u201f\u2033\u00ab\u00bb"} | {"\u00d7": " x "})
_SUPER = str.maketrans("⁰¹²³⁴⁵⁶⁷⁸⁹⁺⁻", "0123456789+-")
_SUPER_RUN = re.compile(r"(?<=\w)([⁰¹²³⁴⁵⁶⁷⁸⁹]+)(?![⁺⁻])")
_CITE_BRACKET = re.compile(r"\[\s*\d+(?:\s*[,;\u2010\u2011\u2013\u2014\u2212-]\s*\d+)*\s*\](?![\w])"
                           r"|(?<=[^\W\d_]{3})\(\d+(?:[,\u2010\u2011\u2013\u2212-]\d+)*\)(?![\w])")
_PERCENT = re.compile(r"\bper\s?cent\b", re.I)
_NOT = re.compile(r"n't\b", re.I)
_SIGN = "\ue000"
"""Stands for a minus or range hyphen while the other dashes become spaces."""
_HYPHENS = "\u2010\u2011\u2012\u2013\u2014\u2015\u2212\u00ad-"
_RANGE = re.compile(rf"(?<=\d)\s*[{_HYPHENS}]\s*(?=\d)")
_MINUS = re.compile(r"(?:(?<=^)|(?<=[\s(=<>≤≥:,;\[]))[\u2212\u2013-]\s*(?=\d)")
_TRAILING_SIGN = re.compile(r"(?<=\d)[\u2212-](?=[\s,.;:)\]]|$)")
_LINE_BREAK = re.compile(r"(?<=[^\W\d_])[\u00ad\u2010\u2011-]\s+(?=[^\W\d_])")
_INNER = re.compile(r"(?<=\w)[\u2010\u2011-](?=\w)")
_DASH = re.compile(rf"[{_HYPHENS}]")
_TOKEN = re.compile(r"\^\d+|\d+(?:[.,]\d+)*[^\W_]*|[^\W\d_][^\W_]*|[%<>≤≥±+=/~×]|-")
_THOUSANDS = re.compile(r"(?<=\d),(?=\d{3}(?!\d))")


@dataclass(frozen=True)
class Token:
    """One token: ``key`` is what is compared, ``raw`` how the text wrote it; ``start``/``end`` are offsets in
    the prepared text (:func:`prepare`)."""

    key: str
    raw: str
    start: int = 0
    end: int = 0

    @property
    def superscript(self) -> bool:
        return self.key.startswith("^")


def prepare(text: str, inner: str = " ") -> str:
    """The text with Unicode, quotes, citation brackets, superscripts and dashes made uniform, case kept.

    ``inner`` replaces a hyphen inside a word (one character, so offsets are those of the default form): a mark
    there tells ``IL-6`` from ``in 6``."""
    t = _SUPER_RUN.sub(lambda m: "^" + m.group(1).translate(_SUPER), text)
    t = "".join(ch for ch in unicodedata.normalize("NFKC", t.translate(_SUPER)) if unicodedata.category(ch) != "Cf"
                or ch == "\u00ad")
    t = _CITE_BRACKET.sub(" ", t.translate(_QUOTES))
    t = _NOT.sub(" not", _PERCENT.sub("%", t))
    t = _LINE_BREAK.sub("", _RANGE.sub(f" {_SIGN} ", t))
    t = _TRAILING_SIGN.sub(f" {_SIGN}", _MINUS.sub(f" {_SIGN} ", t))
    t = _DASH.sub(" ", _INNER.sub(inner, t.replace("\u00ad", "")))
    return _THOUSANDS.sub("", t).replace(_SIGN, "-")


@lru_cache(maxsize=65536)
def spelling(word: str) -> str:
    """The American form of a lower-case word (see module docstring); other words unchanged."""
    out = get_american_spelling(word) if word.isalpha() else word
    if len(out) >= 6:
        for british, american in MORPHEMES:
            out = out.replace(british, american)
    return out


def key_of(raw: str) -> str:
    """The comparable form of one token as written."""
    low = raw.casefold()
    low = "".join(GREEK.get(ch, ch) for ch in low).replace("μ", "u")
    return spelling(low) if low.isalpha() else low


def tokenize(text: str) -> list[Token]:
    """Tokens of ``text`` (see module docstring); punctuation other than signs is dropped."""
    prepared = prepare(text)
    return [Token(key_of(m.group(0)), m.group(0), m.start(), m.end()) for m in _TOKEN.finditer(prepared)]


def words(tokens: list[Token]) -> int:
    """How many tokens are words or numbers (not signs, not superscripts)."""
    return sum(1 for t in tokens if t.key[:1].isalnum())


def ignorable(t: Token) -> bool:
    """An article an excerpt may add or leave out."""
    return t.key in ARTICLES or t.raw == "a"


def direction(key: str) -> bool:
    return key in DIRECTION or any(key.startswith(s) for s in DIRECTION_STEMS)


def negating(key: str) -> bool:
    """Whether a token key negates what it governs: a word of :data:`GAP_NEGATION`, or a negating prefix on a
    result word (``nonsignificant``, ``unchanged``, ``ineffective``; not ``noninvasive``)."""
    if key in GAP_NEGATION:
        return True
    m = _NEGATING_PREFIX.match(key)
    return m is not None and m.group("stem") in NEGATED_STEMS


def token_class(t: Token, vocabulary: frozenset[str] = frozenset()) -> str:
    """The class of a token (see module docstring), most meaning-bearing first."""
    k = t.key.lstrip("^")
    if any(ch.isdigit() for ch in k):
        return "number"
    if k in {"-", "+", "<", ">", "≤", "≥", "±", "=", "~"}:
        return "sign"
    if k in UNITS or k in {"/", "×"}:
        return "unit"
    if k in NEGATION or (k.startswith("non") and len(k) > 5):
        return "negation"
    if direction(k):
        return "direction"
    if k in HEDGE:
        return "hedge"
    if k in CONTRAST:
        return "contrast"
    if k in vocabulary or any(ch.isupper() for ch in t.raw[1:]) or (t.raw[:1].isupper() and len(t.raw) <= 5):
        return "entity"
    return "wording"


def normalise(text: str) -> str:
    """One comparable string: the token keys joined by single spaces (``1-10`` -> ``1 - 10``, ``MOLM-13`` ->
    ``molm 13``, ``Anti-Tumour`` -> ``anti tumor``)."""
    return " ".join(t.key for t in tokenize(text))
