"""``cosci investigate write RUN [overrides]``: the command-line glue of the writing stage (docs/design.md#paper).

Before any model call: the configuration, the run (finished, not held by another process), its evidence. On the
embedded model (``models=local``: short strings and lists, ``local.max_string_chars`` and ``local.max_list_items``)
the paper is short -- sentences are list items, each its own string -- but it runs, compiles and is checked like
any other. Then the sources, the figures and the writing (:mod:`cosci.investigation.writing`) through one gateway
over ``paper.budget_usd``; calls are logged in ``paper/calls.jsonl``. A second ``write`` of the same run resumes:
finished calls replay from ``paper/calls/``. Exit 0 when the last round passed every check that ran, 1 when the
rounds ran out.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from cosci.config.investigation import PAPER_AGENTS, InvestigationConfig, load_investigation
from cosci.domain import Call
from cosci.errors import CosciError
from cosci.investigation.folder import RunFolder, RunNotFound
from cosci.investigation.paper_figures import draw, history
from cosci.investigation.paper_folder import PaperFolder
from cosci.investigation.paper_sources import (
    bibtex,
    evidence,
    interval_name,
    parse_row,
    references,
    session_citations,
)
from cosci.investigation.runtime import run_async
from cosci.investigation.task import load_task
from cosci.investigation.writing import Sources, Writer


def sources(folder: RunFolder, paper: PaperFolder, data_dir: Path) -> Sources:
    """Rows, facts, references (``references.bib``) and figures (``figures.json``) of a finished run (its
    ``summary.json`` exists: :func:`write` checks it first)."""
    rows, facts, _ = evidence(folder.root)
    task = load_task(folder.task_dir)
    manifest = folder.manifest()
    refs = references(session_citations(data_dir, manifest.get("from_session"),
                                        [s["id"] for s in manifest.get("seeded", [])]))
    paper.write_text("references.bib", bibtex(refs))
    points = [p for label, text in rows.items() if (p := parse_row(label, text)) is not None]
    figures = draw(points, history(folder.root), task.spec.score.metric, paper.figures_dir, interval_name(rows))
    paper.write_json("figures.json", [f.to_dict() for f in figures])
    paper.stage("sources", rows=len(rows), facts=len(facts), references=len(refs), figures=[f.id for f in figures])
    return Sources(task.name, task.question, task.spec.score.metric, task.spec.score.direction, rows, facts, refs,
                   figures)


def _writer(cfg: InvestigationConfig, paper: PaperFolder, src: Sources) -> Writer:
    from cosci.llm.budget.token_budget import TokenBudget
    from cosci.llm.gateway.adapter import Gateway

    assert cfg.paper is not None
    budget = TokenBudget(cap_usd=cfg.paper.budget_usd,
                         shares={a: c.budget_share for a, c in cfg.paper.agents.items()}, reserve_share=0.0)

    def record(c: Call) -> None:
        paper.append("calls.jsonl", {"agent": c.agent, "action": c.action, "model": c.model, "outcome": c.outcome,
                                     "cost_usd": c.cost_usd, "input_tokens": c.input_tokens,
                                     "output_tokens": c.output_tokens, "error": c.error})

    gw = Gateway(cfg.paper_gateway_config(), budget, record)
    routes = {agent: gw.router.route(agent, mode) for agent, mode in PAPER_AGENTS.items()}
    return Writer(gw, routes, paper, src, cfg.paper.max_rounds, cfg.paper.max_words, cfg.paper.reviewers,
                  cfg.paper.max_pages)


SUMMARY_KEYS = ("workers", "cycles", "cycles_run", "selected")  # what the run facts read (paper_sources.run_facts)


def finished_folder(data_dir: Path, run_id: str) -> RunFolder:
    """The folder of run ``run_id`` once it is finished, checked before anything is written.

    Raises:
        RunNotFound: no folder; or the folder is there without ``manifest.json`` (the message names what is
            missing).
        RunBusy: no ``summary.json`` and another process holds the run's lock (it is still running).
        CosciError: no ``summary.json`` (not finished: resume it); a ``summary.json`` or ``manifest.json`` that is
            not the JSON object the run writes (the message names the file).
    """
    root = RunFolder(data_dir, run_id).root
    missing = [name for name in ("manifest.json", "summary.json") if not (root / name).is_file()]
    if root.is_dir() and "manifest.json" in missing:
        raise RunNotFound(f"investigation {run_id}: its folder {root} is there but incomplete (no "
                          f"{' and no '.join(missing)})")
    folder = RunFolder.existing(data_dir, run_id)
    if missing:
        folder.lock()  # raises RunBusy while the run (or its resume) holds it, as resume checks
        folder.unlock()
        raise CosciError(f"investigation {run_id} has not finished (no summary.json): resume it first "
                         f"(cosci investigate resume {run_id})")
    for name, keys in (("manifest.json", ()), ("summary.json", SUMMARY_KEYS)):
        try:
            data = json.loads((root / name).read_text(encoding="utf-8"))
        except (json.JSONDecodeError, UnicodeDecodeError) as exc:
            raise CosciError(f"investigation {run_id}: {root / name} is not valid JSON ({exc}); "
                             "nothing was written") from None
        if not isinstance(data, dict) or (gone := [k for k in keys if k not in data]):
            raise CosciError(f"investigation {run_id}: {root / name} is not a finished run's record "
                             f"(missing {', '.join(gone) if isinstance(data, dict) else 'a JSON object'}); "
                             "nothing was written")
    return folder


def write(run_id: str, overrides: list[str], data_dir: Path) -> int:
    """Run ``cosci investigate write`` (module docstring); returns the exit status."""
    cfg = load_investigation([*overrides, f"paths.data_dir={data_dir}"])
    if cfg.paper is None:
        raise CosciError("investigate write: the configuration has no paper section (conf/investigation/)")
    folder = finished_folder(data_dir, run_id)
    folder.lock()
    try:
        paper = PaperFolder(folder.root).ensure()
        src = sources(folder, paper, data_dir)
        try:
            out = run_async(_writer(cfg, paper, src).run())
        except CosciError as exc:  # a budget cap, a permanent model error: recorded, then one line (exit 2)
            paper.write_json("status.json", {"passed": False, "error": str(exc)})
            raise CosciError(f"investigate write stopped: {exc} (paper.budget_usd {cfg.paper.budget_usd:g}; "
                             f"finished calls are kept: run it again to resume; log {paper.root})") from None
    finally:
        folder.unlock()
    for line in summary(out, paper):
        print(line, flush=True)
    return 0 if out["passed"] else 1


def summary(out: dict[str, Any], paper: PaperFolder) -> list[str]:
    chair = out["reviews"]["chair"]
    scores = [r["overall"] for r in out["reviews"]["reviews"]]
    calls, torn = paper.read_log("calls.jsonl")
    cost = sum(float(c.get("cost_usd") or 0.0) for c in calls)
    return [f"paper        {paper.root / 'paper.tex'}" + ("  (+ paper.pdf)" if (paper.root / 'paper.pdf').is_file()
                                                           else ""),
            *(f"checks       {line}" for line in out["status"]),
            f"grounding    {paper.root / 'claims_grounding.json'}",
            f"reviews      {len(scores)} reviewer(s), overall {scores}; area chair: {chair['decision']} "
            f"({chair['overall']}/10)",
            f"cost         ${cost:.4f} (every call paid by the writes of this run, paper/calls.jsonl)",
            *([f"note         {torn} torn line(s) of paper/calls.jsonl skipped (a write killed mid-append): "
               "their calls are not in the cost"] if torn else [])]
