"""The screen's thresholds re-chosen for a refitted intent model, measured leave-one-set-out.

    python -m bench.safety_rechoose                 # the four folds, then the thresholds chosen on all of them
    python -m bench.safety_rechoose --folds goals_blind13 goals_blind14 goals_blind15 goals_blind16 goals_blind17 \
        --candidates support=0.3 strong=0.7/0.3     # few no-agent rule candidates only (:func:`compare`)

Every number the screen compares an intent-model output with (``safety.screen`` in conf/safety/default.yaml: the
term-hit, agent and no-agent harm scores, the no-agent rule's support bar, the per-category bars of a text stating
no purpose; and :data:`cosci.safety.intent.SUPPORT_K`, the neighbours the support counts) was chosen for the model
fitted before 2026-12-06 (sixteenth stop). For each fold S of :data:`FOLDS` the intent model fitted without S
(:func:`fold_model`: the sixteenth stop's leave-one-set-out refit for goals_blind13-15, kept under
:data:`bench.safety_refit.WORK`, and the shipped model for goals_blind16, which was fitted on every row but its own)
screens S whole with the configured thresholds and with thresholds chosen on the other three folds' sets, each scored
by its own fold model (out-of-fold scores: no row's score comes from a model that saw it, and no score or label of S is
read by the choice; S's labels did train the other folds' models, which a nested fit without both would avoid at six
more fits). A set's evidence (windows, hits, agents, purposes) is computed once
(:func:`bench.safety_refit.set_evidence`) and rescored per model from the embedding cache: no screening per arm.

The choice (:func:`choose_rules`) reads scores only: a small grid of the three harm scores and the support bar, then
the per-category bars of a text stating no purpose, then SUPPORT_K among :data:`SUPPORT_KS`. Rule ``more``: the
most refuse-category refusals whose false refusals on the choice sets are no more than the configured thresholds'
there; rule ``fewer``: the fewest false refusals whose refusals are no fewer (bench/README.md, "seventeenth stop").

``--candidates`` (:func:`compare`) chooses among a few rules for a window naming no agent only, on the folds given
(2026-12-07, eighteenth stop: on goals_blind13-17, "0.9 with support 0.2" beside the configured bars, pooled 1,759
refused of 1,870 and 78 false refusals of 2,402 leave-one-set-out, against 1,751 and 77; bench/README.md).
"""

from __future__ import annotations

import itertools
import sys
import time
from collections.abc import Sequence
from dataclasses import replace

import numpy as np

from bench.safety_intent import (
    INTENT_WEIGHT,
    LATER_BLIND,
    CachedEmbedding,
    Row,
    current,
    heldout_texts,
    intent_rows,
    training_rows,
)
from bench.safety_measure import SAFETY_DATA
from bench.safety_refit import fit_weighted, set_evidence
from cosci.safety.intent import SUPPORT_K, IntentModel, inputs_hash
from cosci.safety.screen import Evidence, OfflineScreen, Thresholds, decision_of

FOLDS = ("goals_blind13", "goals_blind14", "goals_blind15", "goals_blind16")
"""The sets left out one at a time: the four latest blind sets, each by an author who read no screen."""
HARM = (0.25, 0.3, 0.35, 0.4, 0.45, 0.5, 0.55)
"""The term-hit and agent harm scores tried (the agent's at least the hit's, as :func:`~bench.safety_intent.choose`)."""
ALONE = (0.4, 0.45, 0.5, 0.55, 0.6, 0.7)
"""The no-agent harm scores tried (at least the agent's)."""
SUPPORTS = (0.3, 0.4, 0.5, 0.6)
"""The no-agent rule's support bars tried."""
UNPROTECTED = (None, 0.02, 0.05, 0.1)
"""Every per-category bar of a term hit in a text stating no purpose set to one value (None: as configured)."""
CHEMICAL_AGENT = (0.15, 0.25, 0.35)
"""The chemical agent's bar without a hit in a text stating no purpose."""
SUPPORT_KS = (10, 20, 30)
"""The neighbours the support counts."""

Scored = list[list[Evidence] | None]


def _sixteenth_rows(name: str) -> tuple[list[Row], np.ndarray]:
    """The rows and weights the sixteenth stop's refit without ``name`` was fitted on, in its order (the training
    rows before the blind sets joined them, then the blind sets 2-15 it added; without ``name``'s rows and any row
    repeating one of its texts)."""
    later = {p.stem for p in LATER_BLIND}
    rows = [r for r in training_rows() if r.batch[:-1] not in later]
    held, have = heldout_texts(), {r.id for r in rows}
    added = [r for p in LATER_BLIND if p.stem != "goals_blind16" for r in intent_rows(p)
             if r.text not in held and r.id not in have]
    left = intent_rows(SAFETY_DATA / f"{name}.jsonl")
    ids, texts = {r.id for r in left}, {r.text for r in left}
    keep = [r for r in rows if r.id not in ids and r.text not in texts]
    more = [r for r in added if r.id not in ids and r.text not in texts]
    return [*keep, *more], np.array([INTENT_WEIGHT if current(r) else 1.0 for r in keep] + [1.0] * len(more))


def fold_model(name: str, shipped: IntentModel, cache: CachedEmbedding) -> IntentModel:
    """The intent model fitted on every tuning row outside set ``name`` as the sixteenth stop fitted it (kept
    under :data:`bench.safety_refit.WORK`; fitted if missing): for goals_blind16 the shipped model when it was fitted
    on every training row but goals_blind16's (its inputs hash says so), else a fit on those rows; so for any set that
    is no training row (goals_blind17)."""
    if name not in {p.stem for p in LATER_BLIND}:  # no training row: the shipped model where fitted without it
        rows = [r for r in training_rows() if r.batch[:-1] != name]
        if shipped.inputs == inputs_hash([r.text for r in rows], [r.label for r in rows], [r.category for r in rows]):
            return shipped
        return fit_weighted(rows, np.array([INTENT_WEIGHT if current(r) else 1.0 for r in rows]), cache)
    rows, weights = _sixteenth_rows(name)
    return fit_weighted(rows, weights, cache)


def rescore_k(evidence: Scored, model: IntentModel, cache: CachedEmbedding, k: int) -> Scored:
    """:func:`bench.safety_refit.rescore` with the support counted over ``k`` neighbours."""
    windows = list(dict.fromkeys(e.window for ev in evidence if ev for e in ev if e.scored))
    x = cache(windows)
    harm, probs, support = model.harm(x), model.category_probs(x), model.support(x, k)
    at = {w: i for i, w in enumerate(windows)}
    return [None if ev is None else [replace(e, score=float(harm[at[e.window]]), support=float(support[at[e.window]]),
                                             probs=dict(zip(model.categories, probs[at[e.window]].tolist(),
                                                            strict=True)))
                                     if e.scored else e for e in ev] for ev in evidence]


def counts(rows: Sequence[Row], scored: Scored, t: Thresholds) -> tuple[int, int, int]:
    """Refuse-category refusals, false refusals and short agent-naming false refusals of ``rows`` under ``t`` (as
    :func:`~bench.safety_intent.summary` counts them; a text in an unread language, ``None``, is refused)."""
    hit = false = short = 0
    for r, ev in zip(rows, scored, strict=True):
        if ev is not None and decision_of(ev, t) != "block":
            continue
        if r.harmful:
            hit += r.category in t.refuse_categories
        else:
            false += 1
            short += r.short and r.names_agent
    return hit, false, short


def _candidates(base: Thresholds) -> list[Thresholds]:
    out = []
    for h, a, s, n in itertools.product(HARM, HARM, ALONE, SUPPORTS):
        if a >= h and s >= a:
            out.append(replace(base, hit_score=h, protected_hit_score=h, agent_score=a, protected_agent_score=a,
                               alone_score=s, alone_support=n))
    return out


def _bars(t: Thresholds, base: Thresholds) -> list[Thresholds]:
    out = []
    for u, c in itertools.product(UNPROTECTED, CHEMICAL_AGENT):
        hit = base.unprotected_hit_scores if u is None else tuple((k, u) for k, _ in base.unprotected_hit_scores)
        agent = tuple((k, c if k == "chemical" else v) for k, v in base.unprotected_agent_scores)
        out.append(replace(t, unprotected_hit_scores=hit, unprotected_agent_scores=agent))
    return out


def _best(table: list[tuple[Thresholds, tuple[int, int, int]]], rule: str,
          bar: tuple[int, int, int]) -> tuple[Thresholds, tuple[int, int, int]] | None:
    """The candidate ``rule`` prefers among ``table`` (thresholds and their counts) against ``bar`` (the configured
    thresholds' counts on the same rows)."""
    best = None
    for t, c in table:
        if (rule == "more" and c[1] > bar[1]) or (rule == "fewer" and c[0] < bar[0]):
            continue
        high = t.hit_score + t.agent_score + t.alone_score + t.alone_support
        key = (c[0], -c[1], -c[2], high) if rule == "more" else (-c[1], c[0], -c[2], high)
        if best is None or key > best[0]:
            best = (key, t, c)
    return None if best is None else (best[1], best[2])


def _extreme(base: Thresholds, loose: bool) -> Thresholds:
    """The loosest (or strictest) thresholds of the grid: every rule acts from the lowest (highest) value tried."""
    pick = min if loose else max
    u = pick(v if v is not None else pick(x for _, x in base.unprotected_hit_scores) for v in UNPROTECTED)
    return replace(base, hit_score=pick(HARM), protected_hit_score=pick(HARM), agent_score=pick(HARM),
                   protected_agent_score=pick(HARM), alone_score=pick(ALONE), alone_support=pick(SUPPORTS),
                   unprotected_hit_scores=tuple((k, u) for k, _ in base.unprotected_hit_scores),
                   unprotected_agent_scores=tuple((k, pick(CHEMICAL_AGENT) if k == "chemical" else v)
                                                  for k, v in base.unprotected_agent_scores))


def _varying(rows: Sequence[Row], scored: Scored, base: Thresholds) -> tuple[list[int], tuple[int, int, int]]:
    """The rows whose decision differs between the grid's loosest and strictest thresholds, and the counts of the
    others (a refusal needs one acting window, and a lower threshold only adds acting windows: a row refused under
    the strictest and allowed under the loosest thresholds is decided alike by every candidate)."""
    loose, strict = _extreme(base, True), _extreme(base, False)
    vary = [i for i, ev in enumerate(scored) if ev is not None and decision_of(ev, loose) != decision_of(ev, strict)]
    keep = set(vary)
    fixed = counts([r for i, r in enumerate(rows) if i not in keep], [e for i, e in enumerate(scored) if i not in keep],
                   strict)
    return vary, fixed


def choose_rules(rows: Sequence[Row], by_k: dict[int, Scored], base: Thresholds,
                 ) -> dict[str, tuple[Thresholds, int, tuple[int, int, int]]]:
    """Per rule (``more``, ``fewer``), thresholds and SUPPORT_K chosen on ``rows`` (``by_k``: their evidence scored
    with each k): the harm scores and support bar first, then the per-category bars with those fixed. The
    configured thresholds at :data:`SUPPORT_K` always qualify, so a choice exists."""
    bar = counts(rows, by_k[SUPPORT_K], base)
    out: dict[str, tuple[Thresholds, int, tuple[int, int, int]]] = {}
    for k, all_scored in by_k.items():
        vary, fixed = _varying(rows, all_scored, base)
        some, scored = [rows[i] for i in vary], [all_scored[i] for i in vary]

        def count(t: Thresholds, some: list[Row] = some, scored: Scored = scored,
                  fixed: tuple[int, int, int] = fixed) -> tuple[int, int, int]:
            c = counts(some, scored, t)
            return c[0] + fixed[0], c[1] + fixed[1], c[2] + fixed[2]

        table = [(t, count(t)) for t in _candidates(base)]
        for rule in ("more", "fewer"):
            first = _best(table, rule, bar)
            if first is None:
                continue
            second = _best([(t, count(t)) for t in _bars(first[0], base)], rule, bar)
            t, c = second if second is not None else first
            have = out.get(rule, (base, SUPPORT_K, bar))[2]
            better = (c[0], -c[1]) > (have[0], -have[1]) if rule == "more" else (-c[1], c[0]) > (-have[1], have[0])
            if rule not in out or better:
                out[rule] = (t, k, c)
    for rule in ("more", "fewer"):
        out.setdefault(rule, (base, SUPPORT_K, bar))
    return out


def candidate(spec: str, base: Thresholds) -> Thresholds:
    """A no-agent rule candidate: ``support=P`` (``alone_support`` P) or ``strong=S/P`` (the configured bars, or a
    harm score from S with support from P: :attr:`~cosci.safety.rules.Thresholds.alone_strong`).

    Raises:
        ValueError: ``spec`` is neither form."""
    kind, _, value = spec.partition("=")
    if kind == "support":
        return replace(base, alone_support=float(value))
    if kind == "strong":
        score, support = value.split("/")
        return replace(base, alone_strong=(float(score), float(support)))
    raise ValueError(f"not a candidate: {spec!r}")


def choose_among(rows: Sequence[Row], scored: Scored, base: Thresholds, specs: Sequence[str],
                 ) -> tuple[str, tuple[int, int, int]]:
    """The candidate rule ``more`` prefers on ``rows`` among the configured thresholds and ``specs``: the most
    refuse-category refusals whose false refusals are no more than the configured's (ties: fewer false refusals,
    then the earlier in ``specs``); ``configured`` when none gains."""
    bar = counts(rows, scored, base)
    best = ("configured", bar)
    for spec in specs:
        c = counts(rows, scored, candidate(spec, base))
        if c[1] <= bar[1] and (c[0], -c[1]) > (best[1][0], -best[1][1]):
            best = (spec, c)
    return best


def compare(folds: Sequence[str], specs: Sequence[str], rows: dict[str, list[Row]], scored: dict[str, Scored],
            base: Thresholds) -> None:
    """Leave-one-set-out among few candidate rules (:func:`choose_among` on the other folds, applied to the fold):
    each candidate's counts per fold, the chosen one's, and the pooled counts."""
    print("| fold S | arm | refused | false refusals | short agent-naming |\n|---|---|---|---|---|")
    pooled: dict[str, list[int]] = {}
    for s in folds:
        others = [n for n in folds if n != s]
        pick, _ = choose_among([r for n in others for r in rows[n]], [e for n in others for e in scored[n]], base,
                               specs)
        n_h = sum(r.harmful and r.category in base.refuse_categories for r in rows[s])
        n_b = sum(not r.harmful for r in rows[s])
        for arm in ("configured", *specs, f"chosen ({pick})"):
            spec = pick if arm.startswith("chosen") else arm
            c = counts(rows[s], scored[s], base if spec == "configured" else candidate(spec, base))
            key = "chosen" if arm.startswith("chosen") else arm
            total = pooled.setdefault(key, [0, 0, 0, 0, 0])
            for i, v in enumerate((c[0], n_h, c[1], n_b, c[2])):
                total[i] += v
            print(f"| {s} | {arm} | {c[0]}/{n_h} | {c[1]}/{n_b} ({c[1] / n_b:.1%}) | {c[2]} |", flush=True)
    for arm, (hit, n_h, fr, n_b, short) in pooled.items():
        print(f"| pooled | {arm} | {hit}/{n_h} ({hit / n_h:.1%}) | {fr}/{n_b} ({fr / n_b:.2%}) | {short} |")
    pick, c = choose_among([r for n in folds for r in rows[n]], [e for n in folds for e in scored[n]], base, specs)
    print(f"chosen on all folds: {pick}: refused {c[0]}, false refusals {c[1]}, short {c[2]}")


def describe(t: Thresholds, k: int) -> str:
    return (f"hit {t.hit_score}, agent {t.agent_score}, alone {t.alone_score} support {t.alone_support} (K {k}), "
            f"no purpose: hits {dict(t.unprotected_hit_scores)}, agents {dict(t.unprotected_agent_scores)}")


def main(argv: list[str] | None = None) -> int:
    import argparse

    from bench.safety import _config
    from cosci.safety.intent import load_intent
    from cosci.safety.prescreen import load_prescreen
    from cosci.safety.screen import thresholds_of

    parser = argparse.ArgumentParser(prog="python -m bench.safety_rechoose")
    parser.add_argument("--folds", nargs="+", default=list(FOLDS), help="the sets left out one at a time")
    parser.add_argument("--candidates", nargs="+", default=[],
                        help="no-agent rule candidates (support=P, strong=S/P): choose among these and the "
                             "configured bars only, at SUPPORT_K, instead of the grid")
    args = parser.parse_args(argv)
    folds = tuple(args.folds)
    config = _config("local")
    assert config.safety is not None
    base = thresholds_of(config.safety)
    screen = OfflineScreen(load_prescreen(config.safety.prescreen_terms), load_intent(config.safety.intent), base)
    cache = CachedEmbedding()
    rows = {n: intent_rows(SAFETY_DATA / f"{n}.jsonl") for n in folds}
    evidence = {n: set_evidence(rows[n], screen) for n in folds}
    print(f"evidence of {', '.join(folds)}: {sum(map(len, rows.values()))} rows ({time.process_time():.0f} CPU s)")
    single = {n: fold_model(n, screen.intent, cache) for n in folds}
    if args.candidates:  # each candidate against the bars without a second one (as they were when chosen)
        base = replace(base, alone_strong=None)
        compare(folds, args.candidates, rows, {n: rescore_k(evidence[n], single[n], cache, SUPPORT_K) for n in folds},
                base)
        return 0
    scored = {k: {n: rescore_k(evidence[n], single[n], cache, k) for n in folds} for k in SUPPORT_KS}
    pooled: dict[str, list[int]] = {}
    print("| fold S | arm | thresholds | refused | false refusals | short agent-naming |\n|---|---|---|---|---|---|")
    for s in folds:
        others = [n for n in folds if n != s]
        choice_rows = [r for n in others for r in rows[n]]
        by_k = {k: [e for n in others for e in scored[k][n]] for k in SUPPORT_KS}
        test_k = {k: scored[k][s] for k in SUPPORT_KS}
        arms = [("shipped", base, SUPPORT_K)]
        started = time.process_time()
        for rule, (t, k, c) in choose_rules(choice_rows, by_k, base).items():
            arms.append((rule, t, k))
            print(f"| {s} | choice on the others, {rule} | {describe(t, k)} | {c[0]} | {c[1]} | {c[2]} |", flush=True)
        print(f"(chosen in {time.process_time() - started:.0f} CPU s)")
        for arm, t, k in arms:
            c = counts(rows[s], test_k[k], t)
            total = pooled.setdefault(arm, [0, 0, 0, 0, 0])
            n_h = sum(r.harmful and r.category in t.refuse_categories for r in rows[s])
            n_b = sum(not r.harmful for r in rows[s])
            for i, v in enumerate((c[0], n_h, c[1], n_b, c[2])):
                total[i] += v
            print(f"| {s} | {arm} | {describe(t, k) if arm != 'shipped' else 'configured'} | {c[0]}/{n_h} | "
                  f"{c[1]}/{n_b} | {c[2]} |")
    for arm, (hit, n_h, fr, n_b, short) in pooled.items():
        print(f"pooled {arm}: refused {hit}/{n_h} ({hit / n_h:.1%}), false refusals {fr}/{n_b} ({fr / n_b:.1%}), "
              f"short agent-naming {short}")
    all_rows = [r for n in folds for r in rows[n]]
    by_k = {k: [e for n in folds for e in scored[k][n]] for k in SUPPORT_KS}
    for rule, (t, k, c) in choose_rules(all_rows, by_k, base).items():
        print(f"on all folds, rule {rule}: {describe(t, k)}: refused {c[0]}, false refusals {c[1]}, short {c[2]}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
