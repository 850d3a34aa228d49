"""Deterministic ids (design.md#ids): a hypothesis id is ``H-`` + the first 12 hex digits of
``sha256(session_id || origin || statement)``; the other ids are derived the same way from what makes them unique, so
a retried action computes the same id and its insert is a no-op. Also what an id typed on the command line is:
its kind by its prefix, in any case. :mod:`cosci.domain` re-exports every name here.
"""

from __future__ import annotations

import hashlib
import re


def digest(*parts: object, n: int = 12) -> str:
    """First ``n`` hex digits of sha256 over ``parts`` joined by ``||``."""
    return hashlib.sha256("||".join(str(p) for p in parts).encode()).hexdigest()[:n]


def id_namespace(goal: str, seed: int) -> str:
    """The namespace derived ids are hashed with: ``n-`` + sha256(goal || seed)[:12] (design.md#ids: the same goal
    and seed give the same hypothesis, match, task and review ids, so two runs can be compared row for row)."""
    return "n-" + digest(" ".join(goal.split()), seed)


def hypothesis_id(session_id: str, origin: str, statement: str) -> str:
    """``H-`` + sha256(session || origin || statement)[:12] (design.md#ids).

    ``origin`` is the mode plus the sorted parent ids (``"combine:H-a,H-b"``), so the same statement reached
    by the same route maps to the same id.
    """
    return "H-" + digest(session_id, origin, " ".join(statement.split()))


ID_KINDS: tuple[tuple[str, re.Pattern[str]], ...] = tuple((kind, re.compile(pattern)) for kind, pattern in (
    ("session", r"s-\d{8}-\d{6}-"),  # cosci.session.folder.new_session_id
    ("hypothesis", r"H-[0-9a-f]+$"),
    ("match", r"M-[0-9a-f]+$"),
    ("task", r"T-[0-9a-f]+$"),
    ("review", r"R-[0-9a-f]+$"),
    ("rating", r"RR-[0-9a-f]+$"),
    ("result", r"O-[0-9a-f]+$"),
    ("feedback", r"F-[0-9a-f]+$"),
    ("safety verdict", r"V-[0-9a-f]+$"),
    ("investigation", r"inv-[0-9a-f]+$"),
))
"""The kinds of id cosci makes, told by their prefix (design.md#ids): what a wrong id on the command line is."""


ID_PREFIX = re.compile(r"(?i)^(s|inv|rr|[hmtrofv])-(.+)$")
"""An id's prefix and the rest, in any case (:func:`normal_id`)."""


def normal_id(text: str) -> str:
    """``text`` as cosci writes an id of its kind when it is one typed in another case (``H-ABC…`` or ``h-abc…`` is
    ``H-abc…``, ``S-20261203-…-ABCDEF`` is ``s-20261203-…-abcdef``): every id's digits are hex or decimal, so case
    carries nothing (design.md#ids). Anything else (a project name, a mistyped id, spaces around) comes back as
    given, for the caller's own line."""
    m = ID_PREFIX.match(text)
    if m is None:
        return text
    prefix = m.group(1).lower() if m.group(1).lower() in ("s", "inv") else m.group(1).upper()
    candidate = f"{prefix}-{m.group(2).lower()}"
    return candidate if next((k for k, p in ID_KINDS if p.match(candidate)), None) else text


def id_kind(text: str) -> str | None:
    """The kind of id ``text`` looks like (``"session"``, ``"hypothesis"``, ...) in any case (:func:`normal_id`),
    None when it looks like none (a mistyped id, a project name): only the prefix and its digits are read, not
    whether such an id exists."""
    shown = normal_id(text.strip())
    return next((kind for kind, pattern in ID_KINDS if pattern.match(shown)), None)


def wrong_kind(text: str, expected: str, shape: str, *, also: str = "") -> str | None:
    """``"<text> is a <kind> id, not a <expected> id<also> (<shape>)"`` when ``text`` is an id of another kind than
    ``expected``, else None: the one line a command says instead of "no <expected> <text>". ``also``: what else
    the argument may be (``" or a project name"``)."""
    kind = id_kind(text)
    if kind is None or kind == expected:
        return None
    return f"{text.strip()} is {_a(kind)} {kind} id, not {_a(expected)} {expected} id{also} ({shape})"


def _a(word: str) -> str:
    return "an" if word[0] in "aeiou" else "a"


def match_id(session_id: str, hyp_a: str, hyp_b: str, task_id: str, index: int) -> str:
    """Deterministic match id (design.md#tournament): a retried match computes the same id."""
    a, b = sorted((hyp_a, hyp_b))
    return "M-" + digest(session_id, a, b, task_id, index, n=16)


def task_id(idempotency_key: str) -> str:
    """Task id derived from its idempotency key (design.md#store: ``{session_id}::generation::initial::{i}``)."""
    return "T-" + digest(idempotency_key, n=16)


__all__ = ["ID_KINDS", "ID_PREFIX", "digest", "hypothesis_id", "id_kind", "id_namespace", "match_id", "normal_id",
           "task_id", "wrong_kind"]
