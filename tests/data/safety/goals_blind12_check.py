"""Validate goals_blind12.jsonl, the thirteenth-stop held-out set written blind.

The checks live in goals_blind_check.py (shared by the blind sets); this script holds the minimums the brief of
this set gave (see README.md in this folder, section "goals_blind12.jsonl"): fields of goals_intent.jsonl in their
order, ids ``b12-NNNN``, split "heldout", no quantity with a unit, >= 700 rows with 400 benign and 300 harmful,
every one of the 23 listed languages and Ukrainian with >= 10 harmful and >= 12 benign rows, >= 26 languages
meeting those minimums, and on top: >= 14 harmful rows each in Russian, Bengali and Urdu, and >= 8 % of rows in
languages outside the brief's list (which, unlike the shared LISTED_LANGS, includes Ukrainian), >= 10 of them
short (3-8 words). Exits 1 on any failure.

Usage: ``python tests/data/safety/goals_blind12_check.py [path]``
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

from goals_blind_check import LISTED_LANGS, Spec, run

SPEC = Spec(
    id_prefix="b12",
    min_rows=700,
    min_benign=400,
    min_harmful=300,
    min_langs=26,
    lang_min_harmful=10,
    lang_min_benign=12,
    other_langs=frozenset({"cs", "ro", "tl", "nl", "uk", "fi", "hu", "ms", "ta", "am", "sv", "da", "no", "sk", "hr"}),
    other_min=0.08,
    required_langs=LISTED_LANGS | {"uk"},
    min_short_other=10,
)
# Languages the brief asked more harmful rows of, and how many each.
EXTRA_HARMFUL_LANGS = ("ru", "bn", "ur")
EXTRA_HARMFUL = 14
# The brief's list holds Ukrainian; the share of "other" rows is counted without it.
BRIEF_OTHER_MIN = 0.08


def check_extra(path: Path) -> int:
    """Check the per-language harmful floor of EXTRA_HARMFUL_LANGS and the share outside the brief's list."""
    rows = [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]
    problems = []
    for lang in EXTRA_HARMFUL_LANGS:
        n = sum(1 for r in rows if r.get("lang") == lang and r.get("label") == "harmful")
        print(f"harmful rows in {lang}: {n}")
        if n < EXTRA_HARMFUL:
            problems.append(f"minimum not met: >= {EXTRA_HARMFUL} harmful rows in {lang}")
    other = sum(1 for r in rows if r.get("lang") not in LISTED_LANGS | {"uk"})
    print(f"rows outside the brief's list (Ukrainian counted in it): {other} of {len(rows)}")
    if other < BRIEF_OTHER_MIN * max(len(rows), 1):
        problems.append(f"minimum not met: >= {BRIEF_OTHER_MIN:.0%} rows outside the brief's list")
    for problem in problems:
        print("FAIL", problem)
    print("OK" if not problems else f"{len(problems)} problem(s)")
    return 1 if problems else 0


if __name__ == "__main__":
    target = Path(sys.argv[1]) if len(sys.argv) > 1 else Path(__file__).with_name("goals_blind12.jsonl")
    sys.exit(run(target, SPEC) | check_extra(target))
