"""A researcher's command-line inputs, checked before anything is written (design.md#cli): hypothesis and session
ids (a near-miss is hinted: the id's form, or the other session holding it), texts (control
characters refused; :func:`check_feedback_text` screens one as feedback is screened, design.md#safety),
``--measure`` pairs and ``--file`` data files (design.md#experimental-results).

Each check raises (or returns) one :class:`~cosci.errors.CosciError` line; nothing here writes to a store, except
the ``feedback_refused`` event and the verdict row of a screened text.
"""

from __future__ import annotations

import hashlib
import math
import re
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from cosci.errors import CosciError, GoalRefused
from cosci.ids import wrong_kind
from cosci.session.folder import SESSION_SHAPE, SessionFolder, nothing_yet
from cosci.store import SessionStore
from cosci.store.hypotheses import held_in
from cosci.store.project import ProjectStore
from cosci.text import say, unreadable, unreadable_path

MEASURE = re.compile(r"^([A-Za-z][A-Za-z0-9_.\-]{0,63})=(.+)$")

TEXT_MAX_CHARS = 4000
"""The longest researcher text (``--why``, ``--notes``, ``--text``, a ``--measure``), in characters: about a page
(600 words, some 1,000 tokens). Each is quoted into later prompts (a result's notes into every generation and
evolution prompt), so a pasted document would crowd the embedded model's 4,096-token context and the goal out of
every call; a note never needs a page, and data belongs in ``cosci result --file`` (design.md#cli)."""


def check_text(flag: str, text: str) -> None:
    """Raises CosciError when ``text`` (given with ``flag``, e.g. ``--why``) is longer than :data:`TEXT_MAX_CHARS`
    characters, is not valid UTF-8 or holds a control character other than a line break or a tab (``\\x01``, an
    ANSI escape) or a bidirectional control (U+202E; :func:`cosci.text.unreadable`): refused before it is screened,
    so nothing is recorded, rather than stored cut or stripped of what the researcher typed (design.md#cli)."""
    if len(text) > TEXT_MAX_CHARS:
        raise CosciError(f"{flag} is {len(text):,} characters long, over the limit of {TEXT_MAX_CHARS:,} (a note "
                         "of about a page; attach longer material with `cosci result --file`); nothing was recorded")
    if why := unreadable(flag, text):
        raise CosciError(f"{why}; nothing was recorded")


def parse_measures(items: Sequence[str], flag: str = "--measure") -> dict[str, Any]:
    """``NAME=VALUE`` pairs; a value that parses as a finite number is a float, else it is kept as text (a
    qualitative measure, ``assay=HTRF``: :func:`cosci.store.researcher.measures_line` says which, and the text is
    screened with the notes). ``flag``: how a refusal names the measures (``measures`` from Python).

    Raises:
        CosciError: a pair without ``=``, a bad name, an empty value, a name given twice, a NaN or infinity.
    """
    out: dict[str, Any] = {}
    for item in items:
        m = MEASURE.match(item.strip())
        if not m or not m.group(2).strip():
            raise CosciError(f"{flag} {item!r} is not NAME=VALUE (a name of letters, digits, '_', '.', '-')")
        name, raw = m.group(1), m.group(2).strip()
        if name in out:
            raise CosciError(f"{flag} {name} is given twice")
        try:
            value: Any = float(raw)
        except ValueError:
            value = raw
        if isinstance(value, float) and not math.isfinite(value):
            raise CosciError(f"{flag} {name}={raw} is not a finite number")
        out[name] = value
    return out


HYPOTHESIS_ID = re.compile(r"^H-[0-9a-f]{12}$")
"""A hypothesis id as cosci makes it (cosci.ids.hypothesis_id); the command line takes one in any case
(:func:`cosci.ids.normal_id`)."""


def hypothesis_missing(store: SessionStore, hid: str, sid: str, folder: SessionFolder | None = None) -> str | None:
    """None when session ``sid`` holds hypothesis ``hid``, else the line to say: an id of another kind (a session
    id given for a hypothesis id) is named as such, any other id is "no hypothesis 'H-…' in session …" (quoted, as
    session ids are, so a trailing space or an empty id shows), with a hint for a near-miss: the id's form for one
    that starts ``H-`` but is not ``H-`` and 12 hex digits (spaces around, a digit too few or too many), the session
    holding it for an id of another session, and that it has none yet for a session with none (design.md#cli).
    ``hid`` is as :func:`cosci.ids.normal_id` left it (the command line normalises its case)."""
    if store.hypotheses.get(hid) is not None:
        return None
    if wrong := wrong_kind(hid, "hypothesis", hypothesis_shape(sid)):
        return wrong
    line = f"no hypothesis {hid!r} in session {sid}"
    well_formed = HYPOTHESIS_ID.match(hid) is not None
    if well_formed and folder is not None and (elsewhere := _held_elsewhere(folder, hid)):
        return line + elsewhere
    if none := nothing_yet(store):  # not "`cosci report` lists them": it lists none (fresh-user trial)
        return f"{line}: {none}"
    if hid.strip()[:2].upper() == "H-" and not well_formed:
        digits = hid.strip()[2:]
        given = f", not {len(digits)}" if re.fullmatch(r"[0-9a-fA-F]+", digits) and len(digits) != 12 else ""
        return f"{line} ({hypothesis_shape(sid, given)})"
    return line


def _held_elsewhere(folder: SessionFolder, hid: str) -> str | None:
    """Where else ``hid`` is held, as the end of the "no hypothesis" line: ``"; it is a hypothesis of session S of
    the same project"`` for the newest other session of ``folder``'s project holding it (the project's store), else
    ``"; it is a hypothesis of session S"`` for the newest other session under the data folder holding it (each
    store read only, :func:`cosci.store.hypotheses.held_in`: a session in no project has no index to ask), or None
    (held nowhere else, or unreadable: the hint is skipped)."""
    try:
        project = folder.frozen_config().session.project
        if project and ProjectStore.exists(folder.data_dir, project):
            store = ProjectStore.open(folder.data_dir, project)
            try:
                held = [h.session_id for h in store.hypotheses() if h.hypothesis_id == hid]
            finally:
                store.close()
            if others := [s for s in held if s != folder.session_id]:
                return f"; it is a hypothesis of session {max(others)} of the same project"  # ids sort by start
        for other in reversed(SessionFolder.all(folder.data_dir)):  # newest first (design.md#ids)
            if other.session_id != folder.session_id and held_in(other.store_path, hid):
                return f"; it is a hypothesis of session {other.session_id}"
    except Exception:  # a hint only; the line without it is still right
        return None
    return None


def hypothesis_shape(sid: str, given: str = "") -> str:
    """How a hypothesis id looks (``given``: what the id held instead, ``", not 11"``), and where the session's are
    listed."""
    return f"a hypothesis id is H- and 12 hex digits{given}, like H-0123456789ab; `cosci report {sid}` lists them"

def check_target_kind(data_dir: Path, target: str) -> None:
    """Raises CosciError when ``target``, named where a session id or a project name goes, is neither but an id
    of another kind (``cosci rate H-a H-b``: the session left out): the line says so, not "no session 'H-a'"."""
    if (data_dir / "sessions" / target).is_dir() or ProjectStore.exists(data_dir, target):
        return
    if wrong := wrong_kind(target, "session", SESSION_SHAPE, also=" or a project name"):
        raise CosciError(wrong)


def data_file(file: str, flag: str = "--file") -> tuple[str, str, int]:
    """The resolved path, sha256 and size in bytes of ``file`` (named ``flag`` in a refusal: ``file`` from Python).

    Raises:
        CosciError: a path that is not valid UTF-8, a directory, no such file, no regular file (a device, a pipe),
            an unreadable or an empty file (nothing is recorded).
    """
    if why := unreadable_path(flag, file):
        raise CosciError(why)
    p = Path(file).expanduser()
    if p.is_dir():
        raise CosciError(f"{flag} {file}: is a directory; name one data file (its path and sha256 are recorded)")
    if not p.exists():
        raise CosciError(f"{flag} {file}: no such file")
    if not p.is_file():  # /dev/zero read without end; a pipe has no content to record a hash of
        raise CosciError(f"{flag} {file}: is no regular file (a device or a pipe); name one data file (its path and "
                         "sha256 are recorded)")
    try:
        with p.open("rb") as fh:  # hashed in pieces (file_digest): a data file of gigabytes is never held whole
            digest, size = hashlib.file_digest(fh, "sha256").hexdigest(), fh.tell()
    except OSError as exc:
        raise CosciError(f"{flag} {file}: cannot read it ({exc.strerror or exc})") from None
    if not size:
        raise CosciError(f"{flag} {file}: the file is empty; name the data file of the result (nothing was "
                         "recorded)")
    return str(p.resolve()), digest, size


def check_feedback_text(folder: SessionFolder, store: SessionStore, text: str, what: str = "feedback",
                        about: str | None = None) -> None:
    """Screen researcher feedback as a goal is screened, before it is stored (a hit is said on stderr). ``what``:
    what the refusal names, the thing the text came with (``feedback``, a ``rating``'s ``--why``, a ``result``'s
    ``--notes``); ``about``: the hypothesis id(s) it concerns (two joined by ``,``), on the verdict row and the
    ``feedback_refused`` event, the audit trail of a refused text (design.md#safety).

    Raises:
        GoalRefused: the classifier refused it (nothing is stored; exit status 3).
    """
    from cosci.safety.classifier import screening_on

    config = folder.frozen_config()
    if not screening_on(config):
        return
    from cosci.safety.standalone import screen_feedback

    screening = screen_feedback(store, config, text, subject_id=about)
    if screening.acted:
        store.logs.event("feedback_refused", {"verdict_id": screening.verdict.id, "of": what, "about": about})
        raise GoalRefused(f"{what} refused by safety screening, {screening.verdict.line()}; it was not recorded")
    from cosci.safety.classifier import said

    if line := said(screening.verdict):  # a flag, a disagreement or a screen hit that did not refuse
        say(f"warning: {line}")
