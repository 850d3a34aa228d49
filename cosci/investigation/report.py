"""The investigation's report: evidence rows, the writer's findings checked claim by claim, ``report.md``
(docs/design.md#evidence).

Rows ``E1``... are written from the evidence results only (means with intervals over seeds, paired gains); the
writer (one ``record_findings`` call through the gateway) may cite them; :mod:`.claims` marks every finding whose
terms are not in the rows it cites. The tables of the report are built from the results, never from the writer.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from cosci.investigation.agents import system
from cosci.investigation.claims import Finding, check_findings, marked
from cosci.investigation.evidence import Interval
from cosci.investigation.records import RecordFindings
from cosci.investigation.task import Task
from cosci.llm.errors import LLMError, StructuredOutputError
from cosci.llm.port.structured import call_record
from cosci.llm.port.types import CallSpec, LLMPort, Route
from cosci.prompts import render

DIGITS = 4
"""Significant decimals in evidence rows (the findings must quote them as written)."""


def fmt(x: float | None) -> str:
    return "n/a" if x is None else f"{x:.{DIGITS}f}"


def interval_text(i: Interval) -> str:
    ci = (f"{round(i.level * 100)} % interval [{fmt(i.low)}, {fmt(i.high)}]" if i.low is not None
          else "no interval (one seed)")
    return f"{fmt(i.mean)}, {ci}, n = {i.n}"


@dataclass
class Row:
    label: str
    text: str


def evidence_rows(metric: str, programs: list[tuple[str, Interval]], gains: list[tuple[str, Interval]],
                  diagnostics: list[tuple[str, Interval]] | None = None) -> list[Row]:
    """``E1``... : one row per evidence program (mean final score), per gain (paired, positive = better) and per
    diagnostic of the selected program (another metric of its final evaluations, or its seconds)."""
    rows = [Row(f"E{i}", f"{name}: mean {metric} {interval_text(iv)}") for i, (name, iv) in enumerate(programs, 1)]
    rows += [Row(f"E{len(rows) + 1 + i}", f"gain of {name}: {interval_text(iv)} (positive = better)")
             for i, (name, iv) in enumerate(gains)]
    rows += [Row(f"E{len(rows) + 1 + i}", f"diagnostic of the selected program: {name} {interval_text(iv)}")
             for i, (name, iv) in enumerate(diagnostics or [])]
    return rows


async def write_findings(port: LLMPort, route: Route, task: Task, rows: list[Row], n_cycles: int,
                         gates: dict[str, int]) -> tuple[list[Finding], str]:
    """The writer's findings, checked; ``("", [])`` and a note when the call fails (the tables still stand)."""
    prompt = render("investigation.report", question=task.question, metric=task.spec.score.metric,
                    direction=task.spec.score.direction, rows=rows, cycles=n_cycles,
                    gates=", ".join(f"{k} {v}" for k, v in gates.items()))
    spec = CallSpec(route=route, action="WriteFindings", system=system("writer", task),
                    messages=[{"role": "user", "content": prompt}], task_id="report")
    try:
        rec, _ = await call_record(port, spec, RecordFindings)
    except (LLMError, StructuredOutputError) as exc:
        return [], f"the writer's call failed ({type(exc).__name__}: {exc}); the report has the tables only"
    return check_findings(rec.findings, {r.label: r.text for r in rows}), ""


def markdown(task: Task, summary: dict[str, Any], cycles: list[dict[str, Any]], rows: list[Row],
             findings: list[Finding], note: str) -> str:
    """``report.md``: header, findings (marked), evidence rows, cycle table, ablation notes."""
    lines = [f"# Investigation {summary['run_id']}: {task.name}", "",
             f"Score `{task.spec.score.metric}` ({task.spec.score.direction}); {summary['workers']} worker(s) x "
             f"{summary['cycles']} cycle(s); isolation: {summary['isolation']}; cost ${summary['cost_usd']:.4f}.", "",
             f"Selected program: {summary['selected']['label']} (search score {fmt(summary['selected']['score'])}).",
             "", "## Findings", ""]
    lines += [f"- {f}" for f in marked(findings)] or [f"- ({note or 'no findings written'})"]
    lines += ["", "## Evidence (final evaluator)", "", f"Intervals: {summary['intervals']}.",
              ""] + [f"- [{r.label}] {r.text}" for r in rows]
    lines += ["", "## Cycles", "", "| worker | cycle | idea | gate A | gate B | score | reason |",
              "|---|---|---|---|---|---|---|"]
    for r in sorted(cycles, key=lambda r: (r["worker"], r["cycle"])):
        title = ((r.get("idea") or {}).get("title") or "(rejected)").replace("|", "/")
        why = (r.get("gate_a_reason") or "").replace("|", "/")[:120]
        lines.append(f"| {r['worker']} | {r['cycle']} | {title} | {'pass' if r['gate_a'] else 'fail'} | "
                     f"{'pass' if r['gate_b'] else 'fail'} | {fmt(r['score'])} | {why} |")
    for note_line in summary.get("ablation_notes", []):
        lines.append(f"\nAblation not run: {note_line}")
    return "\n".join(lines) + "\n"


def write_claims(path: Path, findings: list[Finding]) -> None:
    bad = sum(1 for f in findings if f.status == "unsupported")
    path.write_text(json.dumps({"claims": [f.to_dict() for f in findings], "claims_total": len(findings),
                                "claims_unsupported": bad}, indent=1), encoding="utf-8")
