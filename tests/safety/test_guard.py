"""The term lists' RE2 guard only ever widens: wherever a list's patterns match, its guard matches."""

from __future__ import annotations

import re
from functools import cache

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from cosci.safety.guard import fast_guard, finds_nothing, loosened
from cosci.safety.prescreen import Terms, load_prescreen
from cosci.safety.text import normalise, windows


@pytest.mark.parametrize(("pattern", "text"), [
    (r"\bsarin\b", "sarin"),
    (r"\bзараз\w*\b", "заразить"),  # a Cyrillic word: Python's \w and \b read it, RE2's ASCII ones would not
    (r"\bपैथोजन\w*", "पैथोजनों को"),  # Devanagari with its vowel signs (marks)
    (r"spread(?! of vaccines)\b", "spread of vaccines"),  # the lookahead is dropped: wider
    (r"(?<=make )\btoxin", "toxin"),
    (r"\bmake[\w-]+ it\b", "make-ready it"),
    (r"\bagent[^\w]+x\b", "agent - x"),
    (r"^\bdisperse$", "we disperse"),
    (r"\bspore\s{,2}powder\b", "spore\u00a0powder"),  # Python's {,n} and Unicode space
    (r"\b(?P<verb>weaponi[sz]e)\b", "weaponize"),
    (r"\bstrain\d+\b", "strain\u0663"),  # an Arabic-Indic digit is Python's \d
])
def test_a_loosened_pattern_matches_where_the_pattern_does(pattern: str, text: str) -> None:
    guard = fast_guard([re.compile(pattern, re.IGNORECASE)])
    assert guard is not None and guard.search(text) is not None, loosened(pattern)


def test_the_guard_still_refuses_what_no_pattern_could_match() -> None:
    guard = fast_guard([re.compile(r"\bsarin\b", re.IGNORECASE), re.compile(r"\bricin\b", re.IGNORECASE)])
    assert guard is not None and guard.search("measles vaccine stability in the cold chain") is None
    assert guard.search("RICIN") is not None  # the lists' case-insensitivity is kept


def test_the_patterns_flags_are_kept_or_the_list_left_unguarded() -> None:
    dotall = fast_guard([re.compile(r"\bspore.powder\b", re.IGNORECASE | re.DOTALL)])
    assert dotall is not None and not finds_nothing(dotall, "spore\npowder")
    assert fast_guard([re.compile(r"\bspore \s powder  # the dried form", re.VERBOSE)]) is None


def test_a_pattern_re2_cannot_hold_leaves_the_list_unguarded_and_read_as_before() -> None:
    patterns = [re.compile(r"\b(\w)\1x\b", re.IGNORECASE)]  # a group reference
    assert fast_guard(patterns) is None
    terms = Terms(patterns)
    assert terms.fast is None and [s[0] for s in terms.spans("aax")] == ["aax"]


@cache
def _lists() -> tuple[Terms, ...]:
    from bench.screen_guard import term_lists

    return tuple({id(t): t for t in term_lists(load_prescreen("safety_prescreen.yaml"))}.values())


@cache
def _words() -> tuple[str, ...]:
    """Literal runs of the shipped patterns: text built of them reaches the patterns' branches."""
    found = {w for t in _lists() for p in t.patterns for w in re.findall(r"[a-z]{3,}", p.pattern)}
    return tuple(sorted(found))


_SEPARATORS = [" ", "  ", "-", "'", ", ", ". ", "\n", "\u00a0", "é", "д", "ा", "3", "_", "ı", "İ"]
_PIECES = st.deferred(lambda: st.one_of(st.sampled_from(_words()), st.sampled_from(_SEPARATORS)))  # loaded when run


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(_PIECES, min_size=1, max_size=14))
def test_the_shipped_lists_guards_are_never_narrower_than_their_patterns(pieces: list[str]) -> None:
    text = "".join(pieces)
    for part in {text, normalise(text), *windows(text)}:
        for terms in _lists():
            if terms.fast is not None and any(p.search(part) for p in terms.patterns):
                assert not finds_nothing(terms.fast, part), (part, [p.pattern for p in terms.patterns][:3])


def test_every_shipped_list_is_guarded() -> None:
    assert _lists() and all(t.fast is not None for t in _lists())


def test_python_and_the_guard_read_the_same_letters_alike_ignoring_case() -> None:
    """Every pair of letters Python's case-insensitive match reads as one (lower, upper, title and case-folded forms,
    and ``re``'s own extra cases), read alike by the guard (dotted İ and dotless ı are the only ones RE2 does not)."""
    import re._casefix as casefix

    pairs = set()
    for code in range(0x20, 0x30000):
        c = chr(code)
        forms = {c.lower(), c.upper(), c.casefold(), c.title()}
        forms |= {chr(x) for x in casefix._EXTRA_CASES.get(ord(c.lower()), ())} if len(c.lower()) == 1 else set()
        pairs |= {(c, d) for d in forms if len(d) == 1 and d != c} | {(d, c) for d in forms if len(d) == 1 and d != c}
    missed = [(c, d) for c, d in sorted(pairs) if re.fullmatch(re.escape(c), d, re.IGNORECASE)
              and finds_nothing(fast_guard([re.compile(re.escape(c), re.IGNORECASE)]), d)]
    assert len(pairs) > 2000 and missed == []
    az = fast_guard([re.compile(r"\bsar[a-z]n\b", re.IGNORECASE)])
    assert not finds_nothing(az, "SARİN") and not finds_nothing(az, "sarın gazı")


def test_a_text_re2_cannot_read_is_asked_of_the_patterns() -> None:
    terms = Terms([re.compile(r"\bsarin\b", re.IGNORECASE)])
    assert [s[0] for s in terms.spans("sarin \udcff")] == ["sarin"]
    assert terms.fast is not None and not finds_nothing(terms.fast, "\udcff")
