"""The investigation flow's steps outside the cycles: MLflow logging at each boundary, then the aggregator, the
evidence, the report and the outcomes written back to a session (docs/design.md#evidence)."""

from __future__ import annotations

import json
import logging
from collections.abc import Callable
from pathlib import Path
from typing import Any

from cosci.config.investigation import EVIDENCE_AGENTS, InvestigationConfig
from cosci.domain import evidence_interval_label
from cosci.investigation import evidence as E
from cosci.investigation.evidence_design import Designed, designed, diagnostics, program_diff, propose_and_screen
from cosci.investigation.folder import RunFolder
from cosci.investigation.harness import Evaluation
from cosci.investigation.report import evidence_rows, markdown, write_claims, write_findings
from cosci.investigation.runtime import gateway, run_async
from cosci.investigation.session_link import write_outcome
from cosci.investigation.task import Task
from cosci.llm.budget.token_budget import TokenBudget
from cosci.llm.gateway.adapter import Gateway
from cosci.text import error_line
from cosci.tracking import tracking_uri

log = logging.getLogger(__name__)
Jobs = list[tuple[str, str, str, int]]


def gate_counts(results: list[dict[str, Any]]) -> dict[str, int]:
    """How many cycles ended in each of the four gate combinations."""
    out = {"A pass B pass": 0, "A pass B fail": 0, "A fail B pass": 0, "A fail B fail": 0}
    for r in results:
        out[f"A {'pass' if r['gate_a'] else 'fail'} B {'pass' if r['gate_b'] else 'fail'}"] += 1
    return out


def log_cycles(cfg: InvestigationConfig, folder: RunFolder, round_: list[dict[str, Any]],
               results: list[dict[str, Any]]) -> None:
    """Each new cycle's metrics on its worker's MLflow child (a cycle already logged, on resume, is skipped)."""
    manifest = folder.manifest()
    children, logged = manifest.get("mlflow_children") or {}, set(manifest.get("mlflow_logged") or [])
    if not children:
        return
    from cosci.tracking.investigation_runs import log_cycle

    uri = tracking_uri(cfg.base)
    for r in round_:
        tag = f"w{r['worker']}c{r['cycle']}"
        if tag in logged:
            continue
        mine = [x for x in results if x["worker"] == r["worker"] and x["cycle"] <= r["cycle"] and x["gate_b"]]
        best = mine[-1]["score"] if mine else manifest.get("initial_score")
        try:
            log_cycle(uri, children[str(r["worker"])], r["cycle"],
                      {"score": r["score"], "gate_a": float(r["gate_a"]), "gate_b": float(r["gate_b"]),
                       "best_so_far": best, "cost_usd": r["cost_usd"]})
            logged.add(tag)
        except Exception as exc:  # tracking never fails the investigation
            log.warning("MLflow: cycle %s not logged: %s", tag, error_line(exc))
    folder.update_manifest(mlflow_logged=sorted(logged))


def evidence_programs(results: list[dict[str, Any]], sel: E.Selection, initial: str, folder: RunFolder,
                      seeded: set[str]) -> tuple[list[tuple[str, str]], list[E.Ablation], list[dict[str, Any]]]:
    """``[(label, program)]`` to run over seeds: selected, initial, one ablation per change of the lineage, and the
    before/after of every idea that tested a seeded hypothesis and passed gate A or gate B (gate A's are its
    evidence, design.md#evidence)."""
    abls = E.ablations(Path(sel.program), E.lineage(results, sel), folder.root / "evidence" / "ablations")
    label = "selected" if sel.worker else "selected (the initial program)"
    programs = [(label, sel.program), ("initial", initial)]
    programs += [(f"without '{a.title}' (cycle {a.cycle})", a.program) for a in abls if a.program]
    tested = [r for r in results if (r.get("idea") or {}).get("hypothesis_id") in seeded]
    for r in tested:
        if runs_over_seeds(r):
            programs += [(f"w{r['worker']} cycle {r['cycle']} after", r["candidate_dir"]),
                         (f"w{r['worker']} cycle {r['cycle']} before", r["base_dir"])]
    return programs, abls, tested


def runs_over_seeds(r: dict[str, Any]) -> bool:
    """Whether a tested idea's before/after run over the evidence seeds: it passed gate A (its gain is evidence
    for or against the hypothesis) or gate B (its gain is reported)."""
    return bool(r.get("gate_a") or r["gate_b"]) and bool(r.get("candidate_dir"))


def scores_by_seed(evals: dict[tuple[str, int], Evaluation], program: str) -> dict[int, float]:
    """Final-evaluator scores of ``program`` by seed, counting only valid and correct evaluations."""
    return {seed: float(e.score) for (p, seed), e in evals.items()
            if p == program and e.ok and e.correct and e.score is not None}


def design_evidence(cfg: InvestigationConfig, folder: RunFolder, task: Task, sel: E.Selection,
                    initial: str) -> list[Designed]:
    """The designed baselines and ablations (:mod:`cosci.investigation.evidence_design`), built under
    ``evidence/designed/``; the two calls' answers are kept in ``evidence/design.json`` and read back on resume.
    None when ``evidence.designed`` is 0 or the selected program is the initial one (no diff)."""
    ev = cfg.evidence
    if not ev.designed or not ev.agents or not sel.worker:
        return []
    path = folder.root / "evidence" / "design.json"
    answers = json.loads(path.read_text(encoding="utf-8")) if path.is_file() else None
    if answers is None or "plan" not in answers:
        diff = program_diff(Path(initial), Path(sel.program))
        paid: list[float] = []
        budget = TokenBudget(cap_usd=ev.budget_usd, shares={a: c.budget_share for a, c in ev.agents.items()},
                             reserve_share=0.0)
        gw = Gateway(cfg.evidence_gateway_config(), budget, lambda c: paid.append(c.cost_usd or 0.0))
        routes = {agent: gw.router.route(agent, mode) for agent, mode in EVIDENCE_AGENTS.items()}
        answers = run_async(propose_and_screen(gw, routes, task.name, task.question, task.spec.score.metric, diff,
                                               ev.designed))
        answers["cost_usd"] = sum(paid)
    designs = designed(answers, Path(sel.program), Path(initial), folder.root / "evidence" / "designed", ev.designed)
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps({**answers, "designed": [d.to_dict() for d in designs]}, indent=1), encoding="utf-8")
    return designs


def measure(cfg: InvestigationConfig, task: Task, programs: list[tuple[str, str]], abls: list[E.Ablation],
            tested: list[dict[str, Any]], sel: E.Selection, initial: str,
            evaluate: Callable[[Jobs], dict[tuple[str, int], Evaluation]],
            designs: list[Designed] | None = None) -> dict[str, Any]:
    """Run the evidence programs over ``evidence.seeds`` seeds with the final evaluator; intervals, gains (the
    selected program over each designed baseline and ablation among them) and the selected program's
    diagnostics."""
    seeds, level = list(range(1, cfg.evidence.seeds + 1)), cfg.evidence.confidence
    unique = list(dict.fromkeys(p for _, p in programs))
    evals = evaluate([("", p, "final", s) for p in unique for s in seeds])
    by = {p: scores_by_seed(evals, p) for p in unique}
    direction = task.spec.score.direction
    means = [(f"{name} ({len(by[p])} of {len(seeds)} seeds correct)", E.summary(list(by[p].values()), level))
             for name, p in programs if by[p]]
    gains: list[tuple[str, E.Interval]] = []
    idea_gains: dict[str, E.Interval | None] = {}
    if sel.worker and (g := E.gain(by[sel.program], by[initial], direction, level)):
        gains.append(("the selected program over the initial one", g))
    for a in abls:
        if a.program and (g := E.gain(by[sel.program], by[a.program], direction, level)):
            gains.append((f"'{a.title}' (cycle {a.cycle}): selected minus its ablation", g))
    for d in designs or []:
        if d.program and (g := E.gain(by[sel.program], by[d.program], direction, level)):
            gains.append((f"the selected program over the {d.label}", g))
    for r in tested:
        if runs_over_seeds(r):
            g = E.gain(by[r["candidate_dir"]], by[r["base_dir"]], direction, level)
            idea_gains[f"w{r['worker']}c{r['cycle']}"] = g
            if g:
                gains.append((f"w{r['worker']} cycle {r['cycle']} (tests {r['idea']['hypothesis_id']})", g))
    return {"means": means, "gains": gains, "idea_gains": idea_gains,
            "diagnostics": diagnostics(evals, sel.program, task.spec.score.metric, level),
            "evaluations": {f"{p}#{s}": e.to_dict() for (p, s), e in evals.items()}}


def outcomes(cfg: InvestigationConfig, folder: RunFolder, tested: list[dict[str, Any]],
             idea_gains: dict[str, E.Interval | None]) -> dict[str, str]:
    """Each seeded hypothesis's outcome, written back to its session."""
    manifest = folder.manifest()
    session = manifest.get("from_session")
    out: dict[str, str] = {}
    for s in manifest.get("seeded", []):
        mine = [r for r in tested if r["idea"]["hypothesis_id"] == s["id"]]
        verdict = E.outcome(mine, idea_gains, cfg.evidence.equivalence_margin)
        out[s["id"]] = verdict
        detail = (f"{len(mine)} idea(s) tested it, {sum(1 for r in mine if r.get('gate_a'))} passed gate A, "
                  f"{sum(1 for r in mine if r['gate_b'])} passed gate B; "
                  f"final-evaluator gains ({evidence_interval_label(cfg.evidence.confidence)}): "
                  f"{_gains_text(mine, idea_gains)}")
        if session:  # only a supported or refuted outcome becomes a review (session_link.write_outcome)
            write_outcome(cfg.base.paths.data_dir, session, folder.run_id, s["id"], verdict, detail)
    return out


def _gains_text(mine: list[dict[str, Any]], gains: dict[str, E.Interval | None]) -> str:
    parts = []
    for r in mine:
        g = gains.get(f"w{r['worker']}c{r['cycle']}")
        parts.append(f"w{r['worker']} cycle {r['cycle']}: " + (
            f"{g.mean:+.4f} [{g.low if g.low is None else round(g.low, 4)}, "
            f"{g.high if g.high is None else round(g.high, 4)}]" if g else "not measured (gates A and B failed)"))
    return "; ".join(parts) or "none"


def finish(cfg: InvestigationConfig, folder: RunFolder, task: Task, results: list[dict[str, Any]],
           initial_eval: Evaluation, isolation: dict[str, str],
           evaluate: Callable[[Jobs], dict[tuple[str, int], Evaluation]]) -> dict[str, Any]:
    """Aggregator, evidence, report, outcomes, MLflow; the run's summary (also ``summary.json``)."""
    initial = str(folder.task_dir / "initial")
    sel = E.select(results, initial, initial_eval.score, task.spec.score.direction)
    manifest = folder.manifest()
    seeded = {s["id"] for s in manifest.get("seeded", [])}
    programs, abls, tested = evidence_programs(results, sel, initial, folder, seeded)
    designs = design_evidence(cfg, folder, task, sel, initial)
    programs += [(d.label, d.program) for d in designs if d.program]
    measured = measure(cfg, task, programs, abls, tested, sel, initial, evaluate, designs)
    rows = evidence_rows(task.spec.score.metric, measured["means"], measured["gains"], measured["diagnostics"])
    gates = gate_counts(results)
    findings, note = run_async(_findings(cfg, task, rows, len(results), gates))
    verdicts = outcomes(cfg, folder, tested, measured["idea_gains"])
    summary = {
        "run_id": folder.run_id, "task": task.name, "workers": cfg.investigation.workers,
        "cycles": cfg.investigation.cycles, "cycles_run": len(results), "isolation": isolation["tool"],
        "selected": {"label": f"worker {sel.worker}, cycle {sel.cycle}" if sel.worker else "the initial program",
                     "worker": sel.worker, "cycle": sel.cycle, "score": sel.score, "program": sel.program},
        "initial_score": initial_eval.score, "gates": gates, "outcomes": verdicts,
        "intervals": evidence_interval_label(cfg.evidence.confidence),
        "cost_usd": sum(r["cost_usd"] for r in results) + _design_cost(folder),  # every call the user pays for
        "evidence": [r.__dict__ for r in rows],
        "ablation_notes": [f"'{a.title}' (cycle {a.cycle}): {a.note}" for a in abls if not a.program],
        "designed": [d.to_dict() for d in designs], "designed_cost_usd": _design_cost(folder),
        "findings_unsupported": sum(1 for f in findings if f.status == "unsupported"),
        "report": str(folder.root / "report.md"), "mlflow_run_id": manifest.get("mlflow_parent"),
    }
    (folder.root / "evidence").mkdir(exist_ok=True)
    (folder.root / "evidence" / "evidence.json").write_text(json.dumps(
        {"rows": summary["evidence"], "evaluations": measured["evaluations"]}, indent=1, default=str), encoding="utf-8")
    (folder.root / "report.md").write_text(markdown(task, summary, results, rows, findings, note), encoding="utf-8")
    write_claims(folder.root / "claims.json", findings)
    (folder.root / "summary.json").write_text(json.dumps(summary, indent=1, default=str), encoding="utf-8")
    _close_mlflow(cfg, folder, summary, measured)
    folder.update_manifest(status="done")
    return summary


def _design_cost(folder: RunFolder) -> float:
    """What the proposer's and the filter's calls cost, USD (``evidence/design.json``; 0 without a design)."""
    path = folder.root / "evidence" / "design.json"
    return float(json.loads(path.read_text(encoding="utf-8")).get("cost_usd") or 0.0) if path.is_file() else 0.0


async def _findings(cfg: InvestigationConfig, task: Task, rows: list[Any], n: int, gates: dict[str, int]) -> Any:
    inv = cfg.investigation
    cap = inv.budget_usd * (inv.agents["writer"].budget_share + inv.reserve_share)
    gw, routes = gateway(cfg, TokenBudget(cap_usd=cap, shares={"writer": 1.0}, reserve_share=0.0), lambda c: None)
    return await write_findings(gw, routes["writer"], task, rows, n, gates)


def _close_mlflow(cfg: InvestigationConfig, folder: RunFolder, summary: dict[str, Any],
                  measured: dict[str, Any]) -> None:
    manifest = folder.manifest()
    parent = manifest.get("mlflow_parent")
    if not parent:
        return
    from cosci.tracking.investigation_runs import finish as finish_runs

    metrics = {"selected_search_score": summary["selected"]["score"], "initial_search_score": summary["initial_score"],
               "cost_usd": summary["cost_usd"], "cycles_run": float(summary["cycles_run"]),
               "findings_unsupported": float(summary["findings_unsupported"]),
               **{f"gates_{k.replace(' ', '_').lower()}": float(v) for k, v in summary["gates"].items()}}
    if measured["means"]:
        metrics["selected_final_mean"] = measured["means"][0][1].mean
    try:
        finish_runs(tracking_uri(cfg.base), parent, {int(k): v for k, v in manifest["mlflow_children"].items()},
                    metrics, [folder.root / n for n in ("report.md", "summary.json", "claims.json")]
                    + [folder.root / "evidence" / "evidence.json"])
    except Exception as exc:
        log.warning("the MLflow run %s was not completed: %s", parent, error_line(exc))
