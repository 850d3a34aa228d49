"""The decisions a threshold change flips on the tuning sets, with the shipped intent model.

    python -m bench.safety_flips strong=0.9/0.2 --skip goals_blind13 goals_blind14   # the sets not among the folds

Every ``goals_*.jsonl`` under tests/data/safety but ``goals_blind18`` (being written, never read), the sets named by
``--skip`` (the folds :mod:`bench.safety_rechoose` already counted) and the held-out parts (``split`` ``heldout`` of
goals_intent.jsonl and goals_tune12.jsonl; a blind set's rows all carry that split and are tuning data) is screened
once (:func:`bench.safety_refit.set_evidence`, scored by the shipped model from the embedding cache) and decided twice:
with the configured thresholds and with the candidate (:func:`bench.safety_rechoose.candidate`; the configured
thresholds besides, ``alone_strong`` and ``alone_support`` as the candidate sets them). Prints, per set, harmful
requests gained and lost and benign goals newly refused and newly allowed, then every flipped text.
"""

from __future__ import annotations

import argparse
import json
import sys
from dataclasses import replace
from pathlib import Path

from bench.safety_intent import CachedEmbedding, Row
from bench.safety_measure import SAFETY_DATA
from bench.safety_rechoose import candidate
from bench.safety_refit import rescore, set_evidence
from cosci.safety.screen import decision_of

NEVER = ("goals_blind18",)
"""A set being written: never read."""
HELD_OUT_SPLIT = ("goals_intent", "goals_tune12")
"""Sets whose ``heldout`` rows are a held-out part (reported, not tuned on)."""


def tuning_rows(path: Path) -> list[Row]:
    """The tuning rows of ``path`` (any of the set formats: a row without ``lang`` is English, without
    ``names_agent`` names none)."""
    out = []
    for line in path.read_text(encoding="utf-8").splitlines():
        if not line.strip():
            continue
        r = json.loads(line)
        if path.stem in HELD_OUT_SPLIT and r.get("split") == "heldout":
            continue
        out.append(Row(r["id"], r["text"], r["label"], r["category"], r.get("kind", ""), r.get("lang", "en"),
                       bool(r.get("names_agent", False)), r.get("split", "blind"), path.stem))
    return out


def main(argv: list[str] | None = None) -> int:
    from bench.safety import _config
    from cosci.safety.intent import load_intent
    from cosci.safety.prescreen import load_prescreen
    from cosci.safety.screen import OfflineScreen, thresholds_of

    parser = argparse.ArgumentParser(prog="python -m bench.safety_flips")
    parser.add_argument("candidate", help="support=P or strong=S/P (bench.safety_rechoose.candidate)")
    parser.add_argument("--skip", nargs="*", default=[], help="sets not screened (already counted)")
    args = parser.parse_args(argv)
    config = _config("local")
    assert config.safety is not None
    base = replace(thresholds_of(config.safety), alone_strong=None)
    after = candidate(args.candidate, base)
    screen = OfflineScreen(load_prescreen(config.safety.prescreen_terms), load_intent(config.safety.intent), base)
    cache = CachedEmbedding()
    paths = [p for p in sorted(SAFETY_DATA.glob("goals_*.jsonl")) if p.stem not in (*NEVER, *args.skip)]
    print("| set | rows | harmful gained | harmful lost | benign refused | benign allowed |\n|---|---|---|---|---|---|")
    flipped, total = [], [0, 0, 0, 0, 0]
    for path in paths:
        rows = tuning_rows(path)
        scored = rescore(set_evidence(rows, screen), screen.intent, cache)
        n = [len(rows), 0, 0, 0, 0]
        for r, ev in zip(rows, scored, strict=True):
            if ev is None:
                continue
            was, now = decision_of(ev, base) == "block", decision_of(ev, after) == "block"
            if was != now:
                n[1 + 2 * (not r.harmful) + (was if r.harmful else not now)] += 1
                flipped.append((path.stem, r, now))
        total = [a + b for a, b in zip(total, n, strict=True)]
        print(f"| {path.stem} | {' | '.join(map(str, n))} |", flush=True)
    print(f"| all | {' | '.join(map(str, total))} |")
    for stem, r, now in flipped:
        print(f"{stem} {r.id} {r.label} {r.category} {r.lang} -> {'block' if now else 'allow'}: {r.text}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
