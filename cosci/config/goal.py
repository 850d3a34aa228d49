"""The research goal's rules: a goal file read into the goal, its length and form, and an experiment's preferences
dropped when the session states another goal (design.md#cli, design.md#experiments)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from cosci.config.errors import ConfigError
from cosci.text import BOM, bidi_control, bidi_escaped, one_line, unreadable, unreadable_file, unreadable_path


def read_goal_file(path: str) -> str:
    """The research goal held in ``path`` (UTF-8 text, surrounding whitespace dropped).

    Raises:
        ConfigError: the path is not valid UTF-8 (it would reach the store and Prefect), the file cannot be read,
            holds over :data:`GOAL_READ_BYTES`, is not UTF-8, or is empty.
    """

    if why := unreadable_path("session.goal_file", path):
        raise ConfigError(why)
    file = Path(path).expanduser()
    try:
        with file.open("rb") as fh:  # at most a cap's worth: /dev/zero read whole hung (break-it pass)
            data = fh.read(GOAL_READ_BYTES + 1)
        if len(data) > GOAL_READ_BYTES:
            raise ConfigError(f"session.goal_file: {file} holds over {GOAL_READ_BYTES:,} bytes; a goal is at most "
                              f"{GOAL_MAX_CHARS:,} characters (a paragraph to a few pages)")
        # line ends as read_text read them (Windows' \r\n is \n), the byte order mark no part of the goal
        text = data.decode("utf-8").replace("\r\n", "\n").replace("\r", "\n").removeprefix(BOM).strip()
    except (OSError, UnicodeDecodeError) as exc:
        raise ConfigError(f"session.goal_file: {unreadable_file(str(file), exc)}") from None
    if not text:
        raise ConfigError(f"session.goal_file: {file} is empty")
    return text



GOAL_READ_BYTES = 16 << 20
"""The most of a goal file read (16 MiB): a file a researcher saved, even the 2 MB one that reached Prefect, is read
whole and its length said against :data:`GOAL_MAX_CHARS` (``2,019,701 characters long, over the limit``); a larger
file, a device (``/dev/zero``) or an endless stream is refused in one line before it fills memory (design.md#cli)."""


GOAL_MIN_WORDS = 2
"""A research goal has at least this many words with a letter in them (fresh-user report: ``--goal "?"`` ran a
whole session on a goal the parser could only guess at; goal parsing turns the goal into a research plan,
design.md#supervisor)."""

GOAL_MAX_CHARS = 8000
"""The longest research goal, in characters (design.md#cli: a goal is a paragraph to a few pages; a 2 MB goal
file reached Prefect, which refuses flow run parameters of 512 KiB or more, after `cosci estimate` had priced it).
8,000 characters is some 1,300 words, about 2,000 tokens: three pages, at most 96 KB of JSON even written as
escapes, and half of the embedded model's 4,096-token context, which every call quotes the goal into."""


_UNSPACED = ((0x0E00, 0x0EFF), (0x1000, 0x109F), (0x1780, 0x17FF), (0x3040, 0x30FF), (0x3400, 0x9FFF),
             (0xAC00, 0xD7AF))
"""Scripts written without spaces between words: Thai and Lao, Myanmar, Khmer, Japanese kana, Chinese characters
(with Japanese kanji) and Korean syllables (which space phrases, not every word)."""


def unspaced_letters(text: str) -> int:
    """The letters of ``text`` in a script that runs words together (:data:`_UNSPACED`); two count as one word more
    in :func:`check_goal` (a Thai goal is one space-separated "word": twenty-first stop, its screen and run refused
    Thai goals as "not a research goal")."""
    return sum(1 for c in text if c.isalpha() and any(lo <= ord(c) <= hi for lo, hi in _UNSPACED))


def check_goal_length(goal: str, key: str = "session.goal") -> None:
    """Refuse a goal longer than :data:`GOAL_MAX_CHARS` (also where no goal is required, as in `cosci estimate`).

    Raises:
        ConfigError: one line naming ``key``, the length and the limit.
    """
    if len(goal) > GOAL_MAX_CHARS:
        raise ConfigError(f"{key}: the goal is {len(goal):,} characters long, over the limit of {GOAL_MAX_CHARS:,} "
                          "(a research goal is a paragraph to a few pages; data belongs in `cosci result --file`)")


def check_goal(goal: str, key: str = "session.goal", *, stored: bool = False) -> None:
    """Refuse an empty goal, one longer than :data:`GOAL_MAX_CHARS`, one that is not valid UTF-8 or holds a control
    character other than a line break or a tab, or a bidirectional control (U+202E; :func:`cosci.text.unreadable`),
    or one that is not a statement in words.

    Args:
        key: the setting the goal came from, named in the error (``session.goal_file`` for a file's text).
        stored: the goal of a stored session (its frozen config): a bidirectional control is not refused, since a
            session stored before such goals were refused would otherwise be stranded (no resume, rating or result;
            its goal cannot be retyped): it is warned of on resume and shown escaped instead (design.md#cli).

    Raises:
        ConfigError: one line naming ``key``.
    """
    if goal and not goal.strip():  # a goal given, blank (beside an experiment the hint to pick one misled)
        raise ConfigError(f"{key}: the research goal is empty")
    if not goal:
        raise ConfigError("session.goal: a research goal is required (pick experiment=... or set session.goal=...)")
    check_goal_length(goal, key)
    old_bidi = stored and bidi_control(goal) and not unreadable(key, bidi_escaped(goal))  # its only fault: kept
    if (why := unreadable(key, goal)) and not old_bidi:
        raise ConfigError(why)  # printed by `cosci list` / `status` / the report: an escape would run there
    words = [w for w in goal.split() if any(c.isalpha() for c in w)]
    if len(words) + unspaced_letters(goal) // 2 < GOAL_MIN_WORDS:
        shown = one_line(goal)[:60]
        raise ConfigError(f"{key}: {shown!r} is not a research goal; state it in words (e.g. 'Suggest "
                          "approved drugs to repurpose for acute myeloid leukemia')")



def read_session_goal(session: object) -> str:
    """Settle the ``session`` section's goal in place: a ``goal_file``'s text becomes the goal (it wins), then an
    experiment's preferences are dropped if the goal is another (:func:`drop_preset_preferences`).

    Returns:
        The key a goal refusal names: ``session.goal`` or ``session.goal_file (PATH)``.

    Raises:
        ConfigError: the goal file cannot be read or is empty (:func:`read_goal_file`).
    """
    goal_key = "session.goal"
    if not isinstance(session, dict):
        return goal_key
    if session.get("goal_file"):
        goal_key = f"session.goal_file ({session['goal_file']})"
        session["goal"] = read_goal_file(str(session["goal_file"]))
        session["goal_file"] = None  # read once: the snapshot holds the text, a resume never reads the file again
    drop_preset_preferences(session)
    return goal_key


def drop_preset_preferences(session: dict[str, Any]) -> None:
    """Drop an experiment's preferences from a session given another goal, in place.

    An experiment's preferences are written for its own goal ("testable in AML cell lines" for the demo), so a
    session that keeps the experiment's schedule but states its own goal (``cosci run --goal ... experiment=demo``)
    would otherwise parse a tuberculosis goal with leukemia preferences. They are dropped when the goal differs
    from ``preset_goal`` and the preferences are still ``preset_preferences``; preferences the command line or a
    layer file replaced are kept (design.md#experiments).

    Args:
        session: the ``session`` section as plain data (after ``goal_file`` was read into ``goal``).
    """
    preset_goal, preset = session.get("preset_goal"), session.get("preset_preferences")
    goal = session.get("goal")
    if not preset_goal or not isinstance(goal, str) or " ".join(goal.split()) == " ".join(str(preset_goal).split()):
        return
    if preset is not None and list(session.get("preferences") or []) == list(preset):
        session["preferences"] = []
