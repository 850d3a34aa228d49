"""``cosci release``: a researcher releases a hypothesis quarantined by safety screening; it goes back to review
and the tournament (design.md#safety). The id is checked as ``cosci rate`` and ``cosci result`` check theirs
(:func:`cosci.session.inputs.hypothesis_missing`: the wrong kind of id, a near-miss, another session's id), and the
``--why`` is screened as a rating's ``--why`` is (:func:`cosci.session.inputs.check_feedback_text`). The release is
listed by ``cosci status`` and the report (:func:`cosci.store.standing.releases`), and the report page is rewritten
as after ``cosci rate`` (:func:`cosci.session.researcher.refresh`)."""

from __future__ import annotations

from cosci.errors import CosciError
from cosci.session.folder import SessionFolder
from cosci.session.inputs import check_feedback_text, check_text, hypothesis_missing
from cosci.session.researcher import Name, Warn, flag, refresh, say_warning
from cosci.store import SessionStore


def _check(folder: SessionFolder, store: SessionStore, hid: str, why: str, name: Name = flag) -> None:
    """Raises CosciError (or GoalRefused, exit 3, for a ``why`` safety screening refuses) unless ``hid`` can be
    released with ``why``; the screening is last, so a bad id or an empty reason costs no classifier call."""
    sid = folder.session_id
    if missing := hypothesis_missing(store, hid, sid, folder):
        raise CosciError(missing)
    h = store.hypotheses.get(hid)
    if h is None or h.state != "quarantined":
        state = h.state if h else "not in this session"
        raise CosciError(f"{hid!r} is not quarantined ({state}); `cosci status {sid}` lists the quarantined "
                         "hypotheses")
    if not why.strip():
        raise CosciError(f"{name('why')} needs a reason (it is recorded with the release)")
    check_text(name("why"), why)
    check_feedback_text(folder, store, why, what="release", about=hid)  # as `cosci rate --why` (design.md#safety)


def release(folder: SessionFolder, hid: str, why: str, by: str, warn: Warn = say_warning, *,
            name: Name = flag) -> str:
    """Release quarantined hypothesis ``hid`` of ``folder``'s session (back to draft, then straight to review: it
    has a verdict); ``why`` and ``by`` are recorded on the ``hypothesis_released`` event. Returns the line to print.

    Raises:
        CosciError: an id the session does not hold (with the hint ``cosci rate`` gives), a hypothesis that is not
            quarantined, an empty ``why`` or one holding a control character.
        GoalRefused: safety screening refused ``why`` (exit 3; nothing recorded, the hypothesis stays quarantined).
        ``name`` names ``why`` in a refusal (the command line's ``--why``; the web UI's form field).
    """
    sid = folder.session_id
    with folder.store() as store:
        _check(folder, store, hid, why, name)
        verdict = store.safety.latest("hypothesis", hid)
        store.hypotheses.set_state(hid, "draft")
        store.logs.event("hypothesis_released", {"id": hid, "by": by, "why": why.strip(),
                                               "verdict_id": verdict.id if verdict else None})
        status = store.sessions.status()
        if status not in ("done", "refused"):
            from cosci.supervisor.rules import Scheduler

            Scheduler(folder.frozen_config(), store).screen_or_review(hid)  # it has a verdict: straight to review
        refresh(folder, store, warn, enters_fit=False)  # the page and the project show the release
    if status in ("done", "refused"):
        return f"{sid}: {hid} released (back to draft), but the session is {status}: no more matches run"
    when = "now" if folder.is_running() else f"at `cosci resume {sid}`"
    return f"{sid}: {hid} released by {by}; it is reviewed and enters the tournament {when}"
