"""Text on one line: model-written titles in Markdown headings, error messages in a terminal line, the rows of a
plain-text table (:func:`columns`)."""

from __future__ import annotations

import math
import os
import sys
import unicodedata
from collections.abc import Sequence


def one_line(text: str, limit: int | None = None) -> str:
    """``text`` with every run of whitespace (newlines included) made one space, stripped; at most ``limit``
    characters (the last one an ellipsis) when ``limit`` is given."""
    out = " ".join(text.split())
    return out if limit is None or len(out) <= limit else out[: limit - 1] + "…"


def clip(text: str, limit: int) -> str:
    """``text`` on one line (:func:`one_line`), at most ``limit`` characters, cut at the last word boundary that
    fits, an ellipsis in place of the rest: ``clip("cannot connect to the server", 20)`` is ``"cannot connect to…"``
    (a word cut mid-way reads as a typo). A single word longer than ``limit`` is cut inside it."""
    out = " ".join(text.split())
    if len(out) <= limit:
        return out
    head = out[: limit - 1]
    space = len(head) if out[limit - 1] == " " else head.rfind(" ")
    return (head[:space] if space > 0 else head).rstrip(" ,;:.-") + "…"


def error_line(exc: BaseException, limit: int = 300) -> str:
    """The first line of an error's message (its type name when it has none), on one line, at most ``limit``
    characters."""
    message = str(exc).strip()
    return one_line(message.splitlines()[0] if message else type(exc).__name__, limit)


def unreadable_file(name: str, exc: OSError | UnicodeDecodeError) -> str:
    """Why the text file a user named (``name``, as they gave it) cannot be read, in words and with the fix, on one
    line without a Python exception's name: ``notes.txt is not UTF-8 text (byte 0xe9 at byte offset 12, line 2);
    re-save it as UTF-8`` (a fresh user read "cannot read notes.txt (UnicodeDecodeError)"), or ``/x: no such file or
    directory`` (the system's own words, lower case). ``exc``: from decoding the whole file's bytes or reading it."""
    if isinstance(exc, UnicodeDecodeError):
        data = exc.object
        line = data.count(b"\n", 0, exc.start) + 1
        return (f"{name} is not UTF-8 text (byte 0x{data[exc.start]:02x} at byte offset {exc.start}, line {line}); "
                "re-save it as UTF-8")
    why = exc.strerror or "cannot be read"
    return f"{name}: {why[:1].lower()}{why[1:]}"


def dollars(amount: float) -> str:
    """USD to the cent, and a sum under a cent to two significant figures in fixed point ("0.0056", "0.000000001":
    a budget of $0.0001 read "$0.00", and ``.2g`` printed 1e-09). No dollar sign."""
    if amount == 0 or abs(amount) >= 0.01:
        return f"{amount:.2f}"
    return f"{amount:.{1 - math.floor(math.log10(abs(amount)))}f}".rstrip("0")


def plural(n: int, word: str, many: str | None = None) -> str:
    """``word`` as it follows the count ``n`` on a line: singular for exactly one, else ``many`` (default
    ``word + "s"``): ``f"{n} {plural(n, 'session')}"`` reads ``1 session``, ``0 sessions``, ``2 sessions``."""
    return word if n == 1 else many or f"{word}s"


def columns(rows: Sequence[Sequence[str]], indent: str = "", gap: str = "  ") -> list[str]:
    """``rows`` as lines whose columns line up: every cell but a row's last padded to its column's widest cell,
    cells ``gap`` apart, each line after ``indent`` and without trailing spaces. Plain text rather than a rich
    table: rich fits a table to the terminal's width (80 columns on a pipe), wrapping or cutting the goal, while
    ``cosci list > file`` and ``| grep`` want one row a line. Widths count characters (a wide CJK character counts
    one), so only the last column should hold free text."""
    widths: dict[int, int] = {}
    for row in rows:
        for i, cell in enumerate(row[:-1]):
            widths[i] = max(widths.get(i, 0), len(cell))
    return [(indent + gap.join([*(c.ljust(widths[i]) for i, c in enumerate(row[:-1])), *row[-1:]])).rstrip()
            for row in rows]


def counted(n: int, word: str, many: str | None = None) -> str:
    """``n`` and :func:`plural` of ``word``: ``1 call``, ``3 calls``, ``1 match``, ``2 matches`` (``many``)."""
    return f"{n} {plural(n, word, many)}"


def escaped(text: str) -> str:
    """``text`` with every control character escaped as ``repr`` escapes it (``\\n``, ``\\t``, ``\\x1b``), and every
    bidirectional control as ``\\u202e`` (:func:`bidi_escaped`), and a byte that is not UTF-8 as ``\\xff``: an id or
    value the researcher typed cannot break the one-line rule, reach the terminal as an escape sequence or show the
    line reversed (design.md#cli)."""
    out = bidi_escaped("".join(repr(ch)[1:-1] if unicodedata.category(ch) == "Cc" else ch for ch in text))
    try:  # bytes that were not UTF-8 (an id typed as $'\\xff') shown as the byte typed, \\xff, not \\udcff
        return out.encode("utf-8", "surrogateescape").decode("utf-8", "backslashreplace")
    except UnicodeEncodeError:  # a lone surrogate no byte makes: stderr's own escape
        return out


def say(line: str) -> None:
    """``cosci: <line>`` on stderr, control characters escaped (:func:`escaped`): every error and warning line."""
    print(f"cosci: {escaped(line)}", file=sys.stderr)


BOM = "\ufeff"
"""The byte order mark a Windows editor (Notepad) writes first in a UTF-8 file: invisible, no part of what the
researcher typed, so it is dropped from the start of a file they name (``session.goal_file``, ``cosci screen
--file``, ``investigate draft --brief``; the break-it pass found it kept at the start of a goal; design.md#cli)."""


TEXT_WHITESPACE = frozenset("\n\t\r")
"""The control characters a researcher's text may hold (line breaks, tabs)."""


def shown_path(path: str) -> str:
    """``path`` as a line can print it: bytes that are not UTF-8 (held by Python as lone surrogates) written as
    ``\\xff`` escapes, the rest as typed."""
    return os.fsencode(path).decode("utf-8", "backslashreplace")


def unreadable_path(flag: str, path: str) -> str | None:
    """Why the file name ``path`` (given with ``flag``, e.g. ``--file``) cannot be recorded, or None: a name whose
    bytes are not UTF-8, which no store, Prefect parameter or MLflow tag can hold (design.md#cli)."""
    if any(unicodedata.category(ch) == "Cs" for ch in path):
        return f"{flag} {shown_path(path)}: the path is not valid UTF-8; rename the file (or link it) to a UTF-8 name"
    return None


BIDI_CONTROLS = frozenset(chr(c) for c in (*range(0x202A, 0x202F), *range(0x2066, 0x206A)))
"""The bidirectional embeddings, overrides and isolates (U+202A-U+202E, U+2066-U+2069): each reorders the text
that follows on screen, so ``Suggest drugs <U+202E>for AML`` is stored, screened and quoted into prompts in one
order and shown in another (design.md#cli). The marks U+200E, U+200F and U+061C are not among them: they reorder
nothing but the neutral characters beside them, and a right-to-left goal is written without any control."""


def bidi_escaped(text: str) -> str:
    """``text`` with each bidirectional control (:data:`BIDI_CONTROLS`) written as its escape, ``\\u202e``, the rest as
    stored: a goal a session stored before such goals were refused is displayed in the order it is read, not
    reversed (``cosci list``, ``status``, the report and its page; design.md#cli)."""
    return "".join(f"\\u{ord(ch):04x}" if ch in BIDI_CONTROLS else ch for ch in text)


def bidi_control(text: str) -> str | None:
    """The first bidirectional control in ``text`` named, with its 1-based character position and how many more:
    ``(U+202E RIGHT-TO-LEFT OVERRIDE) at character 15, and 1 more``; None when it holds none."""
    at = [i for i, ch in enumerate(text, 1) if ch in BIDI_CONTROLS]
    if not at:
        return None
    ch, more = text[at[0] - 1], f", and {len(at) - 1} more" if len(at) > 1 else ""
    return f"(U+{ord(ch):04X} {unicodedata.name(ch)}) at character {at[0]}{more}"


def unreadable(flag: str, text: str) -> str | None:
    """Why ``text`` (given with ``flag``, e.g. ``--why`` or ``session.goal``) cannot be stored as typed, or None:
    bytes that are not UTF-8 (Python keeps them as lone surrogates, which no store or screen can encode), a
    control character other than a line break or a tab (``\\x01``, an ANSI escape that would run in a terminal
    that prints it), or a bidirectional control (:data:`BIDI_CONTROLS`, the first named with its 1-based character
    position; refused rather than stripped: design.md#cli)."""
    if any(unicodedata.category(ch) == "Cs" for ch in text):
        return f"{flag} is not valid UTF-8; retype it or save the file as UTF-8"
    bad = sorted({ch for ch in text if unicodedata.category(ch) == "Cc" and ch not in TEXT_WHITESPACE})
    if bad:
        return (f"{flag} holds a control character ({', '.join(repr(ch)[1:-1] for ch in bad)}); retype it without "
                "(line breaks and tabs are kept)")
    if bidi := bidi_control(text):
        return (f"{flag} holds a bidirectional control character {bidi}; it shows the text in another order than "
                "it is read: retype it without")
    return None
