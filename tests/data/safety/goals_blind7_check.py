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
HARMFUL_CATEGORIES = {"biological", "chemical", "radiological_nuclear", "explosives",
                      "human_subjects_without_consent", "cyber"}
BENIGN_CATEGORIES = {"biological", "chemical", "radiological_nuclear", "explosives", "cyber", "none"}
HARMFUL_KINDS = {"enhance", "produce", "disperse", "acquire", "expose", "cover", "paraphrase"}
BENIGN_KINDS = {"treatment", "vaccine", "diagnosis", "surveillance", "epidemiology", "pathogenesis", "detection",
                "decontamination", "policy", "history", "toxicology", "radiation_medicine", "clinical_trial",
                "other"}
LANGS = {"ar", "pl", "he", "hi", "ur", "bn", "pt", "de", "it", "vi", "tr", "sw", "id", "ja", "zh", "ru", "es",
         "fr", "ko", "fa", "th", "el", "en"}
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


def check(path: Path) -> list[str]:
    """Return the list of failures (empty when the file passes); prints the counts as it goes."""
    errors: list[str] = []
    rows: list[dict] = []
    for n, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
        try:
            row = json.loads(line)
        except json.JSONDecodeError as exc:
            errors.append(f"line {n}: not JSON ({exc})")
            continue
        if list(row) != FIELDS:
            errors.append(f"line {n}: fields {list(row)} != {FIELDS}")
            continue
        rows.append(row)
        label, where = row["label"], f"line {n} ({row['id']})"
        if not isinstance(row["id"], str) or not ID_RE.match(row["id"]):
            errors.append(f"{where}: id must look like b7-NNNN")
        if label not in ("harmful", "benign"):
            errors.append(f"{where}: label {label!r}")
        cats, kinds = ((HARMFUL_CATEGORIES, HARMFUL_KINDS) if label == "harmful"
                       else (BENIGN_CATEGORIES, BENIGN_KINDS))
        if row["category"] not in cats:
            errors.append(f"{where}: category {row['category']!r} not allowed for {label}")
        if row["kind"] not in kinds:
            errors.append(f"{where}: kind {row['kind']!r} not allowed for {label}")
        if row["lang"] not in LANGS:
            errors.append(f"{where}: lang {row['lang']!r}")
        if not isinstance(row["names_agent"], bool):
            errors.append(f"{where}: names_agent must be true or false")
        if row["split"] != "heldout":
            errors.append(f"{where}: split must be 'heldout'")
        for field in ("text", "why"):
            if not isinstance(row[field], str) or not row[field].strip():
                errors.append(f"{where}: empty {field}")
    for what, counts in (("id", Counter(r["id"] for r in rows)),
                         ("text", Counter(" ".join(r["text"].lower().split()) for r in rows))):
        errors += [f"duplicate {what}: {value}" for value, k in counts.items() if k > 1]

    benign = [r for r in rows if r["label"] == "benign"]
    harmful = [r for r in rows if r["label"] == "harmful"]
    per = Counter((r["lang"], r["label"]) for r in rows)
    langs = sorted({r["lang"] for r in rows})
    print(f"{'lang':<5}{'harmful':>8}{'benign':>8}{'short_b':>8}{'agent_b':>8}")
    for lang in langs:
        short_b = sum(is_short(r["text"], lang) for r in benign if r["lang"] == lang)
        agent_b = sum(r["names_agent"] for r in benign if r["lang"] == lang)
        print(f"{lang:<5}{per[lang, 'harmful']:>8}{per[lang, 'benign']:>8}{short_b:>8}{agent_b:>8}")
    print(f"{'all':<5}{len(harmful):>8}{len(benign):>8}")

    full = [l for l in langs if per[l, "harmful"] >= MIN_LANG_HARMFUL and per[l, "benign"] >= MIN_LANG_BENIGN]
    short = sum(is_short(r["text"], r["lang"]) for r in benign)
    agent = sum(r["names_agent"] for r in benign)
    minimums = [
        (f"rows {len(rows)} >= {MIN_ROWS}", len(rows) >= MIN_ROWS),
        (f"benign {len(benign)} >= {MIN_BENIGN}", len(benign) >= MIN_BENIGN),
        (f"harmful {len(harmful)} >= {MIN_HARMFUL}", len(harmful) >= MIN_HARMFUL),
        (f"benign naming an agent {agent} >= half of {len(benign)}", 2 * agent >= len(benign)),
        (f"benign under 15 words {short} >= a third of {len(benign)}", 3 * short >= len(benign)),
        (f"languages with >= {MIN_LANG_HARMFUL} harmful and >= {MIN_LANG_BENIGN} benign: {len(full)} >= "
         f"{MIN_LANGS}", len(full) >= MIN_LANGS),
    ]
    missing = HARMFUL_KINDS - {r["kind"] for r in harmful}
    minimums.append((f"every harmful kind present (missing: {sorted(missing) or 'none'})", not missing))
    for text, ok in minimums:
        print(("ok   " if ok else "FAIL ") + text)
        if not ok:
            errors.append(text)
    print("harmful kinds:", dict(sorted(Counter(r["kind"] for r in harmful).items())))
    print("benign kinds:", dict(sorted(Counter(r["kind"] for r in benign).items())))
    return errors


def main() -> int:
    path = Path(sys.argv[1]) if len(sys.argv) > 1 else Path(__file__).with_name("goals_blind7.jsonl")
    errors = check(path)
    for error in errors:
        print("error:", error, file=sys.stderr)
    return 1 if errors else 0


if __name__ == "__main__":
    sys.exit(main())
