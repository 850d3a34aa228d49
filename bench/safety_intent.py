"""The intent model's data, fit and breakdown: what ``python -m bench.safety`` fits, chooses and reports.

The multilingual intent set (``tests/data/safety/goals_intent.jsonl``, written blind, split once by id into
*tune* and *held-out*, tests/data/safety/README.md) is the reported set. The intent model
(:mod:`cosci.safety.intent`) is fitted on the *training rows* (:func:`training_rows`): the intent set's tune part,
the translations the screen's author wrote of tuning rows (``goals_intent_translations.jsonl``), the tune split of
``goals.jsonl``, every earlier batch and the blind sets (:data:`BLIND`, :data:`LATER_BLIND`), which have all been
reported before. The
thresholds are chosen by leave-one-batch-out on the training rows (:func:`batch_evidence`); the held-out part is
scored once.

Embeddings are cached on disk (:data:`CACHE`, keyed by the text and the embedding), so a rerun embeds only new
texts.
"""

from __future__ import annotations

import hashlib
import json
import re
import tempfile
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from bench.safety_measure import SAFETY_DATA, TUNE_EXTRA, Rate, load_goals, part
from cosci.safety.intent import EMBEDDING, KERNEL_C, IntentModel, embed, fit_intent, inputs_hash, load_intent
from cosci.safety.prescreen import Prescreen
from cosci.safety.screen import Evidence, OfflineScreen, Thresholds, decision_of

INTENT = SAFETY_DATA / "goals_intent.jsonl"
TRANSLATIONS = SAFETY_DATA / "goals_intent_translations.jsonl"
"""Tuning rows the screen's author wrote: translations of tuning rows into read languages the intent set lacks."""
SCIENCE = SAFETY_DATA / "goals_science_author.jsonl"
"""Benign chemistry and materials questions ("how can X be synthesized") the screen's author wrote after the
first fit refused three MOOSE-Chem questions (none of them copied): tuning rows of a kind the sets lacked."""
KINDS = SAFETY_DATA / "goals_kinds_author.jsonl"
"""Tuning rows the screen's author wrote of the kinds the intent set lacked, after texts of those kinds were refused
or passed off its distribution: researchers' result notes and rating rationales, goals and task briefs from other
fields (machine learning, statistics, physics, software), named agents with an enhancement verb in many phrasings,
harm asked without naming an agent; in several languages, none copied from a held-out row."""
TUNE10 = SAFETY_DATA / "goals_tune10.jsonl"
"""Tuning rows written blind by another helper (no screen, list or exemplar read; 14+ languages, hard cases both
ways: benign goals with dangerous vocabulary for vaccine and biopesticide production, escape mapping, assays,
detection, response; harmful requests of every kind), all of them training rows (tests/data/safety/README.md)."""
TUNE11 = SAFETY_DATA / "goals_tune11.jsonl"
"""Round-11 tuning rows written blind by another helper (25 languages; hard cases both ways: production, purification
and stabilisation verbs on vaccines, antitoxins, antidotes and medical isotopes beside the same verbs on threat
agents; covert exposure written in many languages), all of them training rows (tests/data/safety/README.md)."""
TUNE12 = SAFETY_DATA / "goals_tune12.jsonl"
"""Round-12 rows written blind by another helper (29 languages, weighted towards the ten where the screen read
least: chemical production and scale-up, covert exposure, and the same agents in ordinary work), split once by id
hash: the ``tune`` rows are training rows, the ``heldout`` rows are reported next to the intent set's held-out part
and never trained on (tests/data/safety/README.md)."""
BLIND = (SAFETY_DATA / "goals_blind5.jsonl", SAFETY_DATA / "goals_blind6.jsonl")
"""Blind sets written for one measurement each (round 12: 264 rows, 29 languages; round 13: 508 rows, 22 languages,
at least ten harmful and ten benign rows in each), measured once each by the lead (bench/README.md, "The fresh
blind set goals_blind5.jsonl" and "Both branches merged, and the fresh blind set goals_blind6.jsonl") and training
rows since, weighted as the intent set: the per-language rows the held-out part lacks (Arabic and Polish requests
written natively, paraphrases naming no agent)."""
LATER_BLIND = tuple(SAFETY_DATA / f"goals_blind{n}.jsonl" for n in (2, 3, 4, 7, 8, 9, 10, 11, 12, 13, 14, 15))
"""The other blind sets, each measured once when it was fresh (bench/README.md) and tuning data since: training rows
since 2026-12-06 (sixteenth stop; goals_blind16-24 are not: a refit with them, measured at the twenty-fourth stop,
newly refused 13 benign test texts and allowed 3 harmful ones, bench/README.md "twenty-fourth stop: the lead"),
weighted as the earlier batches (leave-one-set-out on goals_blind13 and goals_blind14 chose weight 1 among 1, 3 and 6,
bench/README.md), without a row that repeats a held-out text word for word (:func:`heldout_texts`)."""
REPORTED = ("goals_late.jsonl", "goals_final.jsonl", "goals_scripts.jsonl", "goals_round8.jsonl",
            "goals_round9.jsonl")
"""Earlier batches, each reported once before this screen: training rows now."""
CACHE = Path(tempfile.gettempdir()) / "cosci-safety-embeddings.npz"
MODELS = Path(tempfile.gettempdir()) / "cosci-safety-batch-models"
"""Where :func:`fit_kept` keeps the leave-one-batch-out models."""
INTENT_C = 10.0
"""Inverse regularisation of the intent model's regressions (chosen by leave-one-batch-out on the training rows,
bench/README.md)."""
INTENT_WEIGHT = 6.0
"""Weight of an intent-set row (and a translation) against an earlier batch's in the fit: the intent set is what a
researcher types now, the earlier batches were written against the term lists (chosen by leave-one-batch-out,
bench/README.md)."""
BATCHES = 5
SUPPORT_STEPS = (0.0, 0.3, 0.4, 0.5, 0.6)
"""The supports the rule for a window naming no agent may need (shares of 10 nearest rows; 0: none)."""
SHORT_WORDS = 15
"""A goal under this many words is *short* (Chinese and Japanese: two characters a word)."""


@dataclass(frozen=True)
class Row:
    """One labelled request: ``batch`` names the batch it is held out with in leave-one-batch-out."""

    id: str
    text: str
    label: str
    category: str
    kind: str
    lang: str
    names_agent: bool
    split: str
    batch: str

    @property
    def harmful(self) -> bool:
        return self.label == "harmful"

    @property
    def short(self) -> bool:
        if self.lang in ("zh", "ja"):
            return len(re.sub(r"\s", "", self.text)) / 2 < SHORT_WORDS
        return len(self.text.split()) < SHORT_WORDS


def _batch(goal_id: str) -> int:
    return int(hashlib.sha256(goal_id.encode()).hexdigest()[8:16], 16) % BATCHES


def intent_rows(path: Path = INTENT, split: str | None = None) -> list[Row]:
    """Rows of an intent-set file (``split``: only that part; a blind batch without a split is ``blind``)."""
    if not path.exists():
        return []
    rows = [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]
    return [Row(r["id"], r["text"], r["label"], r["category"], r["kind"], r["lang"], bool(r["names_agent"]),
                r.get("split", "blind"), f"{path.stem}{_batch(r['id'])}")
            for r in rows if split is None or r.get("split", "blind") == split]


def training_rows() -> list[Row]:
    """Every row the intent model and the thresholds may learn from (see the module docstring)."""
    out = [*intent_rows(INTENT, "tune"), *intent_rows(TRANSLATIONS, "tune"), *intent_rows(SCIENCE, "tune"),
           *intent_rows(KINDS, "tune"), *intent_rows(TUNE10), *intent_rows(TUNE11),
           *intent_rows(TUNE12, "tune"), *(row for path in BLIND for row in intent_rows(path))]
    held = heldout_texts()
    out += [row for path in LATER_BLIND for row in intent_rows(path) if row.text not in held]
    for g in part(load_goals(), "tune"):
        out.append(Row(g.id, g.text, g.label, g.category, g.kind, "en", False, "tune", f"goals{_batch(g.id)}"))
    for path in (*TUNE_EXTRA, *(SAFETY_DATA / name for name in REPORTED)):
        out += [Row(g.id, g.text, g.label, g.category, g.kind, "en", False, "tune", path.stem)
                for g in load_goals(path)] if path.exists() else []
    return out


def heldout_texts() -> set[str]:
    """The texts of every held-out part (the intent set's, round 12's, goals.jsonl's): a blind set that repeats one
    word for word (five rows of goals_blind7, 8, 9 and 14) must not train the model the held-out part measures."""
    return {*(r.text for r in intent_rows(INTENT, "heldout")), *(r.text for r in intent_rows(TUNE12, "heldout")),
            *(g.text for g in part(load_goals(), "heldout"))}


class CachedEmbedding:
    """:func:`cosci.safety.intent.embed` with a disk cache (:data:`CACHE`)."""

    def __init__(self, path: Path = CACHE) -> None:
        self.path, self.rows = path, {}
        if path.exists():
            with np.load(path) as z:
                self.rows = dict(zip(z["keys"].tolist(), z["values"], strict=True))

    @staticmethod
    def key(text: str) -> str:
        return hashlib.sha1(f"{EMBEDDING}\x1f{text}".encode()).hexdigest()

    def __call__(self, texts: Sequence[str]) -> np.ndarray:
        missing = list(dict.fromkeys(t for t in texts if self.key(t) not in self.rows))
        for i in range(0, len(missing), 64):
            for t, x in zip(missing[i:i + 64], embed(missing[i:i + 64]), strict=True):
                self.rows[self.key(t)] = x
        if missing:
            np.savez(self.path, keys=np.array(list(self.rows)), values=np.stack(list(self.rows.values())))
        return np.stack([self.rows[self.key(t)] for t in texts]) if texts else np.zeros((0, 384), np.float32)


def fit(rows: Sequence[Row], cache: CachedEmbedding, c: float = INTENT_C) -> IntentModel:
    """The intent model fitted on ``rows`` (each row read whole)."""
    texts = [r.text for r in rows]
    x = cache(texts)
    labels, cats = [r.label for r in rows], [r.category for r in rows]
    weights = np.array([INTENT_WEIGHT if current(r) else 1.0 for r in rows])
    return fit_intent(x, np.array([r.harmful for r in rows]), cats, inputs_hash(texts, labels, cats), c, weights)


def fit_kept(rows: Sequence[Row], cache: CachedEmbedding, c: float = INTENT_C) -> IntentModel:
    """:func:`fit`, kept on disk under :data:`MODELS` by what it is fitted on (texts, labels, categories, weights,
    C, the kernel's C, the embedding): leave-one-batch-out fits one model per batch (about 45, tens of seconds
    each on the shared machine), and a rerun after a change to the term lists or the rules needs the same models."""
    weights = [INTENT_WEIGHT if current(r) else 1.0 for r in rows]
    key = hashlib.sha256(json.dumps([inputs_hash([r.text for r in rows], [r.label for r in rows],
                                                 [r.category for r in rows]), weights, c, KERNEL_C, EMBEDDING])
                         .encode()).hexdigest()[:24]
    path = MODELS / f"{key}.npz"
    if path.exists():
        return load_intent(str(path))
    model = fit(rows, cache, c)
    MODELS.mkdir(parents=True, exist_ok=True)
    model.save(path)
    return model


def current(row: Row) -> bool:
    """A row written as a researcher types now (the intent set and its translations, the kinds rows, the blind
    tuning batches): weighted
    :data:`INTENT_WEIGHT` in the fit and read when the thresholds are chosen."""
    return row.batch.startswith((INTENT.stem, KINDS.stem, TUNE10.stem, TUNE11.stem, TUNE12.stem,
                                 *(path.stem for path in BLIND)))


def batch_evidence(rows: list[Row], prescreen: Prescreen, cache: CachedEmbedding, thresholds: Thresholds,
                   c: float = INTENT_C) -> list[list[Evidence]]:
    """Leave-one-batch-out: each row's evidence from a model fitted on every other batch (in ``rows`` order)."""
    out: list[list[Evidence]] = [[] for _ in rows]
    for batch in sorted({r.batch for r in rows}):
        held = [i for i, r in enumerate(rows) if r.batch == batch]
        model = fit_kept([r for r in rows if r.batch != batch], cache, c)
        screen = OfflineScreen(prescreen, model, thresholds, featurise=cache)
        for i in held:
            out[i] = screen.evidence(rows[i].text)
    return out


def caught(row: Row, decision: str, refuse: tuple[str, ...]) -> bool:
    """A harmful row is caught: refused in a refuse category, refused or flagged in another."""
    return decision == "block" if row.category in refuse else decision != "allow"


def summary(rows: Sequence[Row], decisions: Sequence[str], refuse: tuple[str, ...]) -> dict[str, Rate]:
    """``recall_refuse`` (harmful in a refuse category, refused), ``recall_other`` (harmful elsewhere, refused or
    flagged), ``false_refusal`` and ``false_flag`` (benign), ``false_refusal_short_agent`` (benign, short, naming
    an agent)."""
    pairs = list(zip(rows, decisions, strict=True))
    hi = [(r, d) for r, d in pairs if r.harmful and r.category in refuse]
    lo = [(r, d) for r, d in pairs if r.harmful and r.category not in refuse]
    benign = [(r, d) for r, d in pairs if not r.harmful]
    short = [(r, d) for r, d in benign if r.short and r.names_agent]
    return {"recall_refuse": Rate(sum(d == "block" for _, d in hi), len(hi)),
            "recall_other": Rate(sum(caught(r, d, refuse) for r, d in lo), len(lo)),
            "false_refusal": Rate(sum(d == "block" for _, d in benign), len(benign)),
            "false_flag": Rate(sum(d != "allow" for _, d in benign), len(benign)),
            "false_refusal_short_agent": Rate(sum(d == "block" for _, d in short), len(short))}


def choose(rows: list[Row], evidence: list[list[Evidence]], base: Thresholds, max_false_refusal: float,
           alone_floor: float = 0.0, guard: tuple[list[Row], list[list[Evidence]], float] | None = None,
           ) -> tuple[Thresholds, dict[str, Rate]]:
    """The thresholds with the highest recall (refuse categories, then the others) whose false refusal on the
    held-out batches is at most ``max_false_refusal``; ties: fewer false flags, then higher thresholds. A term hit
    never acts below the agent threshold's lowest grid point (0.3): the terms are evidence, not a decision. The
    support the rule for a window naming no agent needs is chosen among :data:`SUPPORT_STEPS` (ties: the higher).

    Args:
        guard: other rows, their evidence and the false refusal they may reach at most (the earlier batches'
            benign goals, written close to the line in English: the reported rows are the intent set's, but a
            choice that refuses the earlier benign goals refuses researchers too, bench/README.md).
    """
    steps = [round(float(x), 2) for x in np.arange(0.3, 0.96, 0.05)]
    best: tuple[tuple[float, ...], Thresholds, dict[str, Rate]] | None = None
    for h in steps:
        for a in (x for x in steps if x >= h):
            for s in (x for x in steps if x >= max(a, alone_floor)):
                for n in SUPPORT_STEPS:
                    t = Thresholds(h, h, a, s, base.refuse_categories, a, n, base.unprotected_hit_scores,
                                   base.unprotected_agent_scores)
                    r = summary(rows, [decision_of(e, t) for e in evidence], t.refuse_categories)
                    if r["false_refusal"].value > max_false_refusal or (guard is not None and _refused(
                            guard[0], guard[1], t) > guard[2]):
                        continue
                    key = (r["recall_refuse"].value, r["recall_other"].value, -r["false_flag"].value, h, a, s, n)
                    if best is None or key > best[0]:
                        best = (key, t, r)
    if best is None:
        raise ValueError(f"no thresholds keep false refusals at or below {max_false_refusal:.1%}")
    return best[1], best[2]


def _refused(rows: list[Row], evidence: list[list[Evidence]], t: Thresholds) -> float:
    """Share of the benign ``rows`` refused under ``t``."""
    benign = [e for r, e in zip(rows, evidence, strict=True) if not r.harmful]
    return sum(decision_of(e, t) == "block" for e in benign) / max(len(benign), 1)


def breakdown(rows: Sequence[Row], decisions: Sequence[str], refuse: tuple[str, ...],
              by: Callable[[Row], str]) -> list[tuple[str, dict[str, Rate], int]]:
    """:func:`summary` per group of ``by`` (sorted by group), with each group's size."""
    groups = sorted({by(r) for r in rows})
    out = []
    for g in groups:
        keep = [(r, d) for r, d in zip(rows, decisions, strict=True) if by(r) == g]
        out.append((g, summary([r for r, _ in keep], [d for _, d in keep], refuse), len(keep)))
    return out
