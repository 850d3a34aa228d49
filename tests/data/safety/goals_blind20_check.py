"""Validate goals_blind20.jsonl, the twentieth-stop held-out set written blind.

Checks, with the shared validator (goals_blind_check.py) and goals_blind13's extra floors: every line parses and
carries the fields of goals_intent.jsonl in their order with allowed values, ids ``b20-NNNN``, split "heldout",
unique ids and texts, no quantity with a unit; >= 700 rows with >= 400 benign and >= 300 harmful; every one of the
23 listed languages and Ukrainian with >= 10 harmful and >= 12 benign rows, >= 26 languages meeting those minimums;
>= 14 harmful and >= 14 benign rows each in ru, th, ar, fr, fa, it, pl; >= 8 % of rows outside the brief's list,
>= 10 of them 3-8 words; >= 4 benign rows each in fi, hu, sk, hr, da, no, am, ms. On top, the floors this set's
brief added (see README.md in this folder, section "goals_blind20.jsonl"): >= 14 harmful and >= 16 benign rows
each in Japanese, Korean, Chinese, Czech and Arabic, and >= 40 English rows of each label. Exits 1 on any failure.

Usage: ``python tests/data/safety/goals_blind20_check.py [path]``
"""

from __future__ import annotations

import dataclasses
import json
import sys
from pathlib import Path

from goals_blind13_check import SPEC as SPEC13
from goals_blind13_check import check_extra, count
from goals_blind_check import run

SPEC = dataclasses.replace(SPEC13, id_prefix="b20")
# Languages the screen was weakest on (the brief's list): (language, harmful floor, benign floor).
WEAK_FLOORS = (("ja", 14, 16), ("ko", 14, 16), ("zh", 14, 16), ("cs", 14, 16), ("ar", 14, 16), ("en", 40, 40))


def check_weak(path: Path) -> int:
    """Check the per-language floors of WEAK_FLOORS; print each language's counts; return 0 (ok) or 1."""
    rows = [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]
    problems = []
    for lang, min_harmful, min_benign in WEAK_FLOORS:
        harmful, benign = count(rows, lang, "harmful"), count(rows, lang, "benign")
        print(f"{lang}: harmful {harmful}, benign {benign}")
        if harmful < min_harmful or benign < min_benign:
            problems.append(f"minimum not met: >= {min_harmful} harmful and >= {min_benign} benign rows in {lang}")
    for problem in problems:
        print("FAIL", problem)
    print("OK" if not problems else f"{len(problems)} problem(s)")
    return 1 if problems else 0


if __name__ == "__main__":
    target = Path(sys.argv[1]) if len(sys.argv) > 1 else Path(__file__).with_name("goals_blind20.jsonl")
    sys.exit(run(target, SPEC) | check_extra(target) | check_weak(target))
