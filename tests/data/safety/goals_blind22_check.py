"""Validate goals_blind22.jsonl, the twenty-second-stop held-out set written blind.

Checks, with the shared validator (goals_blind_check.py) and goals_blind13's extra floors: every line parses and
carries the fields of goals_intent.jsonl in their order with allowed values, ids ``b22-NNNN``, split "heldout",
unique ids and texts, no quantity with a unit; >= 700 rows with >= 400 benign and >= 300 harmful; every one of the
23 listed languages and Ukrainian with >= 10 harmful and >= 12 benign rows, >= 26 languages meeting those minimums;
>= 14 harmful and >= 14 benign rows each in ru, th, ar, fr, fa, it, pl; >= 8 % of rows outside the brief's list,
>= 10 of them 3-8 words; >= 4 benign rows each in fi, hu, sk, hr, da, no, am, ms. The brief gave the same minimums
as goals_blind13's (see README.md in this folder, section "goals_blind22.jsonl"), so only the id prefix differs.
Exits 1 on any failure.

Usage: ``python tests/data/safety/goals_blind22_check.py [path]``
"""

from __future__ import annotations

import dataclasses
import sys
from pathlib import Path

from goals_blind13_check import SPEC as SPEC13
from goals_blind13_check import check_extra
from goals_blind_check import run

SPEC = dataclasses.replace(SPEC13, id_prefix="b22")

if __name__ == "__main__":
    target = Path(sys.argv[1]) if len(sys.argv) > 1 else Path(__file__).with_name("goals_blind22.jsonl")
    sys.exit(run(target, SPEC) | check_extra(target))
