"""``cosci release``: a researcher releases a hypothesis quarantined by safety screening; it goes back to review
and the tournament (design.md#safety). The id is checked as ``cosci rate`` and ``cosci result`` check theirs
(:func:`cosci.session.inputs.hypothesis_missing`: the wrong kind of id, a near-miss, another session's id)."""

from __future__ import annotations

from cosci.errors import CosciError
from cosci.session.folder import SessionFolder
from cosci.session.inputs import check_text, hypothesis_missing


def release(folder: SessionFolder, hid: str, why: str, by: str) -> str:
    """Release quarantined hypothesis ``hid`` of ``folder``'s session (back to draft, then straight to review: it
    has a verdict); ``why`` and ``by`` are recorded on the ``hypothesis_released`` event. Returns the line to print.

    Raises:
        CosciError: an id the session does not hold (with the hint ``cosci rate`` gives), a hypothesis that is not
            quarantined, an empty ``why`` or one holding a control character.
    """
    sid = folder.session_id
    with folder.store() as store:
        if missing := hypothesis_missing(store, hid, sid, folder):
            raise CosciError(missing)
        h = store.hypotheses.get(hid)
        if h is None or h.state != "quarantined":
            state = h.state if h else "not in this session"
            raise CosciError(f"{hid!r} is not quarantined ({state}); `cosci status {sid}` lists the quarantined "
                             "hypotheses")
        if not why.strip():
            raise CosciError("--why needs a reason (it is recorded with the release)")
        check_text("--why", why)
        verdict = store.safety.latest("hypothesis", h.id)
        store.hypotheses.set_state(h.id, "draft")
        store.logs.event("hypothesis_released", {"id": h.id, "by": by, "why": why.strip(),
                                               "verdict_id": verdict.id if verdict else None})
        status = store.sessions.status()
        if status in ("done", "refused"):
            return f"{sid}: {h.id} released (back to draft), but the session is {status}: no more matches run"
        from cosci.supervisor.rules import Scheduler

        Scheduler(folder.frozen_config(), store).screen_or_review(h.id)  # it has a verdict: straight to review
    when = "now" if folder.is_running() else f"at `cosci resume {sid}`"
    return f"{sid}: {h.id} released by {by}; it is reviewed and enters the tournament {when}"
