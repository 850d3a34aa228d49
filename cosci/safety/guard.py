"""A fast first guard for a term list: one RE2 automaton that matches wherever any of the list's patterns could.

The offline screen asks each of its ~35 term lists about every window of a text (a hypothesis has ~25 windows), and
most of those questions find nothing. Python's ``re`` tries each branch of a list's alternation at each position of
the text, so those empty answers cost the screen of a hypothesis ~0.1 s of CPU, the largest part of a fake session's
CPU per action (docs/design.md#supervisor, "The screen's term lists"). RE2 (``google-re2``) runs an alternation of
hundreds of branches as one automaton in time linear in the text, but it lacks lookarounds, Unicode word boundaries
and Python's Unicode ``\\w``/``\\s``. So the guard is built from a *loosened* copy of each pattern that matches
everywhere the pattern does and possibly more:

- lookarounds, ``\\b``, ``\\B``, ``^``, ``$``, ``\\A`` and ``\\Z`` are dropped (a dropped condition only widens);
- ``\\w`` becomes any character but an ASCII space; ``\\s`` the Unicode separators and the ASCII controls Python
  counts as space; ``\\d`` any number; ``\\W``, ``\\S``, ``\\D`` and a negated class holding one of them become any
  character.

A text the guard finds nothing in has no match of any pattern; a text it finds something in is asked again by the
exact Python alternation, so the spans, and every decision, are those of the patterns alone. A list whose loosened
patterns RE2 cannot compile gets no guard (``None``) and is read as before.
"""

from __future__ import annotations

import re
from typing import Any

import re2

__all__ = ["Guards", "fast_guard", "finds_nothing", "loosened"]

_NOT_SPACE = r"[^\t\n\f\r ]"
"""``\\w`` loosened: any character but ASCII space. Exact Unicode word classes (``[\\pL\\pM\\pN_]``) made the
guard's search of a window many times slower (bench/README.md, "The term lists' RE2 guard"), and a word character is
never a space, so this widens and stays fast (docs/design.md#supervisor, "The screen's term lists")."""
_SPACE = r"\s\pZ\x{0b}\x{1c}-\x{1f}\x{85}"
_IN_CLASS = {"s": _SPACE, "d": r"\pN"}
_OUTSIDE = {"w": _NOT_SPACE, "s": f"[{_SPACE}]", "d": r"\pN", "W": r"[\s\S]", "S": r"[\s\S]", "D": r"[\s\S]"}
_SPACES = ("\\s", "\\t", "\\n", "\\r", "\\f", " ")
_TURKIC = str.maketrans({"\u0130": "i", "\u0131": "i"})
"""Python's case-insensitive match reads capital dotted İ and dotless ı as i, RE2's Unicode case folding does not
(the only such letters: tests/safety/test_guard.py): the guard reads both, in the text and in the patterns, as i."""
_DROPPED = set("bBAZ")
_LOOKAROUND = ("(?=", "(?!", "(?<=", "(?<!")
_NAMED = re.compile(r"\(\?P<\w+>")
GUARD_MEMORY = 64 << 20
"""RE2's memory budget for one list's automaton (bytes; RE2's default is 8 MB). The compiled program of the largest
list (the biological intent phrases, 23 patterns, ~90 KB of pattern text) leaves its lazily built DFA too little
room at 8 or 16 MB: RE2 then gives up the DFA and runs its NFA on every window, 1.7 ms a window for that list alone,
about half the screen's CPU per hypothesis. At 32 MB and above the DFA holds (0.02 ms a window); 64 MB leaves room
for lists that grow. The budget is an upper bound, not an allocation: the screen's resident memory rose 4.6 MB
(docs/design.md#supervisor, "The screen's term lists")."""
_UP_TO = re.compile(r"\{,(\d+)\}")
_PLAIN = re.compile(r"[^\\\[({^$]+")
"""A run of characters :func:`loosened` keeps as they are (none opens an escape, a class, a group or a bound, nor
is an anchor): copied in one step, not character by character (the loop was ~0.2 s of the screen's build)."""
SPLIT_CHARS = 32_000
"""Pattern text (characters) above which a list's guard is one RE2 automaton per pattern (:class:`Guards`). The
biological intent phrases grew to ~126 KB (28 patterns, a program of ~122,000 instructions): one automaton's lazily
built DFA ran out of its budget again on varied text and RE2 fell back to its NFA, 3.5-3.7 ms a window at 64 MB and
still 3.5 ms at 256 MB (with 92 MB more resident memory); one automaton per pattern read the same 3,121 windows
(the recorded abstracts and every 20th labelled text) at 0.43 ms a window on the first pass and 0.16 ms after, +24 MB
(docs/design.md#supervisor, "The screen's term lists"). The next longest lists (~16 KB) keep one automaton: 0.03 ms
a window."""


def _class_end(p: str, i: int) -> int:
    """Index just past the class opening at ``p[i]`` (a ``]`` first in it, after any ``^``, is a literal)."""
    j = i + 1
    j += p[j:j + 1] == "^"
    j += p[j:j + 1] == "]"
    while j < len(p) and p[j] != "]":
        j += 2 if p[j] == "\\" else 1
    if j >= len(p):
        raise ValueError("unterminated class")
    return j + 1


def _group_end(p: str, i: int) -> int:
    """Index just past the group opening at ``p[i]`` (escapes and classes skipped)."""
    depth, j = 0, i
    while j < len(p):
        c = p[j]
        if c == "[":
            j = _class_end(p, j)
            continue
        depth += (c == "(") - (c == ")")
        if c == ")" and depth == 0:
            return j + 1
        j += 2 if c == "\\" else 1
    raise ValueError("unbalanced group")


def _class(p: str, i: int) -> tuple[str, int]:
    """The loosened class opening at ``p[i]`` and the index past it."""
    end = _class_end(p, i)
    j = i + 1
    negated = p[j:j + 1] == "^"
    j += negated
    body = []
    if p[j:j + 1] == "]":
        body.append("\\]")
        j += 1
    while j < end - 1:
        if p[j] == "\\":
            e = p[j + 1]
            if e in "WSD" or (negated and e in "wsd"):
                return r"[\s\S]", end  # a complement inside a class: read as any character
            if e == "w":  # a word character in a class: any character but space, or any at all beside a space
                return (r"[\s\S]" if any(x in p[i:end] for x in _SPACES) else _NOT_SPACE), end
            body.append(_IN_CLASS.get(e, p[j:j + 2]))
            j += 2
            continue
        body.append("\\[" if p[j] == "[" else p[j])
        j += 1
    return "[" + "^" * negated + "".join(body) + "]", end


def loosened(pattern: str) -> str:
    """``pattern`` (Python ``re`` syntax) rewritten for RE2 to match wherever it matches, and possibly more.

    Raises:
        ValueError: an unbalanced group or an unterminated class.
    """
    out, i = [], 0
    while i < len(pattern):
        c = pattern[i]
        if plain := _PLAIN.match(pattern, i):
            out.append(plain.group())
            i = plain.end()
        elif pattern.startswith(_LOOKAROUND, i):
            i = _group_end(pattern, i)
        elif c == "\\" and i + 1 < len(pattern):
            e = pattern[i + 1]
            out.append("" if e in _DROPPED else _OUTSIDE.get(e, pattern[i:i + 2]))
            i += 2
        elif c == "[":
            text, i = _class(pattern, i)
            out.append(text)
        elif named := _NAMED.match(pattern, i):  # a named group: names would clash across the joined patterns
            out.append("(?:")
            i = named.end()
        elif up_to := _UP_TO.match(pattern, i):  # Python's {,n}, which RE2 would read as text
            out.append("{0," + up_to.group(1) + "}")
            i = up_to.end()
        else:
            out.append("" if c in "^$" else c)
            i += 1
    return "".join(out).translate(_TURKIC)


def finds_nothing(guard: Any, text: str) -> bool:
    """Whether ``guard`` (:func:`fast_guard`) finds nothing in ``text``, so that no pattern of its list matches it;
    False when RE2 cannot read the text (a lone surrogate cannot be UTF-8): the exact patterns are asked then."""
    try:
        return guard.search(text.translate(_TURKIC) if "\u0130" in text or "\u0131" in text else text) is None
    except UnicodeEncodeError:
        return False


class Guards:
    """Several RE2 automata read as one guard (:data:`SPLIT_CHARS`): :meth:`search` is the first one's match, None
    when none matches, so a text it finds nothing in has no match of any of the list's patterns, as with one."""

    def __init__(self, parts: list[Any]) -> None:
        self.parts = parts

    def search(self, text: str) -> Any | None:
        for part in self.parts:
            if (found := part.search(text)) is not None:
                return found
        return None


def fast_guard(patterns: list[re.Pattern[str]], word: str = _NOT_SPACE, memory: int = GUARD_MEMORY) -> Any | None:
    """An RE2 pattern matching wherever any of ``patterns`` does (module docstring), or None when RE2 cannot hold
    one (a group reference, an atomic group, a possessive quantifier: Python syntax RE2 lacks). ``word``: what
    ``\\w`` is read as (the default's reason: :data:`_NOT_SPACE`; ``bench.screen_guard`` times another);
    ``memory``: RE2's budget in bytes (the default's reason: :data:`GUARD_MEMORY`; the bench times RE2's own).
    A list whose loosened patterns are longer than :data:`SPLIT_CHARS` gets one automaton per pattern
    (:class:`Guards`)."""
    if not patterns or any(p.flags & re.VERBOSE for p in patterns):  # spaces and comments RE2 would read as text
        return None
    if len(patterns) > 1 and sum(len(p.pattern) for p in patterns) > SPLIT_CHARS:
        parts = [fast_guard([p], word, memory) for p in patterns]
        return None if any(g is None for g in parts) else Guards(parts)
    options = re2.Options()
    options.case_sensitive = not any(p.flags & re.IGNORECASE for p in patterns)
    options.dot_nl = any(p.flags & re.DOTALL for p in patterns)
    options.log_errors = False
    options.max_mem = memory
    try:
        return re2.compile("|".join(f"(?:{loosened(p.pattern).replace(_NOT_SPACE, word)})" for p in patterns), options)
    except (ValueError, re2.error):
        return None
