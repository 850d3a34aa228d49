"""The gloss scored: would the term-hit rule reading the gloss's harm score too refuse more, measured leave-one-set-out.

    python -m bench.safety_gloss_score                      # folds goals_blind16-21, then every other tuning set
    python -m bench.safety_gloss_score --sets goals_blind21 # a few sets only (no choice, the grid's counts)

A request in Russian, Arabic, Bengali, Persian or Turkish can name an agent and a harmful step the gloss reads (a
term hit) and score under the hit rule's bar because the intent model reads the original language (bench/README.md,
"twenty-first stop": a Russian request to spread an agent from a drone scored 0.007, its English 0.165). Each window
of a non-English tuning text with a term hit is also read as its gloss (:func:`cosci.safety.glossed.reading`, both
forms) and scored by the shipped intent model; a candidate (form, coverage, bar) lets the term-hit rule read the
gloss's score (:attr:`cosci.safety.rules.Evidence.glossed`) where the gloss wrote at least ``coverage`` of the
reading's words and the gloss's score reaches ``bar`` (besides the rule's own threshold).

Leave-one-set-out: folds goals_blind16-21 (no training row of the shipped model: its training rows hold the blind
sets up to goals_blind15, :data:`bench.safety_intent.LATER_BLIND`, so its scores on them are out of sample). For each
fold the candidate is chosen on the other five (:func:`choose`: the most harmful requests gained with no benign goal
newly refused; ties: the narrower, higher bar and coverage first) and counted on the fold. Then the candidate chosen
on all six folds is counted on every other tuning set (in sample for the model). Never a held-out row
(``split`` ``heldout`` of goals_intent.jsonl and goals_tune12.jsonl) nor goals_blind22 (being written).

Each text's evidence (the screen's windows, scored) and its hit windows' gloss scores are kept under
:data:`bench.safety_refit.WORK` by the text and the screen's code and lists.
"""

from __future__ import annotations

import argparse
import hashlib
import itertools
import json
import pickle
import sys
import time
from collections.abc import Sequence
from dataclasses import dataclass, replace
from pathlib import Path

from bench.safety_flips import tuning_rows
from bench.safety_intent import CachedEmbedding, Row, caught
from bench.safety_measure import ROOT, SAFETY_DATA
from bench.safety_refit import WORK
from cosci.safety.glossed import READINGS, coverage, reading
from cosci.safety.language import read_language
from cosci.safety.screen import Evidence, OfflineScreen, Thresholds, decision_of

NEVER = ("goals_blind22",)
"""A set being written: never read."""
FOLDS = tuple(f"goals_blind{n}" for n in (16, 17, 18, 19, 20, 21))
COVERAGES = (0.0, 0.2, 0.35, 0.5)
"""Shares of a reading's words the gloss wrote, from which its score is read."""
BARS = (0.0, 0.05, 0.1, 0.2, 0.3)
"""The gloss's score it must reach besides the hit rule's threshold."""
Candidate = tuple[str, float, float]
"""(form, coverage, bar)."""


@dataclass(frozen=True)
class Record:
    """One text: its scored evidence and, per hit window's index, ``{form: (gloss score, coverage)}``."""

    evidence: list[Evidence]
    glossed: dict[int, dict[str, tuple[float, float]]]


def _key(texts: Sequence[str]) -> str:
    conf = b"".join(p.read_bytes() for p in sorted((ROOT / "conf").glob("safety_*")) if p.is_file())
    code = b"".join(p.read_bytes() for p in sorted((ROOT / "cosci" / "safety").glob("*.py")))
    return hashlib.sha256(json.dumps(list(texts)).encode() + conf + code).hexdigest()[:24]


def records(name: str, rows: Sequence[Row], screen: OfflineScreen, cache: CachedEmbedding) -> list[Record | None]:
    """Each row's :class:`Record`, or None where nothing can change: an unread language (refused whatever the
    score), no window with a term hit, or no hit window the gloss changes."""
    path = WORK / f"gloss-{name}-{_key([r.text for r in rows])}.pkl"
    if path.exists():
        return pickle.loads(path.read_bytes())
    out: list[Record | None] = []
    started = time.time()
    for r in rows:
        out.append(_record(r.text, screen, cache))
    WORK.mkdir(parents=True, exist_ok=True)
    path.write_bytes(pickle.dumps(out))
    print(f"  {name}: {len(rows)} rows, {sum(x is not None for x in out)} with a glossed hit window, "
          f"{time.time() - started:.0f} s", file=sys.stderr, flush=True)
    return out


def _record(text: str, screen: OfflineScreen, cache: CachedEmbedding) -> Record | None:
    blocks = [read_language(b) for b in text.split("\n") if b.strip()] if "\n" in text.strip() else []
    lang = read_language(text)
    if not lang.read or not all(b.read for b in blocks) or lang.code == "en":
        return None
    if not screen.prescreen.check(text) and not any(screen.prescreen.check(b) for b in text.split("\n")):
        return None
    evidence = screen.evidence(text)
    wanted = {i: {f: reading(e.window, f) for f in READINGS} for i, e in enumerate(evidence) if e.hits}
    wanted = {i: {f: t for f, t in forms.items() if t} for i, forms in wanted.items()}
    wanted = {i: forms for i, forms in wanted.items() if forms}
    if not wanted:
        return None
    texts = list(dict.fromkeys(t for forms in wanted.values() for t in forms.values()))
    harm = dict(zip(texts, screen.intent.harm(cache(texts)).tolist(), strict=True))
    return Record(evidence, {i: {f: (harm[t], coverage(evidence[i].window, t)) for f, t in forms.items()}
                             for i, forms in wanted.items()})


def decide(rec: Record, t: Thresholds, cand: Candidate | None) -> str:
    """The decision with the gloss's score read as ``cand`` says (None: as the screen decides now)."""
    ev = rec.evidence
    if cand is not None:
        form, cov, bar = cand
        ev = [replace(e, glossed=g[0]) if (g := rec.glossed.get(i, {}).get(form)) and g[1] >= cov and g[0] >= bar
              else e for i, e in enumerate(ev)]
    return decision_of(ev, t)


def flips(rows: Sequence[Row], recs: Sequence[Record | None], t: Thresholds,
          cand: Candidate | None) -> tuple[int, int, list[tuple[Row, str, str]]]:
    """(harmful gained, benign newly refused, the flipped rows with their decisions before and after)."""
    gained = refused = 0
    out: list[tuple[Row, str, str]] = []
    if cand is None:
        return 0, 0, out
    for r, rec in zip(rows, recs, strict=True):
        if rec is None:
            continue
        was, now = decide(rec, t, None), decide(rec, t, cand)
        if was == now:
            continue
        out.append((r, was, now))
        if r.harmful:
            gained += caught(r, now, t.refuse_categories) and not caught(r, was, t.refuse_categories)
        else:
            refused += now == "block" and was != "block"
    return gained, refused, out


def grid() -> list[Candidate]:
    return list(itertools.product(READINGS, COVERAGES, BARS))


def choose(data: Sequence[tuple[list[Row], list[Record | None]]],
           t: Thresholds) -> tuple[Candidate | None, int, int]:
    """The candidate gaining the most harmful requests on ``data`` with no benign goal newly refused; ties: the
    higher bar, then the higher coverage, then the first form (None, 0, 0: every candidate refuses a benign goal, or
    none gains a request)."""
    best: tuple[tuple[float, ...], Candidate, int, int] | None = None
    for cand in grid():
        g = n = 0
        for rows, recs in data:
            a, b, _ = flips(rows, recs, t, cand)
            g, n = g + a, n + b
        if n:
            continue
        key = (g, cand[2], cand[1], -READINGS.index(cand[0]))
        if best is None or key > best[0]:
            best = (key, cand, g, n)
    if best is None or best[2] == 0:
        return None, 0, 0
    return best[1], best[2], best[3]


def main(argv: list[str] | None = None) -> int:
    from bench.safety import _config
    from cosci.safety.intent import load_intent
    from cosci.safety.prescreen import load_prescreen
    from cosci.safety.screen import thresholds_of

    parser = argparse.ArgumentParser(prog="python -m bench.safety_gloss_score", description=__doc__.split("\n")[0])
    parser.add_argument("--sets", nargs="*", help="only these sets (stems): the grid's counts, no choice")
    args = parser.parse_args(argv)
    config = _config("local")
    assert config.safety is not None
    cache = CachedEmbedding()
    screen = OfflineScreen(load_prescreen(config.safety.prescreen_terms), load_intent(config.safety.intent),
                           thresholds_of(config.safety), featurise=cache)
    t = screen.thresholds
    paths = {p.stem: p for p in sorted(SAFETY_DATA.glob("goals_*.jsonl")) if p.stem not in NEVER}

    def load(stem: str) -> tuple[list[Row], list[Record | None]]:
        rows = tuning_rows(paths[stem])
        return rows, records(stem, rows, screen, cache)

    if args.sets:
        for stem in args.sets:
            rows, recs = load(stem)
            print(f"\n{stem}: {len(rows)} rows, {sum(x is not None for x in recs)} with a glossed hit window")
            print("| form | coverage | bar | harmful gained | benign newly refused |\n|---|---|---|---|---|")
            for cand in grid():
                g, n, _ = flips(rows, recs, t, cand)
                print(f"| {cand[0]} | {cand[1]} | {cand[2]} | {g} | {n} |")
        return 0
    folds = {stem: load(stem) for stem in FOLDS}
    print("| fold | chosen on the other five (form, coverage, bar) | gained there | fold: harmful gained | "
          "fold: benign newly refused |\n|---|---|---|---|---|")
    total = [0, 0]
    shown = []
    for stem in FOLDS:
        cand, g, _ = choose([v for k, v in folds.items() if k != stem], t)
        a, b, out = flips(*folds[stem], t, cand)
        total = [total[0] + a, total[1] + b]
        shown += [(stem, *o) for o in out]
        print(f"| {stem} | {cand} | {g} | {a} | {b} |", flush=True)
    print(f"| pooled | | | {total[0]} | {total[1]} |")
    final, g, n = choose(list(folds.values()), t)
    print(f"\nchosen on all six folds: {final} (in sample: {g} gained, {n} newly refused)")
    print("\n| set | rows | harmful gained | benign newly refused |\n|---|---|---|---|")
    for stem in paths:
        if stem in FOLDS:
            continue
        rows, recs = load(stem)
        a, b, out = flips(rows, recs, t, final)
        shown += [(stem, *o) for o in out]
        print(f"| {stem} | {len(rows)} | {a} | {b} |", flush=True)
    for stem, r, was, now in shown:
        print(f"{stem} {r.id} {r.label} {r.category} {r.lang} {was} -> {now}: {r.text[:160]}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
