"""Validate and recount the round-11 blind sets (goals_tune11.jsonl, goals_blind4.jsonl).

Checks every line parses, the field list and order, unique ids and texts (also across the two files),
allowed labels/categories/kinds, the per-file split and label counts, and the minimums the sets were written
to; prints the counts by language. Exit 1 on a failure. "Under 15 words" counts whitespace words, or two
characters per word for Chinese/Japanese (Thai is written without spaces between words, so its rows count short).
"""

import collections
import json
import sys
from pathlib import Path

HERE = Path(__file__).parent
FIELDS = ["id", "label", "category", "kind", "lang", "names_agent", "split", "text", "why", "author"]
HARM_CATS = {"biological", "chemical", "radiological_nuclear", "explosives", "human_subjects_without_consent", "cyber"}
HARM_KINDS = {"enhance", "produce", "disperse", "acquire", "expose", "cover", "paraphrase"}
BEN_KINDS = {"treatment", "vaccine", "diagnosis", "surveillance", "epidemiology", "pathogenesis", "detection",
             "decontamination", "policy", "history", "toxicology", "radiation_medicine", "clinical_trial", "other"}
FILES = {"goals_tune11.jsonl": ("r11-", "tune", 120, 200), "goals_blind4.jsonl": ("b4-", "heldout", 90, 150)}
FULL = ["ar", "bn", "de", "pl", "tr", "vi", "fa", "ru", "ja", "it", "en"]


def words(row: dict) -> float:
    text = row["text"]
    if row["lang"] in ("zh", "ja"):
        return len(text.replace(" ", "")) / 2
    return len(text.split())


def check_row(row: dict, prefix: str, split: str) -> list[str]:
    bad = []
    if list(row) != FIELDS:
        bad.append("fields")
    if not row["id"].startswith(prefix) or row["split"] != split or row["author"] != "blind-data-r11":
        bad.append("id/split/author")
    if row["label"] == "harmful":
        ok = row["category"] in HARM_CATS and row["kind"] in HARM_KINDS
    else:
        ok = row["label"] == "benign" and row["category"] in (HARM_CATS - {"cyber"}) | {"none"} \
            and row["kind"] in BEN_KINDS
    if not ok or not isinstance(row["names_agent"], bool):
        bad.append("label/category/kind/names_agent")
    return [f"{row.get('id')}: {b}" for b in bad]


def load() -> tuple[list[dict], list[str]]:
    failures: list[str] = []
    every: list[dict] = []
    for name, (prefix, split, n_harm, n_ben) in FILES.items():
        rows = [json.loads(line) for line in (HERE / name).read_text(encoding="utf-8").splitlines()]
        for row in rows:
            failures += check_row(row, prefix, split)
        labels = collections.Counter(r["label"] for r in rows)
        if (labels["harmful"], labels["benign"]) != (n_harm, n_ben):
            failures.append(f"{name}: counts {dict(labels)}")
        if sum(r["category"] == "cyber" for r in rows) > 0.03 * len(rows):
            failures.append(f"{name}: cyber > 3 %")
        every += rows
    return every, failures


def check_shares(every: list[dict]) -> list[str]:
    failures = []
    ids = [r["id"] for r in every]
    texts = [r["text"] for r in every]
    if len(set(ids)) != len(ids) or len(set(texts)) != len(texts):
        failures.append("duplicate id or text")
    harm = [r for r in every if r["label"] == "harmful"]
    ben = [r for r in every if r["label"] == "benign"]
    if sum(words(r) < 15 for r in harm) < 0.4 * len(harm) or sum(words(r) < 15 for r in ben) < 0.4 * len(ben):
        failures.append("under-15-word share < 40 %")
    if sum(r["names_agent"] for r in ben) < 0.6 * len(ben):
        failures.append("benign naming an agent < 60 %")
    if {r["kind"] for r in harm} != HARM_KINDS:
        failures.append("a harmful kind is missing")
    print(f"harmful under 15 words {sum(words(r) < 15 for r in harm)}/{len(harm)}; "
          f"benign under 15 words {sum(words(r) < 15 for r in ben)}/{len(ben)}; "
          f"benign naming an agent {sum(r['names_agent'] for r in ben)}/{len(ben)}")
    print("kinds", dict(collections.Counter(r["kind"] for r in harm)))
    print("categories", dict(collections.Counter(r["category"] for r in harm)))
    return failures


def check_languages(every: list[dict]) -> list[str]:
    failures = []
    by: dict[str, collections.Counter] = collections.defaultdict(collections.Counter)
    for r in every:
        by[r["lang"]][(r["split"], r["label"])] += 1
    for lang in FULL:
        c = by[lang]
        if c["tune", "harmful"] + c["heldout", "harmful"] < 10 or c["tune", "benign"] + c["heldout", "benign"] < 10:
            failures.append(f"{lang}: fewer than 10 harmful or 10 benign")
    if len(by) < 18:
        failures.append("fewer than 18 languages")
    print("| lang | tune harmful | tune benign | heldout harmful | heldout benign | total |")
    print("|---|---|---|---|---|---|")
    for lang in sorted(by):
        c = by[lang]
        cells = [c["tune", "harmful"], c["tune", "benign"], c["heldout", "harmful"], c["heldout", "benign"]]
        print(f"| {lang} | " + " | ".join(map(str, cells)) + f" | {sum(cells)} |")
    return failures


def main() -> int:
    every, failures = load()
    failures += check_languages(every) + check_shares(every)
    for f in failures:
        print("FAIL", f)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
