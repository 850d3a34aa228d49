"""``cosci rate --withdraw RR-…`` and ``cosci result --withdraw O-…``: a researcher takes back a rating or a result
(design.md#researcher-ratings, design.md#experimental-results).

The row stays in the record, marked withdrawn (``withdrawn_at``, migration 0033), and every reader but the record
leaves it out: the Bradley–Terry fit (a withdrawn preference no longer counts; an earlier preference of the same pair
counts again), the prompts, the report, the project. A withdrawn result restores the state it moved its hypothesis
to: a hypothesis a refuted result moved to ``rejected`` goes back to the state it had, one a supported result
pinned goes back to the tournament (:func:`_restore`). Each withdrawal is an event (``rating_withdrawn``,
``result_withdrawn``), and the standing, the project and the report page are refreshed as after a rating
(:func:`cosci.session.researcher.refresh`). An id of another kind, an unknown id or one withdrawn already is one line,
exit 2, nothing written.
"""

from __future__ import annotations

from pathlib import Path
from typing import Literal

from cosci.errors import CosciError
from cosci.ids import id_kind, wrong_kind
from cosci.session.folder import SessionFolder
from cosci.session.inputs import check_target_kind
from cosci.session.researcher import MOVES, Warn, refresh, say_warning
from cosci.session.targets import same_project
from cosci.store import SessionStore
from cosci.store.project import ProjectStore
from cosci.store.researcher import Observation, recorded_in

Kind = Literal["rating", "result"]
SHAPES = {"rating": "a rating id is RR- and hex digits, as `cosci rate` printed it",
          "result": "a result id is O- and hex digits, as `cosci result` printed it"}


def withdraw(data_dir: Path, target: str | None, kind: Kind, rid: str, project: str | None = None,
             warn: Warn = say_warning) -> str:
    """Withdraw rating or result ``rid`` (``kind``) of the session ``target`` names (a session id, or a project
    name: its sessions; None: every session under ``data_dir``, newest first); ``project``: the project named with
    ``--project`` (the session must be one of its own). Returns the line to print.

    Raises:
        CosciError: an id of another kind, no session holding it, one withdrawn already, a session of another
            project.
    """
    rid = rid.strip()
    if wrong := wrong_kind(rid, kind, SHAPES[kind]):
        raise CosciError(wrong)
    if id_kind(rid) != kind:
        raise CosciError(f"--withdraw {rid!r} is not {'a rating' if kind == 'rating' else 'a result'} id "
                         f"({SHAPES[kind]})")
    folder = _holder(data_dir, target or project, kind, rid)
    if project is not None:
        same_project(folder.session_id, folder.frozen_config().session.project, project)
    with folder.store() as store:
        return _rating(folder, store, rid, warn) if kind == "rating" else _result(folder, store, rid, warn)


def _holder(data_dir: Path, target: str | None, kind: Kind, rid: str) -> SessionFolder:
    """The session whose store holds ``rid``: among ``target``'s (a session, or a project's sessions; every
    session when None), newest first.

    Raises:
        CosciError: no such session or project, or none of its sessions holds ``rid``.
    """
    if target is None:
        folders, where = list(reversed(SessionFolder.all(data_dir))), f"any session under {data_dir / 'sessions'}"
    elif (data_dir / "sessions" / target).is_dir() and not ProjectStore.exists(data_dir, target):
        folders, where = [SessionFolder.existing(data_dir, target)], f"session {target}"
    elif ProjectStore.exists(data_dir, target):
        p = ProjectStore.open(data_dir, target)
        try:
            ids = [s["session_id"] for s in p.sessions()]
        finally:
            p.close()
        folders = [SessionFolder(data_dir, sid) for sid in reversed(ids) if (data_dir / "sessions" / sid).is_dir()]
        where = f"any session of project {target}"
    else:
        check_target_kind(data_dir, target)
        folders, where = [SessionFolder.existing(data_dir, target)], f"session {target}"  # says "no session ..."
    for folder in folders:
        if recorded_in(folder.store_path, kind, rid):
            return folder
    raise CosciError(f"no {kind} {rid!r} in {where}")


def _rating(folder: SessionFolder, store: SessionStore, rid: str, warn: Warn) -> str:
    """Withdraw rating ``rid``; the fit is refitted when it counted in it (the current preference of its pair, both
    tournament players: :meth:`Researcher.current_preferences`)."""
    sid, r = folder.session_id, store.researcher.rating(rid)
    assert r is not None  # _holder found it
    if r.withdrawn_at is not None:
        raise CosciError(f"rating {rid} of session {sid} is withdrawn already; nothing changed")
    players = set(store.hypotheses.player_ids())
    current = any(c.id == rid for c in store.researcher.current_preferences())
    store.researcher.withdraw("rating", rid)
    pair = [r.hyp_a, *([r.hyp_b] if r.hyp_b else [])]
    back = next((c for c in store.researcher.current_preferences() if {c.hyp_a, c.hyp_b} == set(pair)), None)
    store.logs.event("rating_withdrawn", {"id": rid, "ids": pair, "kind": r.kind,
                                          "current": back.id if back else None})
    # one replaced, or naming a hypothesis out of the tournament, counted in no fit: no number moves
    refresh(folder, store, warn, enters_fit=current and set(pair) <= players)
    if r.kind != "preference":
        return f"{sid}: rating {rid} withdrawn ({pair[0]}: score {r.score}/5); the record keeps it, marked withdrawn"
    now = ("a later rating of the pair had replaced it already" if not current
           else f"your earlier rating {back.id} of the pair (prefer {back.prefer}) counts again" if back
           else "the pair has no rating in the Bradley–Terry fit now")
    return (f"{sid}: rating {rid} withdrawn ({pair[0]} vs {pair[1]}: prefer {r.prefer}); {now}; the record keeps "
            "it, marked withdrawn")


def _result(folder: SessionFolder, store: SessionStore, oid: str, warn: Warn) -> str:
    """Withdraw result ``oid`` and restore the state it moved its hypothesis to (:func:`_restore`)."""
    sid, o = folder.session_id, store.researcher.observation(oid)
    assert o is not None  # _holder found it
    if o.withdrawn_at is not None:
        raise CosciError(f"result {oid} of session {sid} is withdrawn already; nothing changed")
    h = store.hypotheses.get(o.hypothesis_id)
    before = h.state if h else "gone"
    store.researcher.withdraw("result", oid)
    state, how = _restore(store, o)
    store.logs.event("result_withdrawn", {"id": oid, "hypothesis": o.hypothesis_id, "outcome": o.outcome,
                                          "state_before": before, "state": state})
    refresh(folder, store, warn)
    return f"{sid}: result {oid} on {o.hypothesis_id} withdrawn ({o.outcome}); {how}; the record keeps it, marked " \
           "withdrawn"


def _restore(store: SessionStore, o: Observation) -> tuple[str, str]:
    """Undo the state change of withdrawn result ``o`` (already marked withdrawn); returns the hypothesis's state and
    what happened to it, in words. ``o.moved_from`` is the state the result moved its hypothesis from (None: it
    moved none, so nothing is restored). The hypothesis goes back to it unless another standing result of the same
    outcome holds it where it is (that result then carries ``moved_from``, so its own withdrawal restores), or the
    state was changed since by something else (a later result moved it on: that one now carries ``moved_from``)."""
    hid, moved_to = o.hypothesis_id, MOVES.get(o.outcome)
    h = store.hypotheses.get(hid)
    if h is None:
        return "gone", f"{hid} is no longer in the session"
    if o.moved_from is None or moved_to is None:
        return h.state, f"{hid} stays {h.state} (the result did not change its state)"
    standing = store.researcher.observations(hid)
    if h.state != moved_to:  # moved on since: a later result that moved it from `moved_to` moved it from before
        for later in standing:
            if later.moved_from == moved_to:
                store.researcher.set_moved_from(later.id, o.moved_from)
        return h.state, f"{hid} stays {h.state} (its state changed after the result)"
    same = [x for x in standing if x.outcome == o.outcome]
    if same:
        if all(x.moved_from is None for x in same):
            store.researcher.set_moved_from(same[-1].id, o.moved_from)
        return h.state, f"{hid} stays {h.state}: result {same[-1].id} is {o.outcome} too"
    store.hypotheses.set_state(hid, o.moved_from, withdrawal=True)  # type: ignore[arg-type]
    return o.moved_from, f"{hid} is {o.moved_from} again, as before the result"
