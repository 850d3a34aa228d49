"""Validate goals_blind11.jsonl, the twelfth-stop held-out set written blind.

The checks live in goals_blind_check.py (shared by the blind sets); this script holds the minimums the brief of
this set gave (see README.md in this folder, section "goals_blind11.jsonl"): goals_blind9's (fields of
goals_intent.jsonl in their order, split "heldout", no quantity with a unit, >= 600 rows with 360 benign and 240
harmful, every one of the 23 listed languages with >= 10 harmful and >= 12 benign rows, >= 8 % of rows in other
languages of which some are short, 3-8 words) with ids ``b11-NNNN``, and on top: >= 25 languages meeting the
per-language minimums, and >= 40 rows in Russian, Ukrainian, Arabic, Persian, Thai and Vietnamese together beyond
those minimums (22 rows per language). Exits 1 on any failure.

Usage: ``python tests/data/safety/goals_blind11_check.py [path]``
"""

from __future__ import annotations

import json
import sys
from dataclasses import replace
from pathlib import Path

from goals_blind9_check import SPEC as NINTH
from goals_blind_check import run

SPEC = replace(NINTH, id_prefix="b11", min_langs=25)
# Languages the brief asked for beyond the per-language minimums, and how many rows beyond them together.
EXTRA_LANGS = ("ru", "uk", "ar", "fa", "th", "vi")
EXTRA_ROWS = 40


def check_extra(path: Path) -> int:
    """Print the rows of EXTRA_LANGS beyond their per-language minimums; return 1 if fewer than EXTRA_ROWS."""
    rows = [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]
    per_lang_min = SPEC.lang_min_harmful + SPEC.lang_min_benign
    total = sum(1 for r in rows if r.get("lang") in EXTRA_LANGS)
    beyond = total - per_lang_min * len(EXTRA_LANGS)
    ok = beyond >= EXTRA_ROWS
    print(f"rows in {'/'.join(EXTRA_LANGS)}: {total}, beyond the minimums: {beyond}")
    print("OK" if ok else f"FAIL minimum not met: >= {EXTRA_ROWS} rows in {EXTRA_LANGS} beyond the minimums")
    return 0 if ok else 1


if __name__ == "__main__":
    target = Path(sys.argv[1]) if len(sys.argv) > 1 else Path(__file__).with_name("goals_blind11.jsonl")
    sys.exit(run(target, SPEC) | check_extra(target))
