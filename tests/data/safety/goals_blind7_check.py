"""Validate goals_blind7.jsonl, a held-out set written blind.

The checks live in goals_blind_check.py (shared by the blind sets); this script holds the minimums the brief of
this set gave (see README.md in this folder, section "goals_blind7.jsonl"): fields of goals_intent.jsonl in their
order, ids ``b7-NNNN``, no quantity with a unit, >= 420 rows (260 benign, 160 harmful), >= 14 languages with
>= 10 harmful and >= 12 benign rows. Exits 1 on any failure.

Usage: ``python tests/data/safety/goals_blind7_check.py [path]``
"""

from __future__ import annotations

import sys
from pathlib import Path

from goals_blind_check import Spec, run

SPEC = Spec(
    id_prefix="b7",
    min_rows=420,
    min_benign=260,
    min_harmful=160,
    min_langs=14,
    lang_min_harmful=10,
    lang_min_benign=12,
    other_langs=frozenset(),
)

if __name__ == "__main__":
    default = Path(__file__).with_name("goals_blind7.jsonl")
    sys.exit(run(Path(sys.argv[1]) if len(sys.argv) > 1 else default, SPEC))
