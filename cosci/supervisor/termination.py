"""Termination predicates (design.md#termination), checked after every task.

In order: ``EXTERNAL`` (abort; recorded as ``aborted``), ``BUDGET`` (the working budget — the cap minus the reserve kept
for the final overview — is spent, or the next call did not fit in what the cap left: the summary says which),
``WALL_CLOCK`` (active time, across resumes, has reached ``run.wall_clock_seconds``), ``ELO_STABLE`` / ``BT_STABLE``
(the stability rules; ``termination.stability_rule`` picks which may stop the session, :func:`stability_stop`; the BT
rule is :class:`cosci.tournament.stability.BTStabilityTracker`, design.md#tournament), ``MAX_HYPOTHESES`` (the pool is
full and every player is ranked), and, when nothing is pending and idle refinement finds nothing: ``BUDGET`` if an
agent's share ran out (the summary names the agent), ``STALLED`` if the pool cannot grow (growth attempts used, or
duplicates only) and the leaderboard cannot change (every pair at the rematch cap; design.md#tournament), else ``IDLE``.
"""

from __future__ import annotations

from enum import StrEnum


class StopReason(StrEnum):
    EXTERNAL = "aborted"  # design.md#termination (pause/abort); recorded as "aborted", what the researcher asked
    BUDGET = "budget"
    WALL_CLOCK = "wall_clock"
    ELO_STABLE = "elo_stable"
    BT_STABLE = "bt_stable"
    MAX_HYPOTHESES = "max_hypotheses"
    STALLED = "stalled"
    IDLE = "idle"
    REFUSED = "refused"  # the safety classifier blocked the goal; nothing else runs (design.md#safety)
    INTERRUPTED = "interrupted"  # Ctrl-C / SIGTERM: not an end; interrupted actions wait for `cosci resume`


def stability_stop(rule: str, elo_stable: bool, bt_stable: bool) -> StopReason | None:
    """The stability stop for ``termination.stability_rule`` (``elo``, ``bt`` or ``either``), Elo checked first."""
    if elo_stable and rule in ("elo", "either"):
        return StopReason.ELO_STABLE
    if bt_stable and rule in ("bt", "either"):
        return StopReason.BT_STABLE
    return None
