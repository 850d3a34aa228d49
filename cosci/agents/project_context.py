"""What a session of a project takes from its earlier sessions (design.md#projects).

- :func:`carry_over`: the project's best prior hypotheses (``project.entrants``, :meth:`ProjectStore.best`: by
  each session's final standing) inserted as draft
  hypotheses of this session, marked with their origin session (``project_entrants``); they are screened,
  re-reviewed against this session's goal and enter the tournament like any new hypothesis.
- :func:`rejected_directions_block`, :func:`demoted_directions_block`: the project's rejected directions (the
  rejected state) and demoted directions (a rejecting latest review), each with why, quoted, for generation and
  evolution prompts (``project.rejected_in_prompts`` of each, newest first). A quarantined hypothesis is neither
  (:meth:`ProjectStore.sync`).
- :func:`since_last_session`: the overview's "Since the last session" section: what is new in the top, where the
  carried-over hypotheses moved, what was dropped.
"""

from __future__ import annotations

import numpy as np

from cosci.config.schema import CosciConfig
from cosci.ids import hypothesis_id
from cosci.records import RecordHypothesis
from cosci.safety.quoting import quote_untrusted
from cosci.store import SessionStore
from cosci.store.project import Direction, ProjectStore
from cosci.store.standing import standing
from cosci.text import one_line

SINCE_HEADING = "# Since the last session"
TOP = 5
"""Hypotheses compared by "Since the last session" (the top of each leaderboard)."""


def project_store(config: CosciConfig) -> ProjectStore | None:
    """The session's project store (None outside a project)."""
    name = config.session.project
    if not name:
        return None
    return ProjectStore.open(config.paths.data_dir, name, config.project.lock_timeout_seconds)


FALSIFICATION = {"decisive_experiment": "", "predicted_result": "", "refuting_result": ""}
"""A prior record stored before the falsification fields existed carries them empty (reviewed down for
testability; design.md#falsification)."""


def carry_over(config: CosciConfig, store: SessionStore, elo: float) -> list[str]:
    """Insert the project's best prior hypotheses as drafts of this session; returns the new ids (idempotent:
    a retried task inserts nothing twice)."""
    project = project_store(config)
    if project is None:
        return []
    try:
        best = project.best(min(config.project.entrants, config.run.max_hypotheses),  # the cap holds
                            exclude_session=store.session_id)
    finally:
        project.close()
    ids = []
    for rank, prior in enumerate(best, 1):
        rec = RecordHypothesis.model_validate({**FALSIFICATION, **prior.record, "parent_ids": []})
        hid = hypothesis_id(store.namespace, f"project:{prior.session_id}:{prior.hypothesis_id}", rec.statement)
        store.hypotheses.insert(hid, rec, elo=elo, task_id=None)
        store.researcher.add_entrant(hid, str(config.session.project), prior.session_id, prior.hypothesis_id,
                                     prior.elo, prior.rank or rank)
        ids.append(hid)
    return ids


def rejected_directions(config: CosciConfig, store: SessionStore) -> list[Direction]:
    """The project's rejected directions from its other sessions (newest first; [] outside a project)."""
    project = project_store(config)
    if project is None:
        return []
    try:
        return project.rejected(exclude_session=store.session_id)
    finally:
        project.close()


def nearest_rejected(vec: np.ndarray, directions: list[Direction], vectors: np.ndarray, threshold: float
                     ) -> tuple[Direction, float] | None:
    """The rejected direction closest to ``vec`` (``(dim,)``, L2-normalised) when its cosine is at least
    ``threshold``; ``vectors`` is ``(len(directions), dim)``, L2-normalised."""
    if not directions or vectors.shape[0] == 0:
        return None
    sims = vectors @ vec
    i = int(np.argmax(sims))
    return (directions[i], float(sims[i])) if sims[i] >= threshold else None


def rejected_directions_block(config: CosciConfig, store: SessionStore) -> str:
    """The project's rejected directions from other sessions, quoted ("" outside a project or when none)."""
    return _directions_block(config, store, "rejected")


def demoted_directions_block(config: CosciConfig, store: SessionStore) -> str:
    """The project's demoted directions from other sessions, quoted ("" outside a project or when none)."""
    return _directions_block(config, store, "demoted")


def _directions_block(config: CosciConfig, store: SessionStore, kind: str) -> str:
    project = project_store(config)
    if project is None:
        return ""
    try:
        read = project.rejected if kind == "rejected" else project.demoted
        rows = read(exclude_session=store.session_id)[: config.project.rejected_in_prompts]
    finally:
        project.close()
    if not rows:
        return ""
    text = "\n".join(f"- {one_line(d.title)}: {one_line(d.statement)[:300]} (session {d.session_id}, {d.reason}; "
                     f"why: {one_line(d.why)[:300]})" for d in rows)
    return quote_untrusted(text, f"{kind}-directions")


def since_last_session(config: CosciConfig, store: SessionStore) -> str:
    """The overview's "Since the last session" section ("" outside a project; says so for its first session)."""
    project = project_store(config)
    if project is None:
        return ""
    try:
        earlier = [s for s in project.sessions() if s["session_id"] != store.session_id]
        last = earlier[-1]["session_id"] if earlier else None
        prior = project.hypotheses(last) if last else []
        rejected = [d for d in project.rejected() if d.session_id == store.session_id]
    finally:
        project.close()
    lines = [SINCE_HEADING, ""]
    if last is None:
        return "\n".join([*lines, f"The first session of project {config.session.project}."]) + "\n"
    entrants = store.researcher.entrants()
    ranked = standing(store).ranked  # the ranks the session's leaderboard shows (design.md#report)
    now = {h.id: i for i, h in enumerate(ranked, 1)}
    lines.append(f"Compared with session {last} of project {config.session.project}.")
    lines += ["", "New in the top:"]
    new = [h for h in ranked[:TOP] if h.id not in entrants]
    lines += [f"- [{h.id}] {one_line(h.title)} (rank {now[h.id]})" for h in new] or ["- none"]
    lines += ["", "Moved (carried over from earlier sessions):"]
    moved = sorted(entrants.items(), key=lambda kv: kv[1]["origin_rank"])
    lines += [f"- [{hid}] from {o['origin_session']} [{o['origin_hypothesis']}]: rank {o['origin_rank']} there, "
              + (f"rank {now[hid]} now" if hid in now else "not ranked now")
              for hid, o in moved] or ["- none"]
    carried = {o["origin_hypothesis"] for o in entrants.values()}
    top_before = [h for h in prior if h.rank is not None and h.rank <= TOP]
    dropped = [f"- [{h.hypothesis_id}] {one_line(h.title)} (rank {h.rank} in {last}): not carried over"
               for h in top_before if h.hypothesis_id not in carried]
    dropped += [f"- [{d.hypothesis_id}] {one_line(d.title)}: {d.reason} in this session" for d in rejected]
    lines += ["", "Dropped:", *(dropped or ["- none"])]
    near = [e["payload"] for e in store.logs.events("near_rejected_direction")]
    if near:
        lines += ["", "Near a rejected direction (cosine at the dedup threshold or above):"]
        lines += [f"- [{p['id']}] is close to [{p['direction']}] ({p['reason']} in {p['session']}; cosine "
                  f"{p['similarity']:.2f})" for p in near]
    return "\n".join(lines) + "\n"
