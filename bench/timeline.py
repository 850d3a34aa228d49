"""A fake session's timeline: where its model-call slots went idle (bench/README.md, "The loop").

``python -m bench.timeline FOLDER [--latency S] [--concurrency N]`` on a data folder that
:func:`bench.scheduling.concurrency_run` kept (its ``calls.jsonl`` and the session's record). Calls are in flight
for ``latency`` seconds from the fake's log time (as the bench counts them); tasks are in flight from their
``task_started`` to their ``task_completed`` / ``task_failed`` event. Idle slot-seconds = ``concurrency`` × a
phase's length − the call-seconds in it. Phases: the start (the session's first second to the first call that is
not the goal's screen or parse), the middle (to the stop: the first ``elo_snapshot`` that found the Elo rule
stable, else the first finalisation task's start), and the tail (the drain of the tasks in flight, the gap to the
final overview, the overview's task, its screen, the rest). The session's first second is its end
(``session_done``) minus its record's active seconds. The middle's idle slot-seconds are split by the actions that
may call in flight then: fewer than the slots (nothing claimed to fill one), or as many or more (actions outside
their calls; bench/README.md, "Eighth pass"). After the stop it counts the actions started (finalisation's
excepted: the stop rule's promise is that none starts), the calls still made by the actions drained, and the
matches among them begun after the stop (a match's first call after it: a round's second match, not a debate's
next turn; bench/README.md, "Ninth pass").
"""

from __future__ import annotations

import argparse
import itertools
import json
from collections import defaultdict
from pathlib import Path
from typing import Any

START_ACTIONS = ("ScreenGoal", "ParseGoal")
FINAL_ACTIONS = ("GenerateFinalResearchOverview", "ScreenOverview")
NO_CALL_ACTIONS = ("AddToTournament", "UpdateProximityGraph", "ScreenHypothesis")
"""The bench session's actions without a call (``cosci.supervisor.slots.no_call_actions`` of its config): they run
beside the slots, so the idle split does not count them."""


def _overlap(spans: list[tuple[float, float]], lo: float, hi: float) -> float:
    """Seconds of ``spans`` (each counted, overlaps included) inside ``[lo, hi]``."""
    return sum(max(0.0, min(b, hi) - max(a, lo)) for a, b in spans)


def _union(spans: list[tuple[float, float]]) -> float:
    """Seconds covered by the union of ``spans``."""
    total, end = 0.0, float("-inf")
    for a, b in sorted(spans):
        if b > end:
            total += b - max(a, end)
            end = b
    return total


def _idle_split(calls: list[tuple[float, float]], tasks: list[tuple[float, float]], slots: int, lo: float,
                hi: float) -> tuple[float, float]:
    """Idle slot-seconds in ``[lo, hi]`` split by the actions in flight: ``(fewer actions than slots, as many or
    more)``. With as many actions as slots, a slot is idle because an action is outside its calls (its task run, its
    records, a wait for the event loop); with fewer, nothing was claimed to fill it."""
    edges = sorted({lo, hi, *(t for a, b in [*calls, *tasks] for t in (a, b) if lo < t < hi)})
    unclaimed = outside = 0.0
    for a, b in itertools.pairwise(edges):
        mid = (a + b) / 2
        out = sum(1 for x, y in calls if x <= mid < y)
        flying = sum(1 for x, y in tasks if x <= mid < y)
        idle = max(0, slots - out) * (b - a)
        short = min(max(0, slots - flying), max(0, slots - out)) * (b - a)
        unclaimed, outside = unclaimed + short, outside + idle - short
    return unclaimed, outside


def read(folder: Path) -> tuple[list[dict[str, Any]], list[dict[str, Any]], Any]:
    """The fake's call log, the session's events and its row, from a kept bench folder."""
    from cosci.store import STORE_FILE, SessionStore

    calls = [json.loads(line) for line in (folder / "calls.jsonl").read_text().splitlines() if line.strip()]
    session = max((folder / "sessions").iterdir(), key=lambda p: p.stat().st_mtime)
    store = SessionStore.open(session / STORE_FILE, session.name)
    try:
        return calls, store.logs.events(), store.sessions.get()
    finally:
        store.close()


def timeline(folder: Path, latency: float = 1.0, concurrency: int = 8) -> dict[str, Any]:
    """Idle slot-seconds by phase and the slot-seconds each action spent outside its calls (module docstring)."""
    calls, events, row = read(folder)
    spans = [(c["t"], c["t"] + latency) for c in calls]
    end = next(e["created_at"] for e in events if e["event"] == "session_done")
    t0 = end - row.elapsed_seconds
    tasks: dict[str, dict[str, Any]] = {}
    for e in events:
        p = e["payload"]
        if e["event"] == "task_started":
            tasks[p["task_id"]] = {"action": p["action"], "start": e["created_at"], "end": None}
        elif e["event"] in ("task_completed", "task_failed") and p.get("task_id") in tasks:
            tasks[p["task_id"]]["end"] = e["created_at"]
    final = [t for t in tasks.values() if t["action"] in FINAL_ACTIONS]
    final_start = min((t["start"] for t in final), default=end)
    stable = [e["created_at"] for e in events if e["event"] == "elo_snapshot" and e["payload"].get("elo_stable")]
    stop = stable[0] if stable else final_start
    first_work = min((c["t"] for c in calls if c.get("action") not in START_ACTIONS), default=t0)
    drained = max((t["end"] or end for t in tasks.values() if t["action"] not in FINAL_ACTIONS
                   and t["start"] <= stop), default=stop)

    def task_span(action: str) -> tuple[float, float] | None:
        ts = [t for t in final if t["action"] == action]
        return (ts[0]["start"], ts[0]["end"] or end) if ts else None

    overview, screen = task_span("GenerateFinalResearchOverview"), task_span("ScreenOverview")
    marks = [("start", t0, first_work), ("middle", first_work, stop), ("drain", stop, drained),
             ("to the overview", drained, overview[0] if overview else drained)]
    if overview:
        marks.append(("overview", *overview))
    if screen:
        marks.append(("overview screen", *screen))
    marks.append(("rest", marks[-1][2], end))
    phases = {name: {"seconds": hi - lo, "idle_slot_seconds": concurrency * (hi - lo) - _overlap(spans, lo, hi)}
              for name, lo, hi in marks}
    refits = [e["created_at"] - t0 for e in events if e["event"] == "bt_refit" and e["created_at"] >= stop]
    by_task: dict[str, list[tuple[float, float]]] = defaultdict(list)
    for c in calls:
        by_task[c.get("task_id") or ""].append((c["t"], c["t"] + latency))
    outside: dict[str, float] = defaultdict(float)
    for tid, t in tasks.items():
        if first_work <= t["start"] < stop:
            lo, hi = t["start"], min(t["end"] or end, stop)
            own = [(max(a, lo), min(b, hi)) for a, b in by_task.get(tid, []) if b > lo and a < hi]
            outside[t["action"]] += (hi - lo) - _union(own)
    calling = [(t["start"], t["end"] or end) for t in tasks.values() if t["action"] not in NO_CALL_ACTIONS]
    split = _idle_split(spans, calling, concurrency, first_work, stop)
    after = _after_stop(calls, tasks, stop)
    wall = row.elapsed_seconds
    first = sorted(tasks.values(), key=lambda t: t["start"])[:4]
    marks_start = [(f"{t['action']} started", t["start"] - t0) for t in first]
    marks_start += [(f"call {c.get('action')}", c["t"] - t0) for c in sorted(calls, key=lambda c: c["t"])[:3]]
    return {"start_marks": sorted(marks_start, key=lambda m: m[1]),
            "wall": wall, "ideal": len(calls) * latency / concurrency, "calls": len(calls),
            "wall_over_ideal": wall / (len(calls) * latency / concurrency),
            "in_flight": len(calls) * latency / (max(b for _, b in spans) - min(a for a, _ in spans)),
            "idle_slot_seconds": concurrency * wall - _overlap(spans, t0, end),
            "phases": phases, "refits_after_stop_s": refits,
            "middle_outside_calls": dict(sorted(outside.items(), key=lambda kv: -kv[1])),
            "middle_idle_split": {"fewer_actions_than_slots": split[0], "actions_outside_calls": split[1]},
            "after_stop": after}


def _after_stop(calls: list[dict[str, Any]], tasks: dict[str, dict[str, Any]], stop: float) -> dict[str, int]:
    """What the session still started after the stop (``stop``, a time): actions (finalisation's excepted), calls of
    the actions in flight then, and matches begun (a match's first call, ``.../match<k>``, after the stop)."""
    drained = {tid for tid, t in tasks.items() if t["action"] not in FINAL_ACTIONS and t["start"] <= stop}
    first: dict[tuple[str, str], float] = {}
    for c in calls:
        action = str(c.get("action") or "")
        if c.get("task_id") in drained and "/match" in action:
            key = (c["task_id"], action.split("/")[1])
            first[key] = min(first.get(key, c["t"]), c["t"])
    return {"actions_started": sum(1 for t in tasks.values()
                                   if t["start"] > stop and t["action"] not in FINAL_ACTIONS),
            "calls_of_drained_actions": sum(1 for c in calls if c["t"] > stop and c.get("task_id") in drained),
            "matches_begun": sum(1 for t in first.values() if t > stop)}


def show(out: dict[str, Any]) -> str:
    """The timeline as text lines."""
    lines = [f"wall {out['wall']:.1f} s, ideal {out['ideal']:.1f} s ({out['calls']} calls): "
             f"{out['wall_over_ideal']:.3f}x, {out['in_flight']:.2f} in flight, "
             f"{out['idle_slot_seconds']:.1f} idle slot-seconds"]
    for name, p in out["phases"].items():
        lines.append(f"  {name:16s} {p['seconds']:6.2f} s  idle {p['idle_slot_seconds']:6.1f} slot-s")
    lines.append("  start: " + ", ".join(f"{name} {t:.2f}" for name, t in out["start_marks"]))
    lines.append("  refits after the stop at (s from the start): "
                 + ", ".join(f"{t:.2f}" for t in out["refits_after_stop_s"]))
    after = out["after_stop"]
    lines.append(f"  after the stop: {after['actions_started']} actions started (finalisation's excepted), "
                 f"{after['calls_of_drained_actions']} calls of the actions drained, {after['matches_begun']} "
                 "matches begun")
    split = out["middle_idle_split"]
    lines.append(f"  middle idle: {split['fewer_actions_than_slots']:.1f} slot-s with fewer actions than slots in "
                 f"flight, {split['actions_outside_calls']:.1f} with as many or more (actions outside their calls)")
    lines.append("  middle, task-seconds outside calls (a wait for a call slot included): " + ", ".join(
        f"{k} {v:.1f}" for k, v in out["middle_outside_calls"].items() if v >= 0.05))
    return "\n".join(lines)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("folder", type=Path)
    ap.add_argument("--latency", type=float, default=1.0)
    ap.add_argument("--concurrency", type=int, default=8)
    args = ap.parse_args()
    print(show(timeline(args.folder, args.latency, args.concurrency)))


if __name__ == "__main__":
    main()
