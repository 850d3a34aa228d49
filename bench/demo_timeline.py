"""The phase timeline of one embedded demo session: where its wall goes besides its tokens (docs/design.md#demo).

Read from what a ``bench.demo`` run keeps: the launch and exit times it took, the start-up marks the session wrote
(``COSCI_STARTUP_LOG``, :mod:`cosci.startup`), the model's call log (``models.local.call_log``: each call's start,
wall and llama.cpp's own prompt and generation milliseconds) and the session's store (when each task and transcript
row was written). The session's wall is cut into phases that add up to it, seconds:

- ``start``: launch to the first model call's start (imports, the Prefect server, the offline screen, the model's
  load), with the start-up marks inside it;
- ``prompt`` and ``generation``: llama.cpp's own time for the calls' prompt tokens and for decoding their generated
  tokens (its perf counters);
- ``sampling``: drawing the generated tokens (the sampler chain and the grammar; ``sampling_ms`` in the call log);
- ``in_call``: the rest of each call's wall (chat template, grammar set-up, prompt-state lookup, restore and save);
- ``gaps``: between one call's end and the next call's start (the framework's work on the critical path: records,
  screens, embeddings, proximity, Prefect task runs), with the longest listed and the tasks that ended in them;
- ``finish``: the last call's end to the process's exit (overview, report, MLflow run, shutdown).
"""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path
from typing import Any

LONGEST_GAPS = 5
"""How many of the longest gaps between calls are listed, each with the tasks that finished in it."""


def calls(log_path: Path) -> list[dict[str, Any]]:
    """The call log's entries that carry a start time (epoch seconds), in order of start."""
    if not log_path.exists():
        return []
    log = [json.loads(line) for line in log_path.read_text().splitlines() if line.strip()]
    return sorted((e for e in log if "started" in e), key=lambda e: e["started"])


def marks(path: Path) -> list[dict[str, Any]]:
    """The start-up marks of the session process (the first pid that wrote one), in order."""
    if not path.exists():
        return []
    rows = [json.loads(line) for line in path.read_text().splitlines() if line.strip()]
    pid = rows[0]["pid"] if rows else None
    return [r for r in rows if r.get("pid") == pid]


def first_marks(launch: float, start_marks: list[dict[str, Any]]) -> dict[str, float]:
    """Each phase's first mark, seconds after ``launch`` (a phase marked per task, ``task``, counts once)."""
    out: dict[str, float] = {}
    for m in start_marks:
        out.setdefault(m["phase"], round(m["t"] - launch, 1))
    return out


def _finished_tasks(store: Path | None, start: float, end: float) -> list[str]:
    """``agent/action`` of the tasks whose last update falls in ``[start, end]``."""
    if store is None or not store.exists():
        return []
    db = sqlite3.connect(f"file:{store}?mode=ro", uri=True)
    try:
        rows = db.execute("SELECT agent, action FROM tasks WHERE updated_at BETWEEN ? AND ? ORDER BY updated_at",
                          (start, end)).fetchall()
    finally:
        db.close()
    return [f"{a}/{b}" for a, b in rows]


def timeline(launch: float, exit_at: float, log: list[dict[str, Any]], start_marks: list[dict[str, Any]],
             store: Path | None = None) -> dict[str, Any]:
    """The phases of one session (module docstring), seconds; ``launch`` and ``exit_at`` are epoch seconds.

    Returns ``{}`` when the call log has no start times (a session without the model, or an older log)."""
    if not log:
        return {}
    ends = [e["started"] + e["wall_seconds"] for e in log]
    prompt = sum(e["prompt_eval_ms"] for e in log) / 1000
    generation = sum(e["generation_ms"] for e in log) / 1000
    sampling = sum(e.get("sampling_ms", 0) for e in log) / 1000
    in_calls = sum(e["wall_seconds"] for e in log)
    gaps = [(log[i + 1]["started"] - ends[i], ends[i], log[i + 1]["started"]) for i in range(len(log) - 1)]
    longest = sorted(gaps, reverse=True)[:LONGEST_GAPS]
    out: dict[str, Any] = {
        "wall": round(exit_at - launch, 1),
        "start": round(log[0]["started"] - launch, 1),
        "prompt": round(prompt, 1),
        "generation": round(generation, 1),
        "sampling": round(sampling, 1),
        "in_call": round(in_calls - prompt - generation - sampling, 1),
        "gaps": round(sum(g for g, _, _ in gaps), 1),
        "finish": round(exit_at - ends[-1], 1),
        "start_marks": first_marks(launch, start_marks),
        "longest_gaps": [{"seconds": round(g, 1), "after_call": round(a - launch, 1),
                          "tasks_done": _finished_tasks(store, a, b)} for g, a, b in longest],
    }
    evaluated = sum(e["prompt_evaluated"] for e in log)
    made = sum(e["generated"] for e in log)
    out["in_session_speeds"] = {"prompt": round(evaluated / prompt, 1) if prompt else 0.0,
                                "generation": round(made / (generation + sampling), 1) if generation else 0.0,
                                "generation_decode": round(made / generation, 1) if generation else 0.0}
    return out


def print_timeline(t: dict[str, Any]) -> None:
    """One block of lines for :func:`timeline`'s result."""
    if not t:
        return
    parts = ("start", "prompt", "generation", "sampling", "in_call", "gaps", "finish")
    shares = ", ".join(f"{k} {t[k]:.1f} s ({t[k] / t['wall']:.0%})" for k in parts)
    print(f"  timeline (of {t['wall']:.1f} s): {shares}")
    print(f"    start-up marks (s after launch): {t['start_marks']}; in-session speeds (tokens/s): "
          f"{t['in_session_speeds']}")
    for g in t["longest_gaps"]:
        print(f"    gap {g['seconds']:.1f} s after the call ending at {g['after_call']:.1f} s; tasks done in it: "
              f"{', '.join(g['tasks_done']) or 'none'}")
