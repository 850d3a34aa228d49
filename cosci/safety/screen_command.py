"""``cosci screen``: the offline screen on texts, without a session (a lab checks its goals before spending).

    cosci screen "text"                    one text
    cosci screen --file goals.jsonl        one goal per line: plain text, a JSON string or a ``{"goal": ...}`` object
    cosci screen --file - < goals.jsonl    the same, read from standard input

One JSON line per text on stdout: ``n`` (its line, 1 for a text given inline), ``decision`` (allow / flag / block),
``category`` (null when allowed), ``rule`` (term hit, agent, score alone, unread; null when allowed), ``score`` (the
intent model's harm probability, 0-1), ``terms`` (what the term lists matched in the deciding window, as a refused
run's line names it: ``biological: "pathogen" + "more transmissible"``; empty when nothing matched — a researcher
sees what to rephrase, fresh-user trial), ``language`` (ISO 639-1, or ``unread (<language>)``) and the text's first
:data:`SHOWN_CHARS` characters; for a text refused as unread also ``advice``, the line a run prints for it (the
language and how to proceed). A line of a file that is not a text to screen (it starts like JSON but is not JSON,
a JSON object without a text ``goal``, another JSON value: an array, a number, true, false, null; a JSON escape of
half a surrogate pair (``\\ud800``, which no character is), or a text longer than a goal may be,
:data:`~cosci.config.goal.GOAL_MAX_CHARS`: the screen's time grows with the text, about 1 ms a character), or a text
a run would refuse as its goal (no research goal, a control or bidirectional control character:
:func:`as_goals`), is one line on stderr naming its line number, in its place among the results, and the other lines
are screened (a lab's file of 200 goals with one stray line is still checked). A file that cannot be read, or holds
no text, is one line on stderr, exit 2, nothing screened. The exit status follows a run's: 3 when any text is
refused (``block``, as a refused goal exits 3), else 2 when a line was no text to screen, else 0.
The decision is the one a session on a tier unable to classify (the default embedded model) would take on a goal
(docs/design.md#safety-screen).
"""

from __future__ import annotations

import json
import sys
import unicodedata
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from cosci.config.schema import SafetyCfg
from cosci.errors import CosciError
from cosci.text import BOM, unreadable_file

SHOWN_CHARS = 80
STDIN = "-"
"""The file name that means standard input (``cosci screen --file -``)."""

SCREEN_READ_BYTES = 64 << 20
"""The most of a ``--file`` (or standard input) read: 64 MiB, room for 8,000 goals of the longest (8,000 characters,
``GOAL_MAX_CHARS``), far over a lab's file of goals; a larger file, a device (``/dev/zero``) or an endless stream
(``yes | cosci screen --file -``) is refused in one line before it fills memory (the break-it pass's
``--file /dev/zero`` read until killed; design.md#cli)."""


@dataclass(frozen=True)
class Line:
    """One non-blank line of the input: its number (1-based), and either the text to screen or why it is none."""

    n: int
    text: str | None
    error: str | None = None


def read_lines(file: str) -> list[Line]:
    """Each non-blank line of the file named ``file`` (``-``: standard input, as Unix tools read it, its lines named
    ``stdin line N``): a JSON string, a JSON object's ``goal``, else the line as a plain text; a line that starts
    like JSON but is not, a JSON object without a non-empty string ``goal``, or another JSON value (an array, a
    number, true, false, null) is a :class:`Line` with an error naming the accepted shapes (:data:`SHAPES`).

    Raises:
        CosciError: the file (or standard input) cannot be read as UTF-8 text, holds over
            :data:`SCREEN_READ_BYTES`, or holds no line at all.
    """
    name = shown_name(file)
    try:
        if file == STDIN:
            data = sys.stdin.buffer.read(SCREEN_READ_BYTES + 1)
        else:
            with Path(file).open("rb") as fh:
                data = fh.read(SCREEN_READ_BYTES + 1)
        if len(data) > SCREEN_READ_BYTES:
            raise CosciError(f"screen: {name} holds over {SCREEN_READ_BYTES:,} bytes; screen it in parts (at most "
                             f"{SCREEN_READ_BYTES >> 20} MiB at a time)")
        raw = data.decode("utf-8").removeprefix(BOM).splitlines()
    except (OSError, UnicodeDecodeError) as exc:
        raise CosciError(f"screen: {unreadable_file(name, exc)}") from None
    except (AttributeError, ValueError):  # no stdin (None) or a closed one
        raise CosciError(f"screen: cannot read {name} (standard input is closed)") from None
    out = [_line(name, n, line.strip()) for n, line in enumerate(raw, 1) if line.strip()]
    if not out:
        raise CosciError(f"screen: {name} holds no text to screen")
    return out


def shown_name(file: str) -> str:
    """How a line names the file ``file``: ``stdin`` for ``-``, else the name as given."""
    return "stdin" if file == STDIN else file


SHAPES = 'each line is one goal: plain text, a JSON string or a JSON object with a text "goal"'
"""The shapes a line of ``cosci screen --file`` may take, as its errors and ``--help`` say them."""


def _line(path: str, n: int, text: str) -> Line:
    """A line read: a JSON string is the goal it encodes, a JSON object's ``goal`` the goal, any other JSON value
    (an array, a number, true, false, null) an error naming the shapes (fresh-user trial: ``["a goal", "another"]``
    was screened as one text); a line that is not JSON is plain text, unless it starts with ``{``."""
    try:
        row = json.loads(text)
    except RecursionError:  # `[[[...]]]` nested beyond Python's stack (break-it pass: a traceback)
        return Line(n, None, f"screen: {path} line {n} is JSON nested too deep to read; {SHAPES}")
    except ValueError:
        if text.startswith("{"):
            return Line(n, None, f"screen: {path} line {n} starts like JSON but is not JSON; {SHAPES}")
        return Line(n, text)
    if isinstance(row, str):
        row = {"goal": row}
    if not isinstance(row, dict):
        kind = ("a JSON array" if isinstance(row, list) else "a JSON number" if isinstance(row, int | float)
                and not isinstance(row, bool) else f"JSON {json.dumps(row)}")  # true, false, null
        return Line(n, None, f"screen: {path} line {n} is {kind}; {SHAPES}")
    if not isinstance(row.get("goal"), str) or not row["goal"].strip():
        return Line(n, None, f"screen: {path} line {n} is a JSON object without a text \"goal\"; {SHAPES}")
    # the file read as UTF-8, so a surrogate here is a JSON escape of half a pair ("\ud800"): no character at all
    if lone := next((ch for ch in row["goal"] if unicodedata.category(ch) == "Cs"), None):
        return Line(n, None, f"screen: {path} line {n} holds a lone surrogate escape (\\u{ord(lone):04x}) in its "
                             "JSON, which is no character; write the character itself or its escape pair")
    return Line(n, row["goal"])


def as_goals(lines: Sequence[Line], path: str | None = None) -> list[Line]:
    """``lines`` with each text a run would refuse as its goal turned into an error naming the file ``path`` (as
    :func:`shown_name` gives it) and its line (the text, for an inline text: ``path`` None): one longer than a goal
    may be (the length and the limit in characters), and one :func:`cosci.config.goal.check_goal` refuses (bytes
    typed on the command line that are not UTF-8, which Python holds as lone surrogates and the language reader
    cannot encode; a control or a bidirectional control character; no words: fresh-user trial, ``\\u200b\\u200b``
    and three emoji were allowed here and refused by `cosci run`). The screen's answer is a run's
    (docs/design.md#safety-screen); a JSON line's lone surrogate escape is named by :func:`read_lines`."""
    from cosci.config.errors import ConfigError
    from cosci.config.goal import GOAL_MAX_CHARS, check_goal

    def where(n: int) -> str:
        return f"{path} line {n}" if path is not None else "the text"

    def checked(x: Line) -> Line:
        if x.text is None:
            return x
        if len(x.text) > GOAL_MAX_CHARS:
            return Line(x.n, None, f"screen: {where(x.n)} holds {len(x.text):,} characters; a goal holds at most"
                                   f" {GOAL_MAX_CHARS:,} (split it into goals, or screen its parts)")
        try:
            check_goal(x.text, f"screen: {where(x.n)}")
        except ConfigError as exc:
            return Line(x.n, None, str(exc))
        return x

    return [checked(x) for x in lines]


def screened(cfg: SafetyCfg, lines: Sequence[Line]) -> Iterator[dict[str, Any] | str]:
    """In line order: one result row per text (see the module docstring), screened as goals, and the error of
    each line that is none (a str)."""
    from cosci.safety.screen import UNREAD_ADVICE, screen_for

    screen = screen_for(cfg) if any(x.text is not None for x in lines) else None
    for x in lines:
        if x.text is None or screen is None:
            yield x.error or f"screen: line {x.n} holds no text"
            continue
        r = screen.check(x.text, subject="goal")
        row = {"n": x.n, "decision": r.decision, "category": r.category, "rule": r.rule, "score": round(r.score, 3),
               "terms": list(r.hits), "language": r.language, "text": x.text[:SHOWN_CHARS]}
        if r.unread:  # what a run prints for it (fresh-user trial: the screen said only "unread")
            row["advice"] = f"{r.line()}: {UNREAD_ADVICE}"
        yield row
