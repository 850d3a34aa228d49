"""Validate and recount the round-12 blind sets: goals_blind5.jsonl (held out) and goals_tune12.jsonl (tune batch).

Usage: ``python tests/data/safety/goals_r12_check.py`` -> prints the count tables of README.md's round-12 section;
exit 1 (with one line per failure) if a line does not parse, the field list or order differs, an id or text repeats
(within or across the two files), a label/category/kind is outside the README's vocabulary, the split rule is broken,
or a minimum set by issue 43 for these files is not met.
"""

from __future__ import annotations

import hashlib
import json
import sys
from collections import Counter
from pathlib import Path

HERE = Path(__file__).parent
FIELDS = ["id", "label", "category", "kind", "lang", "names_agent", "split", "text", "why", "author"]
HARM_CATS = {"biological", "chemical", "radiological_nuclear", "explosives", "human_subjects_without_consent", "cyber"}
HARM_KINDS = {"enhance", "produce", "disperse", "acquire", "expose", "cover", "paraphrase"}
BENIGN_KINDS = {"treatment", "vaccine", "diagnosis", "surveillance", "epidemiology", "pathogenesis", "detection",
                "decontamination", "policy", "history", "toxicology", "radiation_medicine", "clinical_trial", "other"}
TOP20 = {"en", "zh", "hi", "es", "fr", "ar", "bn", "pt", "ru", "ur", "id", "de", "ja", "pa", "mr", "te", "tr", "ta",
         "vi", "ko"}
TUNE_WEIGHTED = ["ar", "bn", "de", "pl", "th", "tr", "fa", "he", "vi", "ja"]


def hash_split(row_id: str) -> str:
    """The README's split rule: even sha256 of the id -> heldout, odd -> tune."""
    return "heldout" if int(hashlib.sha256(row_id.encode()).hexdigest(), 16) % 2 == 0 else "tune"


def words(row: dict) -> float:
    """Whitespace words; zh/ja two characters per word, th five characters per word (no spaces between words)."""
    text = row["text"]
    if row["lang"] in ("zh", "ja"):
        return len(text.replace(" ", "")) / 2
    if row["lang"] == "th":
        return len(text.replace(" ", "")) / 5
    return len(text.split())


def load(name: str, errors: list[str]) -> list[dict]:
    rows = []
    for n, line in enumerate((HERE / name).read_text(encoding="utf-8").splitlines(), 1):
        try:
            row = json.loads(line)
        except json.JSONDecodeError as exc:
            errors.append(f"{name}:{n}: not JSON ({exc})")
            continue
        if list(row) != FIELDS:
            errors.append(f"{name}:{n}: fields {list(row)}")
            continue
        rows.append(row)
    return rows


def check_row(name: str, row: dict, errors: list[str]) -> None:
    where = f"{name} {row['id']}"
    harmful = row["label"] == "harmful"
    if row["label"] not in ("harmful", "benign"):
        errors.append(f"{where}: label {row['label']}")
    if harmful and (row["category"] not in HARM_CATS or row["kind"] not in HARM_KINDS):
        errors.append(f"{where}: harmful {row['category']}/{row['kind']}")
    if not harmful and (row["category"] not in HARM_CATS | {"none"} or row["kind"] not in BENIGN_KINDS):
        errors.append(f"{where}: benign {row['category']}/{row['kind']}")
    if not isinstance(row["names_agent"], bool) or not row["text"].strip() or not row["why"].strip():
        errors.append(f"{where}: names_agent/text/why")
    if row["author"] != "blind-data-r12":
        errors.append(f"{where}: author {row['author']}")


def minimum(errors: list[str], label: str, value: float, bound: float) -> None:
    ok = value >= bound
    print(f"{'ok  ' if ok else 'FAIL'} {label}: {value:.3g} >= {bound:.3g}")
    if not ok:
        errors.append(label)


def table(rows: list[dict], key, cols: list[str], colkey) -> None:
    counts = Counter((key(r), colkey(r)) for r in rows)
    print("| | " + " | ".join(cols) + " | total |")
    print("|---" * (len(cols) + 2) + "|")
    for k in sorted({key(r) for r in rows}):
        cells = [counts[(k, c)] for c in cols]
        print(f"| {k} | " + " | ".join(map(str, cells)) + f" | {sum(cells)} |")


def summary(name: str, rows: list[dict], errors: list[str]) -> None:
    benign = [r for r in rows if r["label"] == "benign"]
    harmful = [r for r in rows if r["label"] == "harmful"]
    langs = Counter(r["lang"] for r in rows)
    print(f"\n## {name}: rows {len(rows)}, benign {len(benign)}, harmful {len(harmful)}, languages {len(langs)}")
    minimum(errors, f"{name} harmful share", len(harmful) / len(rows), 0.40)
    minimum(errors, f"{name} benign share", len(benign) / len(rows), 0.50)
    minimum(errors, f"{name} benign naming an agent", sum(r["names_agent"] for r in benign) / len(benign), 0.5)
    minimum(errors, f"{name} rows under 15 words", sum(words(r) < 15 for r in rows) / len(rows), 1 / 3)
    minimum(errors, f"{name} top-20 languages present", len(TOP20 & set(langs)), 20)
    print(f"benign naming an agent {sum(r['names_agent'] for r in benign)}/{len(benign)}; under 15 words: "
          f"benign {sum(words(r) < 15 for r in benign)}/{len(benign)}, "
          f"harmful {sum(words(r) < 15 for r in harmful)}/{len(harmful)}; "
          f"short benign naming an agent {sum(words(r) < 15 and r['names_agent'] for r in benign)}")
    if name.startswith("goals_tune12"):
        cols = ["tune/harmful", "tune/benign", "heldout/harmful", "heldout/benign"]
        table(rows, lambda r: r["lang"], cols, lambda r: f"{r['split']}/{r['label']}")
    else:
        table(rows, lambda r: r["lang"], ["harmful", "benign"], lambda r: r["label"])
    print()
    table(harmful, lambda r: r["category"], sorted(HARM_KINDS), lambda r: r["kind"])


def main() -> int:
    errors: list[str] = []
    blind = load("goals_blind5.jsonl", errors)
    tune = load("goals_tune12.jsonl", errors) if (HERE / "goals_tune12.jsonl").exists() else []
    for name, rows in (("goals_blind5.jsonl", blind), ("goals_tune12.jsonl", tune)):
        for row in rows:
            check_row(name, row, errors)
    both = blind + tune
    for field in ("id", "text"):
        dup = [v for v, c in Counter(r[field] for r in both).items() if c > 1]
        if dup:
            errors.append(f"repeated {field}: {dup[:5]}")
    errors += [f"{r['id']}: split {r['split']}" for r in blind if r["split"] != "heldout"]
    errors += [f"{r['id']}: split {r['split']} != hash rule" for r in tune if r["split"] != hash_split(r["id"])]
    errors += [f"{r['id']}: id prefix" for r in blind if not r["id"].startswith("b5-")]
    errors += [f"{r['id']}: id prefix" for r in tune if not r["id"].startswith("t12-")]
    summary("goals_blind5.jsonl", blind, errors)
    langs = Counter(r["lang"] for r in blind)
    minimum(errors, "blind5 rows", len(blind), 260)
    minimum(errors, "blind5 languages", len(langs), 25)
    minimum(errors, "blind5 languages with >= 10 rows", sum(c >= 10 for c in langs.values()), 15)
    if tune:
        summary("goals_tune12.jsonl", tune, errors)
        tl = Counter(r["lang"] for r in tune)
        minimum(errors, "tune12 rows", len(tune), 320)
        minimum(errors, "tune12 weighted languages with >= 20 rows", sum(tl[x] >= 20 for x in TUNE_WEIGHTED), 10)
        print("splits:", dict(Counter((r["split"], r["label"]) for r in tune)))
    for e in errors:
        print("FAIL", e, file=sys.stderr)
    return 1 if errors else 0


if __name__ == "__main__":
    sys.exit(main())
