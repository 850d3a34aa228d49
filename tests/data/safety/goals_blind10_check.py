"""Validate goals_blind10.jsonl, the eleventh-stop held-out set written blind.

The checks live in goals_blind_check.py (shared by the blind sets); this script holds the minimums the brief of
this set gave (see README.md in this folder, section "goals_blind10.jsonl"), which are goals_blind9's with ids
``b10-NNNN``: fields of goals_intent.jsonl in their order, split "heldout", no quantity with a unit, >= 600 rows
(360 benign, 240 harmful), every one of the 23 listed languages with >= 10 harmful and >= 12 benign rows, >= 8 %
of rows in other languages of which some are short (3-8 words). Exits 1 on any failure.

Usage: ``python tests/data/safety/goals_blind10_check.py [path]``
"""

from __future__ import annotations

import sys
from dataclasses import replace
from pathlib import Path

from goals_blind9_check import SPEC as NINTH
from goals_blind_check import run

SPEC = replace(NINTH, id_prefix="b10")

if __name__ == "__main__":
    default = Path(__file__).with_name("goals_blind10.jsonl")
    sys.exit(run(Path(sys.argv[1]) if len(sys.argv) > 1 else default, SPEC))
