"""``--from-session``: a co-scientist session's hypotheses in, each one's outcome back (docs/design.md#evidence).

:func:`seeded_hypotheses` takes the top hypotheses of the session's current standing; ideation judges which the task
can test (an idea bundle names the one it tests). :func:`write_outcome` is the one place an outcome goes back: every
outcome is an ``investigation_result`` event; a ``supported`` or ``refuted`` one (replicated evidence,
:func:`cosci.investigation.evidence.outcome`) is also an **observation review** on the hypothesis (verdict
``missing_piece`` for supported, ``disproved`` for refuted: the latest review is what the tournament's judges, the
overview and a project's demoted directions read). An ``inconclusive`` outcome observed nothing either way, so it
writes no review (design.md#evidence).
"""

from __future__ import annotations

from pathlib import Path

from cosci.records import Observation, RecordReview
from cosci.session.folder import SessionFolder
from cosci.store.standing import standing

VERDICTS = {"supported": "missing_piece", "refuted": "disproved"}
"""The review each written-back outcome becomes; an outcome not in it (``inconclusive``) writes no review."""
EXPLAINED = {"supported": "yes", "refuted": "no"}


def seeded_hypotheses(data_dir: Path, session_id: str, top: int) -> list[dict[str, str]]:
    """``[{"id", "text"}]`` of the session's ``top`` hypotheses in its current standing (BT score, which holds the
    researcher's preferences, then Elo: :mod:`cosci.store.standing`, the leaderboard the researcher reads;
    quarantined, rejected and retired ones never).

    Raises:
        SessionNotFound: no such session (one line).
    """
    folder = SessionFolder.existing(data_dir, session_id)
    with folder.store() as store:
        every = {h.id: h for h in store.hypotheses.all()}
        return [{"id": hid, "text": every[hid].brief()} for hid in standing(store).ids(top)]


def write_outcome(data_dir: Path, session_id: str, run_id: str, hypothesis_id: str, outcome: str,
                  detail: str) -> str | None:
    """Write one seeded hypothesis's outcome back to its session: always an ``investigation_result`` event, and an
    observation review only for ``supported`` or ``refuted`` (:data:`VERDICTS`; an inconclusive outcome, whether
    no idea tested the hypothesis or the evidence did not decide, observed nothing: design.md#evidence). Returns
    the review id (idempotent per run), None without one."""
    if outcome not in VERDICTS:
        with SessionFolder.existing(data_dir, session_id).store() as store:
            store.logs.event("investigation_result", {"run_id": run_id, "hypothesis_id": hypothesis_id,
                                                      "outcome": outcome, "review_id": None,
                                                      "detail": detail[:2000]}, agent="investigation")
        return None
    review = RecordReview(verdict=VERDICTS[outcome], mode="observation", evidence=[],  # type: ignore[arg-type]
                          notes=f"cosci investigate {run_id}: {outcome}. {detail}",
                          observations=[Observation(observation=detail[:1000],
                                                    explained=EXPLAINED[outcome])])  # type: ignore[arg-type]
    with SessionFolder.existing(data_dir, session_id).store() as store:
        rid = store.hypotheses.add_review(hypothesis_id, review, task_id=f"investigation:{run_id}")
        store.logs.event("investigation_result", {"run_id": run_id, "hypothesis_id": hypothesis_id,
                                                  "outcome": outcome, "review_id": rid, "detail": detail[:2000]},
                         agent="investigation")
    return rid
