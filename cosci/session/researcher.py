"""``cosci rate`` and ``cosci result``: the researcher's judgements and lab results into a session
(design.md#researcher-ratings, design.md#experimental-results, design.md#projects); a project's summary is
:mod:`cosci.session.projects`, the checks of each input :mod:`cosci.session.inputs`.

Every input is checked before anything is written (an unknown id, a session of another project, a malformed
measure, an unreadable file: one :class:`~cosci.errors.CosciError` line, exit 2); the ``--why`` and ``--notes``
texts (and a measure's text value) are screened as feedback text is (:func:`screen`, a refusal exits 3 and stores
nothing). A quarantined hypothesis takes no rating or result until ``cosci release`` releases it (one line, exit
2: its text stays in the session folder, design.md#safety); a withdrawal is :mod:`cosci.session.withdrawal`.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from pathlib import Path

from cosci.errors import CosciError
from cosci.session.folder import SessionFolder
from cosci.session.inputs import (
    check_text,
    data_file,
    hypothesis_missing,
    parse_measures,
)
from cosci.session.targets import same_project
from cosci.store import SessionStore
from cosci.store.researcher import OUTCOMES, Outcome, measures_line
from cosci.text import counted, error_line

Screen = Callable[[SessionFolder, SessionStore, str], None]
"""Screens one researcher text before it is stored (raises GoalRefused;
:func:`cosci.session.inputs.check_feedback_text`)."""

Warn = Callable[[str], None]
"""Says one warning line (a contradiction that is still recorded); :func:`say_warning` on stderr by default."""

def flag(argument: str) -> str:
    """How a refusal names an argument on the command line (``prefer`` -> ``--prefer``); the session service names
    Python arguments as they are (:mod:`cosci.api.arguments`)."""
    return f"--{argument}"


Name = Callable[[str], str]
"""How a refusal names an argument (:func:`flag` on the command line)."""

MOVES = {"refuted": "rejected", "supported": "pinned"}
"""The state a result of each outcome moves its hypothesis to (:func:`_move`; design.md#experimental-results)."""
OUT_OF_TOURNAMENT = ("rejected", "retired")
NOT_YET_PLAYING = ("draft", "reviewed")
"""States of a hypothesis not yet in the tournament (new, or released by ``cosci release``): a preference naming
one is recorded but is not in the Bradley–Terry fit, which holds tournament players only, until it plays."""
"""States whose hypothesis plays no more matches: a rating of one is recorded with a warning (design.md#states; a
quarantined one is refused, :func:`check_released`)."""


def say_warning(line: str) -> None:
    """``cosci: warning: <line>`` on stderr through :func:`cosci.text.say` (control characters escaped), as
    :func:`cosci.session.inputs.check_feedback_text` says a flag."""
    from cosci.text import say

    say(f"warning: {line}")



def _hypothesis(store: SessionStore, hid: str, sid: str, folder: SessionFolder | None = None) -> None:
    if missing := hypothesis_missing(store, hid, sid, folder):
        raise CosciError(missing)
    check_released(store, hid, sid)


def check_released(store: SessionStore, hid: str, sid: str, takes: str = "no rating, result or rejection",
                   done: str = "nothing was recorded") -> None:
    """Raises CosciError when ``hid`` is quarantined by safety screening: it takes no rating, result or rejection
    (``takes``; ``cosci investigate draft``: no drafting) until ``cosci release`` releases it, so a refuted result
    cannot bypass the release and its text never reaches a prompt or the project as a rejected direction
    (design.md#safety, design.md#states). ``done``: what the line ends on."""
    h = store.hypotheses.get(hid)
    if h is not None and h.state == "quarantined":
        raise CosciError(f"{hid} is quarantined by safety screening; it takes {takes} until "
                         f"`cosci release {sid} {hid} --why ...` releases it; {done}")


def refresh(folder: SessionFolder, store: SessionStore, warn: Warn, enters_fit: bool = True) -> None:
    """After a rating, a result or a withdrawal: the BT fit refitted (:func:`_refit`), the project synced and the
    report page rewritten (:func:`_rewrite_page`), so the standing and the report move with the input."""
    _refit(folder, store, enters_fit)
    _sync(folder, store)
    _rewrite_page(folder, store, warn)


def _refit(folder: SessionFolder, store: SessionStore, enters_fit: bool = True) -> None:
    """A session no process runs gets its BT fit refitted now (a running one refits at its next Elo snapshot), unless
    the input does not enter the fit (``enters_fit`` False: a score, a preference naming a hypothesis out of the
    tournament, a withdrawal of either), which leaves the stored fit as it is (design.md#researcher-ratings)."""
    if not enters_fit or folder.is_running():
        return
    from cosci.agents.session_fit import refit_bt

    config = folder.frozen_config()
    refit_bt(store, config.ranking.researcher_weight, config.ranking.bt_prior_sd)


def _rewrite_page(folder: SessionFolder, store: SessionStore, warn: Warn) -> None:
    """A session no process runs gets its report page (``final/report.html``), if it has one, rewritten from the
    store by ``cosci report --html``'s code, so the page shows the standing the rating or result just moved
    (design.md#report); a running session writes it at its end. A page that cannot be written is one warning,
    never a failed command: the rating or result is stored."""
    from cosci.report.render import REPORT_FILE

    if folder.is_running() or not (folder.final_dir / REPORT_FILE).is_file():
        return
    from cosci.report.commands import report_html

    try:
        report_html(store, folder.path, None, False, folder.shown_status(store.sessions.status()))
    except Exception as exc:  # the stored input matters more than the page
        warn(f"the report page {folder.final_dir / REPORT_FILE} was not rewritten ({error_line(exc)}); "
             f"`cosci report {folder.session_id} --html` writes it")


def _sync(folder: SessionFolder, store: SessionStore) -> None:
    from cosci.session.projects import sync_project

    sync_project(folder.frozen_config(), store)


def _rating_args(ids: Sequence[str], prefer: str | None, score: str | None, name: Name = flag) -> None:
    """Raises CosciError unless the rating is two ids with ``prefer`` or one id with a ``score`` of 1-5."""
    if len(ids) == 2 and prefer is None:
        raise CosciError(f"two hypotheses need {name('prefer')} a|b|tie")
    if len(ids) == 1 and prefer is not None and score is None:  # "one hypothesis needs --score" read as ignoring it
        raise CosciError(f"{name('prefer')} compares two hypotheses: give a second id, or rate one with "
                         f"{name('score')} 1-5")
    if len(ids) == 1 and score is None:
        raise CosciError(f"one hypothesis needs {name('score')} 1-5")
    if len(ids) not in (1, 2) or (len(ids) == 2 and score is not None) or (len(ids) == 1 and prefer is not None):
        raise CosciError(f"rate two hypotheses with {name('prefer')} a|b|tie, or one with {name('score')} 1-5")
    if len(ids) == 2 and ids[0] == ids[1]:
        raise CosciError(f"{ids[0]!r} cannot be rated against itself")
    if score is not None and score not in ("1", "2", "3", "4", "5"):
        got = score if score.strip() else repr(score)  # 0, not '0': the API passes an int, the CLI its text
        raise CosciError(f"{name('score')} must be 1, 2, 3, 4 or 5 (got {got}); nothing was recorded")
    if prefer is not None and prefer not in ("a", "b", "tie"):
        raise CosciError(f"{name('prefer')} must be a, b or tie (got {prefer!r}); nothing was recorded")


def rate(folder: SessionFolder, ids: Sequence[str], prefer: str | None, score: str | None, why: str,
         screen: Screen, project: str | None = None, warn: Warn = say_warning,
         name: Name = flag) -> tuple[str, str]:
    """Store one rating and refit; returns its id and the line to print (``name``: how a refusal names an argument);
    the same rating given again (:func:`_repeat`) is not stored, and the id is the standing one's.
    ``project``: the project named on the command line (the session must be one of its own); the rating reaches the
    project's store with the session's sync. A rating of a hypothesis out of the tournament (rejected, retired) or
    not yet in it (draft, reviewed: a released one) is still recorded, and ``warn`` says its state once (a
    preference then stays out of the Bradley–Terry fit, which holds tournament players only,
    :data:`NOT_YET_PLAYING`); so is a preference reversing an earlier one of the same pair, with a warning naming it
    (:func:`_reversal`). A later preference of a pair replaces the earlier in the fit (both are kept:
    :meth:`Researcher.current_preferences`).

    Raises:
        CosciError: not one of (two ids + ``prefer``) or (one id + ``score`` 1-5), an unknown id, a quarantined
            hypothesis (:func:`check_released`), a refused session, a session of another project.
    """
    sid = folder.session_id
    _rating_args(ids, prefer, score, name)
    check_text(name("why"), why)
    if project is not None:
        same_project(sid, folder.frozen_config().session.project, project)
    with folder.store() as store:
        if (status := store.sessions.status()) == "refused":
            raise CosciError(f"session {sid} is {status}; it has no hypotheses to rate")
        for hid in ids:
            _hypothesis(store, hid, sid, folder)
        out = {hid: h.state for hid in ids
               if (h := store.hypotheses.get(hid)) and h.state in OUT_OF_TOURNAMENT + NOT_YET_PLAYING}
        if (same := _repeat(store, ids, prefer, score, why.strip())) is None and why.strip():
            screen(folder, store, why)  # before the write transaction: a screen must not hold the session's writes
        with store.db.tx():  # the repeat's test and the insert in one write transaction: two presses at once (two
            # processes) store one rating, the second waits for the first and finds it (fresh-user trial)
            if same or (same := _repeat(store, ids, prefer, score, why.strip())):
                return same, f"{sid}: same as your rating {same}; nothing new was recorded"  # a second press
            reversal = _reversal(store, ids, prefer) if len(ids) == 2 else None
            replaced = next((r.id for r in reversed(store.researcher.ratings("preference"))
                             if len(ids) == 2 and {r.hyp_a, r.hyp_b} == set(ids)), None)
            if len(ids) == 2:
                rid = store.researcher.rate_pair(ids[0], ids[1], prefer, why.strip())  # type: ignore[arg-type]
            else:
                rid = store.researcher.rate_one(ids[0], int(score or 0), why.strip())
            store.logs.event("researcher_rating", {"id": rid, "ids": list(ids), "prefer": prefer, "score": score})
        refresh(folder, store, warn, enters_fit=len(ids) == 2 and not out)  # a preference of two players
    if reversal:
        warn(reversal)
    if out:  # recorded all the same: the researcher's judgement is data (design.md#researcher-ratings)
        warn(_outside_line(out, len(ids) == 2))
    return rid, _recorded_line(sid, rid, ids, prefer, score, replaced, bool(out))


def _recorded_line(sid: str, rid: str, ids: Sequence[str], prefer: str | None, score: str | None,
                   replaced: str | None, outside: bool) -> str:
    """The line a recorded rating prints: where it counts (a preference of two players enters the fit, replacing
    the pair's earlier one; a score does not; design.md#researcher-ratings)."""
    if len(ids) == 2 and outside:
        return (f"{sid}: rating {rid} recorded ({ids[0]} vs {ids[1]}: prefer {prefer}); it reaches later "
                "meta-reviews")
    if len(ids) == 2:
        enters = ("enters" if replaced is None else
                  f"replaces your earlier rating {replaced} of the pair in")  # one pair, one verdict: both are kept
        return (f"{sid}: rating {rid} recorded ({ids[0]} vs {ids[1]}: prefer {prefer}); it {enters} the "
                "tournament's Bradley–Terry fit and later meta-reviews")
    return (f"{sid}: rating {rid} recorded ({ids[0]}: score {score}/5); it is listed in the report's researcher "
            "ratings section and reaches later meta-reviews (a score does not enter the Bradley–Terry fit)")


def _outside_line(states: Mapping[str, str], preference: bool) -> str:
    """The warning of a rating naming hypotheses outside the tournament (``states``: id -> state): out of it
    (rejected, retired) or not yet in it (draft, reviewed: a preference enters the fit once both play)."""
    waiting = all(s in NOT_YET_PLAYING for s in states.values())
    said = " and ".join(f"{hid} is {state}" for hid, state in states.items())
    return (f"{said} ({'not yet in' if waiting else 'out of'} the tournament): the rating is recorded and reaches "
            "later meta-reviews" + ("" if not preference else ", but does not enter the Bradley–Terry fit"
                                    + (" until it plays in the tournament" if waiting else "")))


def _repeat(store: SessionStore, ids: Sequence[str], prefer: str | None, score: str | None, why: str) -> str | None:
    """The id of the researcher's latest standing rating of the same pair (either order) or hypothesis when this
    one says the same (the same hypothesis preferred, or a tie; the same score; the same why), else None: it is
    not recorded again (fresh-user trial: a command run twice kept two identical ratings, which counted twice in
    the report and the meta-reviews; design.md#researcher-ratings). A repeat after a different rating is recorded."""
    kind = "preference" if len(ids) == 2 else "score"
    earlier = [r for r in store.researcher.ratings(kind) if {r.hyp_a, r.hyp_b} - {None} == set(ids)]
    if not earlier or earlier[-1].why != why:
        return None
    last = earlier[-1]
    if kind == "score":
        return last.id if str(last.score) == score else None
    chosen = {"a": ids[0], "b": ids[1]}.get(prefer or "")
    before = {"a": last.hyp_a, "b": last.hyp_b}.get(last.prefer or "")
    return last.id if chosen == before else None


def _reversal(store: SessionStore, ids: Sequence[str], prefer: str | None) -> str | None:
    """The warning a preference gets when it reverses the researcher's latest strict preference of the same pair
    (in either order; None when there is none, it agrees, or either is a tie): both are kept, and the later one
    replaces the earlier in the Bradley–Terry fit (design.md#researcher-ratings)."""
    if prefer not in ("a", "b"):
        return None
    winner, loser = (ids[0], ids[1]) if prefer == "a" else (ids[1], ids[0])
    earlier = [r for r in store.researcher.ratings("preference") if {r.hyp_a, r.hyp_b} == {winner, loser}
               and r.prefer in ("a", "b")]
    if not earlier:
        return None
    last = earlier[-1]
    before = last.hyp_a if last.prefer == "a" else last.hyp_b
    if before == winner:
        return None
    return (f"preferring {winner} over {loser} reverses your earlier rating {last.id} ({loser} preferred); both "
            "are recorded and the Bradley–Terry fit takes this one")


def record_result(folder: SessionFolder, hid: str, outcome: str, measures: Sequence[str], notes: str,
                  file: str | None, screen: Screen, project: str | None = None, warn: Warn = say_warning,
                  name: Name = flag) -> str:
    """Store an experimental result; a refuted hypothesis leaves the tournament (rejected), a supported one is
    pinned; the observation reviews of its relatives are queued (they run now in a running session, at
    ``cosci resume`` otherwise; a done session's reach its project's next session). An empty ``file`` is refused.
    Returns the line to print. A result that contradicts the hypothesis's state (a supported result on a rejected
    hypothesis) or an earlier result (refuted after supported, or the reverse) is recorded all the same (the lab's
    result is data) and ``warn`` says the state once; a rejected hypothesis stays rejected (:func:`_move`). The
    result keeps the state it moved its hypothesis from, which ``cosci result --withdraw`` restores.

    Raises:
        CosciError: a bad outcome or measure, an unreadable file, an unknown id, a quarantined hypothesis
            (:func:`check_released`), a session of another project.
    """
    sid = folder.session_id
    if outcome not in OUTCOMES:
        raise CosciError(f"{name('outcome')} must be one of {', '.join(OUTCOMES)} (got {outcome!r})")
    check_text(name("notes"), notes)
    for item in measures:
        check_text(name("measure"), item)
    values = parse_measures(measures, name("measure"))
    path, sha, size = data_file(file, name("file")) if file else (None, None, 0)
    config = folder.frozen_config()
    same_project(sid, config.session.project, project)
    with folder.store() as store:
        if (status := store.sessions.status()) == "refused":
            raise CosciError(f"session {sid} is {status}")
        _hypothesis(store, hid, sid, folder)
        contradiction = _contradiction(store, hid, outcome)
        said = "\n".join([notes.strip(), *(f"{k} = {v}" for k, v in values.items() if isinstance(v, str))])
        if said.strip():  # the notes and any text measure: both reach later prompts quoted
            screen(folder, store, said.strip())
        before = store.hypotheses.get(hid).state  # type: ignore[union-attr]
        state = _move(store, hid, outcome)  # type: ignore[arg-type]
        oid = store.researcher.add_observation(hid, outcome, values, notes.strip(), path, sha,  # type: ignore[arg-type]
                                               moved_from=before if state != before else None)
        store.logs.event("experimental_result", {"id": oid, "hypothesis": hid, "outcome": outcome, "state": state,
                                                 "moved_from": before if state != before else None})
        queued = 0
        if status not in ("done",):
            from cosci.supervisor.rules import Scheduler

            queued = Scheduler(config, store).result_reviews()
        refresh(folder, store, warn)
    if contradiction:
        warn(contradiction)
    reviews = _reviews_line(folder, config.session.project, status, queued)
    measured = f"; measures: {measures_line(values)}" if values else ""
    attached = f"; file {Path(path).name}, {counted(size, 'byte')}" if path else ""
    return (f"{sid}: result {oid} on {hid} recorded ({outcome}; {state}{measured}{attached}); observation reviews "
            f"of its relatives: {reviews}")


def _reviews_line(folder: SessionFolder, project: str | None, status: str, queued: int) -> str:
    """Where the observation reviews of a result's relatives run: queued in the session, or, the session being
    done (it does not resume), in the project's next session (docs/commands.md, design.md#projects)."""
    if status == "done":
        return (f"the session is done, so they reach project {project}'s next session" if project
                else "none (the session is done and in no project, so none runs)")
    when = "queued now" if folder.is_running() else f"queued for `cosci resume {folder.session_id}`"
    return f"{queued} {when}" if queued else "none queued"


def _contradiction(store: SessionStore, hid: str, outcome: str) -> str | None:
    """The warning a result contradicting what is known of ``hid`` gets (None when it contradicts nothing): a
    supported result on a rejected hypothesis, or an outcome opposite to an earlier result's."""
    h = store.hypotheses.get(hid)
    opposite = {"supported": "refuted", "refuted": "supported"}.get(outcome)
    if h is None or opposite is None:
        return None
    earlier = [o.id for o in store.researcher.observations(hid) if o.outcome == opposite]
    if outcome == "supported" and h.state == "rejected":
        why = f", refuted by result {earlier[-1]}" if earlier else ""
        return (f"{hid} is rejected{why} (out of the tournament); the supported result is recorded and the "
                "hypothesis stays rejected")
    if earlier:
        return (f"{hid} has an earlier {opposite} result {earlier[-1]} (it is {h.state}); this {outcome} one is "
                "recorded too")
    return None


def _move(store: SessionStore, hid: str, outcome: Outcome) -> str:
    """refuted -> rejected (out of the tournament, a rejected direction; a retired one too: the result is about the
    idea); supported -> pinned; returns the state."""
    h = store.hypotheses.get(hid)
    assert h is not None
    target = MOVES.get(outcome)
    if target == "pinned" and h.state != "in_tournament":
        return h.state  # only a tournament player is pinned; the result is still recorded
    if target:
        store.hypotheses.set_state(hid, target)  # type: ignore[arg-type]
    return target or h.state
