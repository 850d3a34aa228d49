"""Termination predicates (seed 000 "Termination Predicates"), checked after every task.

In order: ``EXTERNAL`` (abort; recorded as ``aborted``), ``BUDGET`` (the working budget — the cap minus the
reserve kept for the final overview — is spent, or an admission hit the session cap), ``WALL_CLOCK`` (active
time, across resumes, has reached ``run.wall_clock_seconds``), ``ELO_STABLE`` (the stability tracker with its
guards), ``MAX_IDEAS`` (the pool is full and every player is ranked), and ``IDLE`` (nothing pending and idle
refinement found nothing).
"""

from __future__ import annotations

from enum import StrEnum


class StopReason(StrEnum):
    EXTERNAL = "aborted"  # seed 000 EXTERNAL (pause/abort); recorded as "aborted", what the researcher asked
    BUDGET = "budget"
    WALL_CLOCK = "wall_clock"
    ELO_STABLE = "elo_stable"
    MAX_IDEAS = "max_ideas"
    IDLE = "idle"
    INTERRUPTED = "interrupted"  # Ctrl-C / SIGTERM: not an end; interrupted actions wait for `cosci resume`
