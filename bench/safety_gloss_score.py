"""The gloss scored: would the term-hit rule reading the gloss's harm score too refuse more, measured leave-one-set-out.

    python -m bench.safety_gloss_score                      # folds goals_blind16-21, then every other tuning set
    python -m bench.safety_gloss_score --sets goals_blind21 # a few sets only (no choice, the grid's counts)
    python -m bench.safety_gloss_score --count glossed/0.35/0.3 --sets goals_tune10   # one candidate's flips
    python -m bench.safety_gloss_score --probes probes.jsonl --candidate glossed/0.35/0.3  # {goal, label} lines

A request in Russian, Arabic, Bengali, Persian or Turkish can name an agent and a harmful step the gloss reads (a
term hit) and score under the hit rule's bar because the intent model reads the original language (bench/README.md,
"twenty-first stop": a Russian request to spread an agent from a drone scored 0.007, its English 0.165). Each window
of a non-English tuning text with a term hit is also read as its gloss (:func:`reading`, both forms) and scored by
the shipped intent model; a candidate (form, coverage, bar) lets the term-hit rule read the gloss's score
(:func:`decide`) where the gloss wrote at least ``coverage`` of the reading's words and the gloss's score reaches
``bar`` (besides the rule's own threshold).

Leave-one-set-out: folds goals_blind16-21 (no training row of the shipped model: its training rows hold the blind
sets up to goals_blind15, :data:`bench.safety_intent.LATER_BLIND`, so its scores on them are out of sample). For each
fold the candidate is chosen on the other five (:func:`choose`: the most harmful requests gained with no benign goal
newly refused; ties: the narrower, higher bar and coverage first) and counted on the fold. Then the candidate chosen
on all six folds is counted on every other tuning set (in sample for the model; a text is scored in full only where
a hit window's gloss passes that candidate, :func:`_record`). Never a held-out row (``split`` ``heldout`` of
goals_intent.jsonl and goals_tune12.jsonl) nor goals_blind22 (being written).

Each text's evidence (the screen's windows, scored) and its hit windows' gloss scores are kept under
:data:`bench.safety_refit.WORK` by the text and the screen's code and lists.
"""

from __future__ import annotations

import argparse
import hashlib
import itertools
import json
import pickle
import re
import sys
import time
import unicodedata
from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from pathlib import Path

import numpy as np

from bench.safety_flips import tuning_rows
from bench.safety_intent import CachedEmbedding, Row, caught
from bench.safety_measure import ROOT, SAFETY_DATA
from bench.safety_refit import WORK
from cosci.safety.gloss import FOREIGN_SCRIPTS, load_gloss
from cosci.safety.language import read_language
from cosci.safety.screen import Evidence, OfflineScreen, Thresholds, decision_of

READINGS = ("glossed", "english")
"""``glossed``: the window with the gloss's English in place of the words it lists (the rest as written);
``english``: the same with every word left in a glossed script dropped (the gloss's English, names and numbers)."""
_FOREIGN_WORD = re.compile(f"\\S*[{FOREIGN_SCRIPTS}]\\S*")
_TOKEN = re.compile(r"\w+")


def _plain(text: str) -> str:
    """``text`` lower-cased with accents dropped and Hangul kept composed: the original as the gloss's output
    writes it, without the gloss."""
    decomposed = unicodedata.normalize("NFKD", text)
    return unicodedata.normalize("NFC", "".join(c for c in decomposed if not unicodedata.combining(c))).lower()


def reading(window: str, form: str = "glossed") -> str | None:
    """The window as the gloss reads it (``form`` one of :data:`READINGS`), or None when the gloss changes nothing
    in it (an English window, or one in a language whose gloss lists none of its words).

    Glossed scripts (:data:`~cosci.safety.gloss.FOREIGN_SCRIPTS`) are read by :meth:`~cosci.safety.gloss.Gloss.apply`
    (kept composed: the embedding reads Hangul as syllables, not the jamo :func:`~cosci.safety.text.normalise`
    leaves); a Latin-script window by :func:`~cosci.safety.text.normalise` (its action phrases in English)."""
    gloss = load_gloss()
    glossed = gloss.apply(window)
    if glossed == window:
        plain = " ".join(_plain(window).split())
        glossed = gloss.apply_latin(plain)
        if glossed == plain:
            return None
    if form == "english":
        glossed = _FOREIGN_WORD.sub(" ", glossed)
    out = " ".join(glossed.split())
    return out or None


def coverage(window: str, read: str) -> float:
    """Share of the words of ``read`` (a :func:`reading` of ``window``) that the original does not hold: the words
    the gloss wrote, 0-1 (0 for an empty reading)."""
    words = _TOKEN.findall(read)
    if not words:
        return 0.0
    original = set(_TOKEN.findall(_plain(window)))
    return sum(w not in original for w in words) / len(words)


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


def records(name: str, rows: Sequence[Row], screen: OfflineScreen, cache: CachedEmbedding,
            need: Candidate | None = None) -> list[Record | None]:
    """Each row's :class:`Record`, or None where nothing can change: an unread language (refused whatever the
    score), no window with a term hit, or no hit window the gloss changes (with ``need``: or none whose gloss passes
    it, :func:`_record`; the whole grid's records are used where kept)."""
    whole = WORK / f"gloss-{name}-{_key([r.text for r in rows])}.pkl"
    path = whole if need is None or whole.exists() else whole.with_name(f"{whole.stem}-{'-'.join(map(str, need))}.pkl")
    if path.exists():
        return pickle.loads(path.read_bytes())
    out: list[Record | None] = []
    started = time.time()
    for r in rows:
        out.append(_record(r.text, screen, cache, need))
    WORK.mkdir(parents=True, exist_ok=True)
    path.write_bytes(pickle.dumps(out))
    print(f"  {name}: {len(rows)} rows, {sum(x is not None for x in out)} with a glossed hit window, "
          f"{time.time() - started:.0f} s", file=sys.stderr, flush=True)
    return out


def _zeros(texts: Sequence[str]) -> np.ndarray:
    return np.zeros((len(texts), 384), dtype=np.float32)


def _record(text: str, screen: OfflineScreen, cache: CachedEmbedding,
            need: Candidate | None = None) -> Record | None:
    """A text's :class:`Record` (see :func:`records`); with ``need``, None also where no hit window's gloss passes
    ``need``'s coverage and bar (the text cannot flip under ``need``): the windows are found without scoring them
    and scored only where one passes."""
    blocks = [read_language(b) for b in text.split("\n") if b.strip()] if "\n" in text.strip() else []
    lang = read_language(text)
    if not lang.read or not all(b.read for b in blocks) or lang.code == "en":
        return None
    if not screen.prescreen.check(text) and not any(screen.prescreen.check(b) for b in text.split("\n")):
        return None
    blank = OfflineScreen(screen.prescreen, screen.intent, screen.thresholds, featurise=_zeros)
    evidence = (blank if need else screen).evidence(text)
    read = {(i, f): reading(e.window, f) for i, e in enumerate(evidence) if e.hits for f in READINGS}
    wanted: dict[int, dict[str, str]] = {}
    for (i, f), r in read.items():
        if r:
            wanted.setdefault(i, {})[f] = r
    if not wanted:
        return None
    texts = list(dict.fromkeys(t for forms in wanted.values() for t in forms.values()))
    harm = dict(zip(texts, screen.intent.harm(cache(texts)).tolist(), strict=True))
    if need:
        if not any(harm[t] >= need[2] and coverage(evidence[i].window, t) >= need[1]
                   for i, forms in wanted.items() for f, t in forms.items() if f == need[0]):
            return None
        evidence = screen.evidence(text)
    return Record(evidence, {i: {f: (harm[t], coverage(evidence[i].window, t)) for f, t in forms.items()}
                             for i, forms in wanted.items()})


def decide(rec: Record, t: Thresholds, cand: Candidate | None) -> str:
    """The decision with the gloss's score read as ``cand`` says (None: as the screen decides now)."""
    ev = rec.evidence
    if cand is not None:
        # the hit window once more, scored by its gloss and read by the term-hit rule only (a sentence read on its
        # own: the agent rule does not act on it; it has a hit: the rule for a window naming no agent does not
        # either): the decision is the term-hit rule's on the higher of the two scores
        form, cov, bar = cand
        ev = [*ev, *(replace(ev[i], score=g[0], sentence=True) for i, forms in rec.glossed.items()
                     if (g := forms.get(form)) and g[1] >= cov and g[0] >= bar and g[0] > ev[i].score)]
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


def probes(path: Path, cand: Candidate, screen: OfflineScreen, cache: CachedEmbedding) -> None:
    """Each probe's decision now and with ``cand``, and its hit windows' scores (as written; each form's gloss score
    and coverage)."""
    t = screen.thresholds
    counts: dict[tuple[str, str, str], int] = {}
    for line in path.read_text(encoding="utf-8").splitlines():
        probe = json.loads(line)
        rec = _record(probe["goal"], screen, cache)
        if rec is None:
            print(f"{probe['label']}: no glossed hit window: {probe['goal'][:100]}")
            continue
        was, now = decide(rec, t, None), decide(rec, t, cand)
        counts[(probe["label"], was, now)] = counts.get((probe["label"], was, now), 0) + 1
        scores = [(round(rec.evidence[i].score, 3), {f: (round(v[0], 3), round(v[1], 2)) for f, v in g.items()})
                  for i, g in rec.glossed.items()]
        print(f"{probe['label']}: {was} -> {now} {scores[:2]}: {probe['goal'][:100]}")
    print(counts)


def loso(load: Callable[..., tuple[list[Row], list[Record | None]]], others: Sequence[str], t: Thresholds) -> None:
    """The folds' table (each chosen on the other five), then the choice on all six counted on ``others``."""
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
    for stem in others:
        rows, recs = load(stem, final)
        a, b, out = flips(rows, recs, t, final)
        shown += [(stem, *o) for o in out]
        print(f"| {stem} | {len(rows)} | {a} | {b} |", flush=True)
    for stem, r, was, now in shown:
        print(f"{stem} {r.id} {r.label} {r.category} {r.lang} {was} -> {now}: {r.text[:160]}")


def main(argv: list[str] | None = None) -> int:
    from bench.safety import _config
    from cosci.safety.intent import load_intent
    from cosci.safety.prescreen import load_prescreen
    from cosci.safety.screen import thresholds_of

    parser = argparse.ArgumentParser(prog="python -m bench.safety_gloss_score", description=__doc__.split("\n")[0])
    parser.add_argument("--sets", nargs="*", help="only these sets (stems): the grid's counts, no choice")
    parser.add_argument("--probes", type=Path, help="a file of {goal, label} lines: each probe's decision now and "
                        "with --candidate, and its hit windows' gloss scores")
    parser.add_argument("--candidate", default="glossed/0.5/0.5", help="form/coverage/bar for --probes")
    parser.add_argument("--count", help="form/coverage/bar: with --sets, that candidate's flips only")
    args = parser.parse_args(argv)
    config = _config("local")
    assert config.safety is not None
    cache = CachedEmbedding()
    screen = OfflineScreen(load_prescreen(config.safety.prescreen_terms), load_intent(config.safety.intent),
                           thresholds_of(config.safety), featurise=cache)
    t = screen.thresholds
    paths = {p.stem: p for p in sorted(SAFETY_DATA.glob("goals_*.jsonl")) if p.stem not in NEVER}

    def load(stem: str, need: Candidate | None = None) -> tuple[list[Row], list[Record | None]]:
        rows = tuning_rows(paths[stem])
        return rows, records(stem, rows, screen, cache, need)

    if args.probes:
        form, cov, bar = args.candidate.split("/")
        probes(args.probes, (form, float(cov), float(bar)), screen, cache)
    elif args.sets and args.count:
        form, cov, bar = args.count.split("/")
        cand = (form, float(cov), float(bar))
        print("| set | rows | harmful gained | benign newly refused |\n|---|---|---|---|")
        for stem in args.sets:
            rows, recs = load(stem, cand)
            a, b, out = flips(rows, recs, t, cand)
            print(f"| {stem} | {len(rows)} | {a} | {b} |", flush=True)
            for r, was, now in out:
                print(f"{stem} {r.id} {r.label} {r.category} {r.lang} {was} -> {now}: {r.text[:160]}")
    elif args.sets:
        for stem in args.sets:
            rows, recs = load(stem)
            print(f"\n{stem}: {len(rows)} rows, {sum(x is not None for x in recs)} with a glossed hit window")
            print("| form | coverage | bar | harmful gained | benign newly refused |\n|---|---|---|---|---|")
            for cand in grid():
                g, n, _ = flips(rows, recs, t, cand)
                print(f"| {cand[0]} | {cand[1]} | {cand[2]} | {g} | {n} |")
    else:
        loso(load, [stem for stem in paths if stem not in FOLDS], t)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
