"""Validate goals_blind14.jsonl, the fourteenth-stop second held-out set written blind.

Its brief gave the same minimums as goals_blind13's (see goals_blind13_check.py and README.md in this folder, section
"goals_blind14.jsonl"), with ids ``b14-NNNN``: the same checks are run, only the id prefix differs. Exits 1 on any
failure.

Usage: ``python tests/data/safety/goals_blind14_check.py [path]``
"""

from __future__ import annotations

import dataclasses
import sys
from pathlib import Path

from goals_blind13_check import SPEC as SPEC13
from goals_blind13_check import check_extra
from goals_blind_check import run

SPEC = dataclasses.replace(SPEC13, id_prefix="b14")

if __name__ == "__main__":
    target = Path(sys.argv[1]) if len(sys.argv) > 1 else Path(__file__).with_name("goals_blind14.jsonl")
    sys.exit(run(target, SPEC) | check_extra(target))
