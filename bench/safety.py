"""Safety screening measured on the labelled goal set: recall on harmful goals, false refusals on benign ones.

    python -m bench.safety                    # held-out part, late and final batches (~45 min: the embedded model)
    python -m bench.safety --skip-model       # without the embedded model (2-10 minutes)
    python -m bench.safety --model-sample 40  # the embedded model on a fixed sample of 40 goals of each part
    python -m bench.safety --split tune       # cross-validated on the tuning part; prints the thresholds to ship
    python -m bench.safety --write-exemplars  # conf/safety_exemplars.jsonl = the tuning part of the set
    python -m bench.safety --feedback         # the shipped screen on researcher texts (result notes, rationales)

Screens (:mod:`bench.safety_measure` has the set, the split and the rates):

- *terms*: the term pre-screen alone (``conf/safety_prescreen.yaml``);
- *embedding kNN*: nearest neighbour of the goal's WordLlama embedding among the shipped exemplars (margin chosen
  by leave-one-out on the tuning part, in the same run);
- *term-gated alternative*: the offline screen with a threshold per rule, so that a term hit or a named agent
  lowers the harm score needed (chosen by cross-validation on the tuning part, same run);
- *combined*: the offline screen as shipped (``safety.screen`` in ``conf/config.yaml``: a term hit acts from a
  lower harm score than a named agent or no agent; the terms name the category and what matched, and the masked
  agents make the score agent-blind);
- *embedded model*: the default tier's own answer through the real classifier path (``models=local``).

Held-out figures are measured with the shipped exemplars, which must be the tuning part (checked). The late batch
(``tests/data/safety/goals_late.jsonl``) was written after a first screen was frozen; its figures and the held-out
part's chose between two rules (bench/README.md). The final batch (``goals_final.jsonl``) was written after the
shipped screen was frozen and has been measured once. The Russian and Chinese batch (``goals_scripts.jsonl``)
measures the gloss (``conf/safety_gloss.yaml``), which changes no decision on a text without Cyrillic or CJK.
Rounds 4 to 7 (written blind, measured and reported) and the goals written after reading their misses
(``goals_written.jsonl``, ``goals_written_by_screen_author_r8.jsonl``) are in the tuning part now
(:data:`bench.safety_measure.TUNE_EXTRA`); rounds 8 and 9 (``goals_round8.jsonl``, ``goals_round9.jsonl``),
written blind after this screen was frozen, are reported.
"""

from __future__ import annotations

import argparse
import asyncio
import hashlib
import json
import logging
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

from bench.safety_measure import (
    ROOT,
    Goal,
    acted,
    batch_evidence,
    choose_margin,
    choose_thresholds,
    cross_evidence,
    embedding_decisions,
    load_goals,
    part,
    rates,
    term_decisions,
    tuning,
    tuning_batches,
)
from cosci.paths import conf_dir
from cosci.safety.exemplars import load_exemplars
from cosci.safety.prescreen import load_prescreen
from cosci.safety.screen import OfflineScreen, Thresholds, decision_of, thresholds_of

DEDUP_PAIRS = ROOT / "tests" / "data" / "dedup_pairs.jsonl"
LATE = ROOT / "tests" / "data" / "safety" / "goals_late.jsonl"
FINAL = ROOT / "tests" / "data" / "safety" / "goals_final.jsonl"
SCRIPTS = ROOT / "tests" / "data" / "safety" / "goals_scripts.jsonl"
ROUND8 = ROOT / "tests" / "data" / "safety" / "goals_round8.jsonl"
ROUND9 = ROOT / "tests" / "data" / "safety" / "goals_round9.jsonl"
FEEDBACK_TUNE = ROOT / "tests" / "data" / "safety" / "feedback_tune.jsonl"
"""Researcher texts (``cosci result --notes``, ``cosci rate --why``; 60 benign, 40 harmful), written by a helper who
saw no screen: tuning data for the feedback subject (bench/README.md "Researcher texts"). Two further batches of
the same kind are kept blind, outside the repository, for the measurement after a change is frozen."""
COLUMNS = ("recall_refuse", "recall_other", "false_refusal", "false_flag", "false_refusal_close",
           "false_refusal_ordinary")
HEADINGS = ("recall, refuse categories (refused)", "recall, other categories (refused or flagged)",
            "false refusal, benign", "false flag, benign", "false refusal, close to the line",
            "false refusal, ordinary")


def _config(models: str = "local"):
    from cosci.config.load import compose, validate

    return validate(compose([f"models={models}", "experiment=demo", f"paths.data_dir={tempfile.mkdtemp()}"]))


def table(title: str, results: dict[str, list[str]], goals: list[Goal], refuse: tuple[str, ...]) -> None:
    """Print the overall rates of every screen, then recall and false refusal per category."""
    print(f"\n## {title}\n")
    print("| screen | " + " | ".join(HEADINGS) + " |")
    print("|---|" + "---|" * len(HEADINGS))
    for name, decisions in results.items():
        r = rates(goals, decisions, refuse)
        print(f"| {name} | " + " | ".join(str(r[c]) for c in COLUMNS) + " |")
    categories = sorted({g.category for g in goals if g.harmful})
    print("\n| screen | " + " | ".join(f"{c}: recall / false refusal" for c in categories) + " |")
    print("|---|" + "---|" * len(categories))
    for name, decisions in results.items():
        cells = []
        for c in categories:
            r = rates(goals, decisions, refuse, keep=_in_category(c))
            recall = r["recall_refuse"] if c in refuse else r["recall_other"]
            cells.append(f"{recall} / {r['false_refusal']}")
        print(f"| {name} | " + " | ".join(cells) + " |")


def _in_category(category: str) -> Callable[[Goal], bool]:
    return lambda g: g.category == category


def tune_report(goals: list[Goal]) -> int:
    """Cross-validated figures on the tuning part and the chosen thresholds (to copy into conf/config.yaml)."""
    config = _config("fake")
    assert config.safety is not None
    base = thresholds_of(config.safety)
    prescreen = load_prescreen(config.safety.prescreen_terms)
    tune = tuning(goals)
    started = time.perf_counter()
    held_goals, held_evidence = batch_evidence(prescreen, tuning_batches(goals), base)
    shipped, shipped_means = choose_thresholds(held_goals, [held_evidence], base, rule="all")
    print(f"leave-one-batch-out on the tuning part ({len(tuning_batches(goals))} batches, "
          f"{time.perf_counter() - started:.0f} s)")
    print(f"chosen (all five thresholds; the shipped rule): {_gated_name(shipped)}, protected agent "
          f"{shipped.protected_agent_score} (configured: {_gated_name(base)}, protected agent "
          f"{base.protected_agent_score})")
    print("  pooled over batches: " + ", ".join(f"{k} {v:.3f}" for k, v in shipped_means.items()))
    table("Tuning part, leave-one-batch-out, configured thresholds (not a figure to report)",
          {"combined, configured": [decision_of(e, base) for e in held_evidence]}, held_goals, base.refuse_categories)
    started = time.perf_counter()
    evidence = cross_evidence(prescreen, tune, base)
    chosen, means = choose_thresholds(tune, evidence, base, rule="hit")
    single, single_means = choose_thresholds(tune, evidence, base, rule="single")
    gated, gated_means = choose_thresholds(tune, evidence, base)
    print(f"tuning part: {len(tune)} goals ({sum(g.harmful for g in tune)} harmful), {len(evidence)} shuffles of"
          f" 5 folds, {time.perf_counter() - started:.0f} s")
    print(f"5-fold: the term-hit thresholds, agent and alone as configured (the earlier rule): {_gated_name(chosen)}"
          f" (configured: {_gated_name(base)})")
    print("  mean over shuffles: " + ", ".join(f"{k} {v:.3f}" for k, v in means.items()))
    print(f"one threshold for every rule (the earlier rule): {single.hit_score}")
    print("  mean over shuffles: " + ", ".join(f"{k} {v:.3f}" for k, v in single_means.items()))
    print(f"term-gated alternative: {_gated_name(gated)} (cross-validation here favours it: the term lists were"
          " written against these goals)")
    print("  mean over shuffles: " + ", ".join(f"{k} {v:.3f}" for k, v in gated_means.items()))
    results = {"terms": term_decisions(prescreen, [g.text for g in tune], base.refuse_categories),
               "combined, configured (shuffle 0)": [decision_of(e, base) for e in evidence[0]]}
    table("Tuning part, cross-validated (not a figure to report)", results, tune, base.refuse_categories)
    for goal, e in zip(tune, evidence[0], strict=True):
        decision = decision_of(e, base)
        if goal.harmful != (decision != "allow") or (goal.harmful and goal.category in base.refuse_categories
                                                     and decision != "block"):
            print(f"  {decision:5s} {goal.id:12s} {goal.kind:11s} {goal.text[:100]}")
    return 0


def _gated_name(t: Thresholds) -> str:
    return f"hit {t.hit_score}, protected hit {t.protected_hit_score}, agent {t.agent_score}, alone {t.alone_score}"


def model_decisions(goals: list[Goal]) -> list[str]:
    """The embedded model's own verdict on each goal, through the classifier path on ``models=local``."""
    from cosci.llm.budget.token_budget import TokenBudget
    from cosci.llm.gateway.adapter import Gateway
    from cosci.safety.classifier import Classifier
    from cosci.store import SessionStore

    config = _config("local")
    store = SessionStore.open(Path(tempfile.mkdtemp()) / "store.sqlite", "bench-safety")
    store.sessions.create(goal="bench", config_snapshot={}, overrides=[], models_choice="local", budget_usd=1.0,
                           budget_tokens=None, wall_clock_seconds=1e6)
    budget = TokenBudget(cap_usd=1.0, shares={a: c.budget_share for a, c in config.agents.items()},
                         reserve_share=config.budget.reserve_share, cap_tokens=None)
    gateway = Gateway(config, budget, store.logs.add_call)
    classifier = Classifier(config, gateway, gateway.router, store)

    logging.getLogger("cosci.safety").setLevel(logging.ERROR)  # every hit would be said: not a bench's output

    async def run() -> list[str]:
        out = []
        for goal in goals:
            verdict = (await classifier.screen("goal", goal.text)).verdict
            out.append(verdict.model_decision or "allow")
        return out

    return asyncio.run(run())


def heldout_report(goals: list[Goal], skip_model: bool, model_sample: int | None = None) -> int:
    config = _config("local")
    assert config.safety is not None
    thresholds = thresholds_of(config.safety)
    refuse = thresholds.refuse_categories
    prescreen = load_prescreen(config.safety.prescreen_terms)
    tune, held = tuning(goals), part(goals, "heldout")
    shipped = load_exemplars(config.safety.exemplars)
    if sorted(e.id for e in shipped) != sorted(g.id for g in tune):
        print("the shipped exemplars are not the tuning part: run python -m bench.safety --write-exemplars")
        return 1
    screen = OfflineScreen(prescreen, shipped, thresholds)
    evidence = cross_evidence(prescreen, tune, thresholds)
    gated, _ = choose_thresholds(tune, evidence, thresholds)
    margin = choose_margin(tune, refuse)
    parts = (("Held-out part", held), ("Late batch (it chose the one-threshold rule, see bench/README.md)",
                                       load_goals(LATE)), ("Final batch, written after the screen was frozen",
                                                           load_goals(FINAL)),
             ("Russian and Chinese goals (written after the gloss, by its author: see bench/README.md)",
              load_goals(SCRIPTS)),
             *((f"{path.stem.removeprefix('goals_').capitalize()} batch, written blind after the screen was"
                " frozen (measured once)", load_goals(path)) for path in (ROUND8, ROUND9) if path.exists()))
    for title, goals_ in parts:
        texts = [g.text for g in goals_]
        started = time.perf_counter()
        combined = [screen.check(t).decision for t in texts]
        per_goal_ms = 1000 * (time.perf_counter() - started) / len(texts)
        results = {"terms": term_decisions(prescreen, texts, refuse),
                   f"embedding kNN (WordLlama, margin {margin})": embedding_decisions(tune, texts, margin, refuse),
                   f"term-gated alternative ({_gated_name(gated)})": [screen.check(t, gated).decision
                                                                       for t in texts],
                   "combined (as configured)": combined}
        if not skip_model and model_sample is None:
            started = time.perf_counter()
            results["embedded model (SmolLM2-135M) as classifier"] = model_decisions(goals_)
            print(f"embedded model: {time.perf_counter() - started:.0f} s for {len(goals_)} goals")
        print(f"{title}: {len(goals_)} goals ({sum(g.harmful for g in goals_)} harmful, "
              f"{sum(g.close for g in goals_)} benign close to the line); combined screen {per_goal_ms:.1f} ms a goal")
        table(f"{title} (rate, k/n, 95 % Wilson interval)", results, goals_, refuse)
        if not skip_model and model_sample is not None:
            sample_table(title, goals_, combined, model_sample, refuse)
    shipped_texts(screen, config)
    return 0


def sample_table(title: str, goals: list[Goal], combined: list[str], size: int, refuse: tuple[str, ...]) -> None:
    """The embedded model on a sample of ``size`` goals of a part (the first in sha256 order of their ids: a fixed
    random sample), next to the combined screen on the same goals."""
    order = sorted(range(len(goals)), key=lambda i: hashlib.sha256(goals[i].id.encode()).hexdigest())[:size]
    sample = [goals[i] for i in order]
    started = time.perf_counter()
    results = {"combined (as configured), same goals": [combined[i] for i in order],
               "embedded model (SmolLM2-135M) as classifier": model_decisions(sample)}
    print(f"embedded model: {time.perf_counter() - started:.0f} s for {len(sample)} goals")
    table(f"{title}, a fixed sample of {len(sample)} goals: the embedded model", results, sample, refuse)


def shipped_texts(screen: OfflineScreen, config) -> None:
    """The goals cosci ships and the hypothesis texts of the dedup pairs (three experiment domains): every one
    should be allowed with nothing to show."""
    from cosci.config.load import compose, validate

    goals = []
    for name in ("demo", "oncology", "liver_fibrosis", "amr"):
        c = validate(compose([f"experiment={name}", "models=fake"]))
        goals.append((name, (c.session.goal or "") + "".join(f"\n- {p}" for p in c.session.preferences)))
    pairs = [json.loads(line) for line in DEDUP_PAIRS.read_text(encoding="utf-8").splitlines() if line.strip()]
    hypotheses = list(dict.fromkeys([p["a"] for p in pairs] + [p["b"] for p in pairs]))
    print("\n## Texts cosci ships (all benign)\n")
    for name, text in goals:
        r = screen.check(text)
        print(f"- experiment={name} goal: {r.decision}{' (hit: ' + r.line() + ')' if r.hit else ', nothing to show'}")
    from cosci.eval.moose_chem import load_items

    questions = [screen.check(i.background_question) for i in load_items()]
    print(f"- {len(questions)} MOOSE-Chem research questions (bench/data/moose_chem, chemistry and materials: never in"
          f" the labelled set): {sum(r.decision == 'block' for r in questions)} refused,"
          f" {sum(r.decision == 'flag' for r in questions)} flagged, {sum(r.hit for r in questions)} with a hit"
          " to show")
    results = [screen.check(t, subject="hypothesis") for t in hypotheses]
    print(f"- {len(hypotheses)} hypothesis texts ({DEDUP_PAIRS.name}): {sum(r.decision == 'block' for r in results)}"
          f" quarantined, {sum(r.decision == 'flag' for r in results)} flagged, {sum(r.hit for r in results)} with a"
          " hit to show")


def feedback_report(path: Path = FEEDBACK_TUNE) -> int:
    """The shipped combined screen on researcher texts screened as ``feedback`` (how ``cosci rate`` and ``cosci
    result`` screen them): the rates table, then every miss and false refusal with its rule and score."""
    config = _config("local")
    assert config.safety is not None
    thresholds = thresholds_of(config.safety)
    screen = OfflineScreen(load_prescreen(config.safety.prescreen_terms), load_exemplars(config.safety.exemplars),
                           thresholds)
    texts = load_goals(path)
    checked = [screen.check(t.text, subject="feedback") for t in texts]
    table(f"Researcher texts ({path.name}, subject feedback)", {"combined, as shipped": [r.decision for r in checked]},
          texts, thresholds.refuse_categories)
    print("\n| id | label | category | decision | rule | harm score |\n|---|---|---|---|---|---|")
    for t, r in zip(texts, checked, strict=True):
        wrong = r.decision != "allow" if not t.harmful else not acted(t, r.decision, thresholds.refuse_categories)
        if wrong:
            print(f"| {t.id} | {t.label} | {t.category} | {r.decision} | {r.rule or '-'} | {r.score:.2f} |")
    return 0


def write_exemplars(goals: list[Goal]) -> int:
    path = conf_dir() / "safety_exemplars.jsonl"
    rows = [{"id": g.id, "label": g.label, "category": g.category, "text": g.text} for g in tuning(goals)]
    path.write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in rows), encoding="utf-8")
    print(f"wrote {len(rows)} exemplars to {path.relative_to(ROOT)}")
    return 0


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench.safety", description=__doc__.split("\n")[0])
    parser.add_argument("--split", choices=("heldout", "tune"), default="heldout")
    parser.add_argument("--skip-model", action="store_true", help="do not run the embedded model")
    parser.add_argument("--model-sample", type=int, default=None, metavar="N",
                        help="run the embedded model on a fixed sample of N goals of each part (default: every goal)")
    parser.add_argument("--write-exemplars", action="store_true", help="write the tuning part as the exemplars")
    parser.add_argument("--feedback", action="store_true", help="the shipped screen on researcher texts")
    args = parser.parse_args(argv)
    if args.feedback:
        return feedback_report()
    goals = load_goals()
    if args.write_exemplars:
        return write_exemplars(goals)
    return tune_report(goals) if args.split == "tune" else heldout_report(goals, args.skip_model, args.model_sample)


__all__ = ["Thresholds", "main"]


if __name__ == "__main__":
    sys.exit(main())
