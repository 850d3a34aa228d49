"""``cosci screen``: the offline screen on texts, without a session (a lab checks its goals before spending).

    cosci screen "text"                    one text
    cosci screen --file goals.jsonl        one ``{"goal": ...}`` object or one plain text per line

One JSON line per text on stdout: ``n`` (its line, 1 for a text given inline), ``decision`` (allow / flag /
block), ``category`` (null when allowed), ``rule`` (term hit, agent, score alone, unread; null when allowed),
``score`` (the intent model's harm probability, 0-1), ``language`` (ISO 639-1, or ``unread (<language>)``) and
the text's first :data:`SHOWN_CHARS` characters. Exit 0 whatever the decisions; a file that cannot be read or a
line that is neither, or a text longer than a goal may be (:data:`~cosci.config.goal.GOAL_MAX_CHARS`: the
screen's time grows with the text, about 1 ms a character), is one line on stderr, exit 2, nothing screened. The
decision is the one a session on a tier unable to classify (the default embedded model) would take on a goal
(docs/design.md#safety-screen).
"""

from __future__ import annotations

import json
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any

from cosci.config.schema import SafetyCfg
from cosci.errors import CosciError

SHOWN_CHARS = 80


def read_texts(path: Path) -> list[tuple[int, str]]:
    """``(line number, text)`` for each non-blank line of ``path``: a JSON object's ``goal``, else the line.

    Raises:
        CosciError: the file cannot be read as UTF-8 text, a JSON object has no string ``goal``, or nothing is left.
    """
    try:
        lines = path.read_text(encoding="utf-8").splitlines()
    except (OSError, UnicodeDecodeError) as exc:
        raise CosciError(f"screen: cannot read {path} ({type(exc).__name__})") from None
    out = []
    for n, line in enumerate(lines, 1):
        if not line.strip():
            continue
        text = line.strip()
        if text.startswith("{"):
            try:
                row = json.loads(text)
            except ValueError:
                raise CosciError(f"screen: {path} line {n} starts like JSON but is not JSON") from None
            if not isinstance(row, dict) or not isinstance(row.get("goal"), str) or not row["goal"].strip():
                raise CosciError(f"screen: {path} line {n} is a JSON object without a text \"goal\"")
            text = row["goal"]
        out.append((n, text))
    if not out:
        raise CosciError(f"screen: {path} holds no text to screen")
    return out


def within_goal_length(texts: Sequence[tuple[int, str]]) -> None:
    """Refuse a text longer than a goal may be, before anything is screened.

    Raises:
        CosciError: naming the line (1 for an inline text), its length and the limit, in characters.
    """
    from cosci.config.goal import GOAL_MAX_CHARS

    for n, text in texts:
        if len(text) > GOAL_MAX_CHARS:
            raise CosciError(f"screen: line {n} holds {len(text):,} characters; a goal holds at most"
                             f" {GOAL_MAX_CHARS:,} (split it into goals, or screen its parts)")


def screened(cfg: SafetyCfg, texts: Sequence[tuple[int, str]]) -> Iterator[dict[str, Any]]:
    """One result row per text (see the module docstring), screened as goals."""
    from cosci.safety.screen import screen_for

    screen = screen_for(cfg)
    for n, text in texts:
        r = screen.check(text, subject="goal")
        yield {"n": n, "decision": r.decision, "category": r.category, "rule": r.rule, "score": round(r.score, 3),
               "language": r.language, "text": text[:SHOWN_CHARS]}
