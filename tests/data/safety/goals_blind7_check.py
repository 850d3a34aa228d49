"""Check goals_blind7.jsonl: parse, fields and their order, ids, allowed values and the set's minimums.

Usage: ``python tests/data/safety/goals_blind7_check.py [path]`` (default: the file next to this script).
Prints the rows per language x label and each minimum with its figure; exits 1 on any failure, 0 otherwise.

Length: a goal is *short* when it has fewer than 15 words. Words are whitespace-separated tokens, except in
languages written without spaces between words, where a goal counts as short when its letters and digits (marks,
punctuation and spaces not counted) are at most 25 (zh), 35 (ja) or 60 (th) -- roughly 15 words at the usual
word lengths of those scripts. See README.md (goals_blind7 section).
"""

from __future__ import annotations

import json
import re
import sys
import unicodedata
from collections import Counter
from pathlib import Path

FIELDS = ["id", "label", "category", "kind", "lang", "names_agent", "split", "text", "why"]
HARMFUL_CATEGORIES = {
    "biological",
    "chemical",
    "radiological_nuclear",
    "explosives",
    "human_subjects_without_consent",
    "cyber",
}
BENIGN_CATEGORIES = {"biological", "chemical", "radiological_nuclear", "explosives", "cyber", "none"}
HARMFUL_KINDS = {"enhance", "produce", "disperse", "acquire", "expose", "cover", "paraphrase"}
BENIGN_KINDS = {
    "treatment",
    "vaccine",
    "diagnosis",
    "surveillance",
    "epidemiology",
    "pathogenesis",
    "detection",
    "decontamination",
    "policy",
    "history",
    "toxicology",
    "radiation_medicine",
    "clinical_trial",
    "other",
}
LANGS = {
    "ar",
    "pl",
    "he",
    "hi",
    "ur",
    "bn",
    "pt",
    "de",
    "it",
    "vi",
    "tr",
    "sw",
    "id",
    "ja",
    "zh",
    "ru",
    "es",
    "fr",
    "ko",
    "fa",
    "th",
    "el",
    "en",
}
UNSPACED = {"zh": 25, "ja": 35, "th": 60}  # letters per goal counted as under 15 words
ID_RE = re.compile(r"^b7-\d{4}$")

MIN_ROWS, MIN_BENIGN, MIN_HARMFUL = 420, 260, 160
MIN_LANGS, MIN_LANG_HARMFUL, MIN_LANG_BENIGN = 14, 10, 12
SHORT_WORDS = 15


def is_short(text: str, lang: str) -> bool:
    """True when the goal has fewer than 15 words (unspaced scripts: at most UNSPACED[lang] letters)."""
    if lang in UNSPACED:
        letters = [c for c in text if unicodedata.category(c)[0] in "LN"]
        return len(letters) <= UNSPACED[lang]
    return len(text.split()) < SHORT_WORDS


def row_errors(row: dict, where: str) -> list[str]:
    """Return what is wrong with one parsed row whose fields are already known to be FIELDS, in order."""
    errors = []
    label = row["label"]
    if not isinstance(row["id"], str) or not ID_RE.match(row["id"]):
        errors.append(f"{where}: id must look like b7-NNNN")
    if label not in ("harmful", "benign"):
        errors.append(f"{where}: label {label!r}")
    harmful = label == "harmful"
    if row["category"] not in (HARMFUL_CATEGORIES if harmful else BENIGN_CATEGORIES):
        errors.append(f"{where}: category {row['category']!r} not allowed for {label}")
    if row["kind"] not in (HARMFUL_KINDS if harmful else BENIGN_KINDS):
        errors.append(f"{where}: kind {row['kind']!r} not allowed for {label}")
    if row["lang"] not in LANGS:
        errors.append(f"{where}: lang {row['lang']!r}")
    if not isinstance(row["names_agent"], bool):
        errors.append(f"{where}: names_agent must be true or false")
    if row["split"] != "heldout":
        errors.append(f"{where}: split must be 'heldout'")
    errors += [f"{where}: empty {f}" for f in ("text", "why") if not isinstance(row[f], str) or not row[f].strip()]
    return errors


def read_rows(path: Path) -> tuple[list[dict], list[str]]:
    """Parse the file; return the rows with the right fields and the errors of every row."""
    errors: list[str] = []
    rows: list[dict] = []
    for n, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
        try:
            row = json.loads(line)
        except json.JSONDecodeError as exc:
            errors.append(f"line {n}: not JSON ({exc})")
            continue
        if not isinstance(row, dict) or list(row) != FIELDS:
            errors.append(f"line {n}: fields {list(row)} != {FIELDS}")
            continue
        rows.append(row)
        errors += row_errors(row, f"line {n} ({row['id']})")
    for what, counts in (
        ("id", Counter(r["id"] for r in rows)),
        ("text", Counter(" ".join(r["text"].lower().split()) for r in rows)),
    ):
        errors += [f"duplicate {what}: {value}" for value, k in counts.items() if k > 1]
    return rows, errors


def print_table(rows: list[dict]) -> None:
    """Print harmful and benign rows per language, with the benign short and agent-naming counts."""
    per = Counter((r["lang"], r["label"]) for r in rows)
    print(f"{'lang':<5}{'harmful':>8}{'benign':>8}{'short_b':>8}{'agent_b':>8}")
    for lang in sorted({r["lang"] for r in rows}):
        benign = [r for r in rows if r["lang"] == lang and r["label"] == "benign"]
        short = sum(is_short(r["text"], lang) for r in benign)
        agent = sum(r["names_agent"] for r in benign)
        print(f"{lang:<5}{per[lang, 'harmful']:>8}{per[lang, 'benign']:>8}{short:>8}{agent:>8}")
    print(f"{'all':<5}{sum(r['label'] == 'harmful' for r in rows):>8}{sum(r['label'] == 'benign' for r in rows):>8}")


def minimum_errors(rows: list[dict]) -> list[str]:
    """Print each minimum of the brief with its figure; return the ones not met."""
    benign = [r for r in rows if r["label"] == "benign"]
    harmful = [r for r in rows if r["label"] == "harmful"]
    per = Counter((r["lang"], r["label"]) for r in rows)
    full = [
        lang
        for lang in {r["lang"] for r in rows}
        if per[lang, "harmful"] >= MIN_LANG_HARMFUL and per[lang, "benign"] >= MIN_LANG_BENIGN
    ]
    short = sum(is_short(r["text"], r["lang"]) for r in benign)
    agent = sum(r["names_agent"] for r in benign)
    missing = sorted(HARMFUL_KINDS - {r["kind"] for r in harmful})
    minimums = [
        (f"rows {len(rows)} >= {MIN_ROWS}", len(rows) >= MIN_ROWS),
        (f"benign {len(benign)} >= {MIN_BENIGN}", len(benign) >= MIN_BENIGN),
        (f"harmful {len(harmful)} >= {MIN_HARMFUL}", len(harmful) >= MIN_HARMFUL),
        (f"benign naming an agent {agent} >= half of {len(benign)}", 2 * agent >= len(benign)),
        (f"benign under 15 words {short} >= a third of {len(benign)}", 3 * short >= len(benign)),
        (
            f"languages with >= {MIN_LANG_HARMFUL} harmful, >= {MIN_LANG_BENIGN} benign: {len(full)} >= {MIN_LANGS}",
            len(full) >= MIN_LANGS,
        ),
        (f"every harmful kind present (missing: {missing or 'none'})", not missing),
    ]
    for text, ok in minimums:
        print(("ok   " if ok else "FAIL ") + text)
    print("harmful kinds:", dict(sorted(Counter(r["kind"] for r in harmful).items())))
    print("benign kinds:", dict(sorted(Counter(r["kind"] for r in benign).items())))
    return [text for text, ok in minimums if not ok]


def check(path: Path) -> list[str]:
    """Return every failure of the file at ``path`` (empty when it passes), printing the counts on the way."""
    rows, errors = read_rows(path)
    print_table(rows)
    return errors + minimum_errors(rows)


def main() -> int:
    path = Path(sys.argv[1]) if len(sys.argv) > 1 else Path(__file__).with_name("goals_blind7.jsonl")
    errors = check(path)
    for error in errors:
        print("error:", error, file=sys.stderr)
    return 1 if errors else 0


if __name__ == "__main__":
    sys.exit(main())
