"""Leave-one-set-out refits of the intent model: does fitting on more blind sets generalise to a new author?

    python -m bench.safety_refit goals_blind13 goals_blind14        # each set: shipped screen vs a refit without it
    python -m bench.safety_refit goals_blind14 --added-weight 1     # the added sets weighted as the earlier batches

For each set S named, the intent model (:mod:`cosci.safety.intent`) is fitted on the candidate rows
(:func:`candidate_rows`: the shipped training rows, :func:`bench.safety_intent.training_rows`, and the blind sets
they leave out, :data:`ADDED`) except S's, and S is screened by the whole screen (language reading, term lists,
rules, glosses) twice: with the shipped model and with the refit. The screen's thresholds are the configured ones in
both arms (``safety.screen``): re-choosing them by leave-one-batch-out (:func:`bench.safety_intent.choose`) needs
one fit per batch of the rows without S, about 45 fits of a kernel machine on ~11,000 rows per set, which this
bench does not afford (bench/README.md, "sixteenth stop"). Never a row of the intent set's held-out part (not a
candidate row) nor of a set not named in :data:`ADDED`.

Each set's evidence (windows, term hits, agents, purposes: everything but the model's three readings) is computed
once and kept under :data:`WORK`; each model then rescores the kept windows from the embedding cache
(:class:`bench.safety_intent.CachedEmbedding`), so a second arm costs one embedding product, not a screening.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import pickle
import sys
import tempfile
import time
from collections.abc import Sequence
from dataclasses import replace
from pathlib import Path

import numpy as np

from bench.safety_intent import (
    INTENT_C,
    INTENT_WEIGHT,
    LATER_BLIND,
    CachedEmbedding,
    Row,
    current,
    heldout_texts,
    intent_rows,
    summary,
    training_rows,
)
from bench.safety_measure import ROOT, SAFETY_DATA
from cosci.safety.intent import EMBEDDING, KERNEL_C, IntentModel, fit_intent, inputs_hash, load_intent
from cosci.safety.language import read_language
from cosci.safety.screen import STYLED_LIKE_EXEMPLARS, Evidence, OfflineScreen, Thresholds, decision_of

ADDED = LATER_BLIND
"""The blind sets the training rows before 2026-12-06 (sixteenth stop) left out: rows of them the training rows
lack join the candidates (none since they joined the training rows)."""
WORK = Path(tempfile.gettempdir()) / "cosci-safety-refit"
"""Kept evidence and fitted models (keyed by what they depend on)."""


def candidate_rows(added: Sequence[Path] = ADDED) -> list[tuple[str, Row]]:
    """``(source, row)``: the shipped training rows (source ``training``) and every row of the ``added`` sets they
    lack (source: the file's stem) whose text is no held-out row's (:func:`heldout_texts`)."""
    rows, held = training_rows(), heldout_texts()
    have = {r.id for r in rows}
    return [*(("training", r) for r in rows),
            *((p.stem, r) for p in added for r in intent_rows(p) if r.text not in held and r.id not in have)]


def weights_of(rows: Sequence[tuple[str, Row]], added_weight: float) -> np.ndarray:
    """The fit's row weights: :data:`~bench.safety_intent.INTENT_WEIGHT` for a current row of the shipped training
    rows, 1 for an earlier batch's, ``added_weight`` for a row of an added set."""
    return np.array([added_weight if s != "training" else INTENT_WEIGHT if current(r) else 1.0 for s, r in rows])


def fit_weighted(rows: Sequence[Row], weights: np.ndarray, cache: CachedEmbedding,
                 c: float = INTENT_C, kernel_c: float = KERNEL_C) -> IntentModel:
    """The intent model fitted on ``rows`` with ``weights``, kept under :data:`WORK` by its inputs (a fit on
    ~11,000 rows takes minutes)."""
    texts, labels, cats = [r.text for r in rows], [r.label for r in rows], [r.category for r in rows]
    inputs = inputs_hash(texts, labels, cats)
    key = hashlib.sha256(json.dumps([inputs, weights.tolist(), c, kernel_c, EMBEDDING]).encode()).hexdigest()[:24]
    path = WORK / f"model-{key}.npz"
    if path.exists():
        return load_intent(str(path))
    model = fit_intent(cache(texts), np.array([r.harmful for r in rows]), cats, inputs, c, weights, kernel_c)
    WORK.mkdir(parents=True, exist_ok=True)
    model.save(path)
    return model


def _zeros(texts: Sequence[str]) -> np.ndarray:
    return np.zeros((len(texts), 384), dtype=np.float32)


def set_evidence(rows: Sequence[Row], screen: OfflineScreen) -> list[list[Evidence] | None]:
    """Each row's evidence as :meth:`OfflineScreen.check` reads a goal, scores unset (None: a language the screen
    does not read, refused whatever the model), kept under :data:`WORK` by the texts and the term files."""
    conf = ROOT / "conf"
    terms = b"".join(p.read_bytes() for p in sorted(conf.glob("safety_*.yaml")))
    code = b"".join(p.read_bytes() for p in sorted((ROOT / "cosci" / "safety").glob("*.py")))
    key = hashlib.sha256(json.dumps([r.text for r in rows]).encode() + terms + code).hexdigest()[:24]
    path = WORK / f"evidence-{key}.pkl"
    if path.exists():
        return pickle.loads(path.read_bytes())
    blank = OfflineScreen(screen.prescreen, screen.intent, screen.thresholds, featurise=_zeros)
    out: list[list[Evidence] | None] = []
    for r in rows:
        blocks = [read_language(b) for b in r.text.split("\n") if b.strip()] if (
            "goal" in STYLED_LIKE_EXEMPLARS and "\n" in r.text.strip()) else []
        read = read_language(r.text).read and all(b.read for b in blocks)
        out.append(blank.evidence(r.text, score_all=True) if read else None)
    WORK.mkdir(parents=True, exist_ok=True)
    path.write_bytes(pickle.dumps(out))
    return out


def rescore(evidence: Sequence[list[Evidence] | None], model: IntentModel,
            cache: CachedEmbedding) -> list[list[Evidence] | None]:
    """``evidence`` with each scored window's harm score, category probabilities and support read by ``model``."""
    windows = list(dict.fromkeys(e.window for ev in evidence if ev for e in ev if e.scored))
    x = cache(windows)
    harm, probs, support = model.harm(x), model.category_probs(x), model.support(x)
    at = {w: i for i, w in enumerate(windows)}
    return [None if ev is None else [replace(e, score=float(harm[at[e.window]]), support=float(support[at[e.window]]),
                                             probs=dict(zip(model.categories, probs[at[e.window]].tolist(),
                                                            strict=True)))
                                     if e.scored else e for e in ev] for ev in evidence]


def decisions(evidence: Sequence[list[Evidence] | None], t: Thresholds) -> list[str]:
    return ["block" if ev is None else decision_of(ev, t) for ev in evidence]


def loso(name: str, added_weight: float, c: float, kernel_c: float, screen: OfflineScreen,
         cache: CachedEmbedding) -> dict[str, dict]:
    """Set ``name`` screened with the shipped model and with a refit on every candidate row outside it."""
    if name not in {p.stem for p in ADDED}:
        raise SystemExit(f"{name}: not one of the candidate sets ({', '.join(p.stem for p in ADDED)})")
    rows, held = candidate_rows(), intent_rows(SAFETY_DATA / f"{name}.jsonl")  # S whole, as bench.safety --blind
    ids, texts = {r.id for r in held}, {r.text for r in held}  # and a row repeating one of S's word for word
    keep = [(s, r) for s, r in rows if r.id not in ids and r.text not in texts]
    started = time.process_time()
    model = fit_weighted([r for _, r in keep], weights_of(keep, added_weight), cache, c, kernel_c)
    fitted = time.process_time() - started
    evidence = set_evidence(held, screen)
    refuse = screen.thresholds.refuse_categories
    out = {}
    for arm, m in (("shipped", screen.intent), ("refit", model)):
        out[arm] = summary(held, decisions(rescore(evidence, m, cache), screen.thresholds), refuse)
    print(f"\n{name}: {len(held)} rows; refit on {len(keep)} rows (added weight {added_weight}, C {c}, kernel C "
          f"{kernel_c}; fit {fitted:.0f} CPU s or kept), support rows {len(model.support_x)}")
    print("| arm | refused, refuse categories | refused or flagged, other | false refusal | false refusal, short "
          "naming an agent |\n|---|---|---|---|---|")
    for arm, r in out.items():
        print(f"| {arm} | {r['recall_refuse']} | {r['recall_other']} | {r['false_refusal']} | "
              f"{r['false_refusal_short_agent']} |")
    return out


def main(argv: list[str] | None = None) -> int:
    from bench.safety import _config
    from cosci.safety.prescreen import load_prescreen
    from cosci.safety.screen import thresholds_of

    parser = argparse.ArgumentParser(prog="python -m bench.safety_refit", description=__doc__.split("\n")[0])
    parser.add_argument("sets", nargs="+", help="stems of the sets to leave out one at a time (goals_blind14)")
    parser.add_argument("--added-weight", type=float, default=INTENT_WEIGHT, help="weight of an added set's row")
    parser.add_argument("--c", type=float, default=INTENT_C, help="the regressions' inverse regularisation")
    parser.add_argument("--kernel-c", type=float, default=KERNEL_C, help="the kernel machine's C")
    args = parser.parse_args(argv)
    config = _config("local")
    assert config.safety is not None
    screen = OfflineScreen(load_prescreen(config.safety.prescreen_terms), load_intent(config.safety.intent),
                           thresholds_of(config.safety))
    cache = CachedEmbedding()
    for name in args.sets:
        loso(name, args.added_weight, args.c, args.kernel_c, screen, cache)
    return 0


if __name__ == "__main__":
    sys.exit(main())
