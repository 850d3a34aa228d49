"""``cosci investigate run`` / ``resume`` from the command line: create or reopen the run folder, refuse a task
that breaks its contract or a machine without isolation, start Prefect and MLflow, run the flow, print the summary
(docs/design.md#investigation)."""

from __future__ import annotations

import importlib.util
import os
import sys
import tempfile
from pathlib import Path
from typing import Any

from cosci.config.investigation import InvestigationConfig, load_investigation
from cosci.errors import CosciError
from cosci.investigation.check import contract, production
from cosci.investigation.folder import RunFolder, new_run_id
from cosci.investigation.harness import Harness
from cosci.investigation.report import fmt
from cosci.investigation.session_link import seeded_hypotheses
from cosci.investigation.task import load_task
from cosci.sandbox import Isolation, isolation
from cosci.text import error_line
from cosci.tracking import artifact_location, check_tracking, tracking_uri
from flows.env import prepare
from flows.server import ensure_server, server_ready

RAY_ENV = ("PREFECT_API_URL", "PREFECT_HOME", "PREFECT_SERVER_ANALYTICS_ENABLED", "DO_NOT_TRACK",
           "PREFECT_RESULTS_PERSIST_BY_DEFAULT", "LITELLM_LOCAL_MODEL_COST_MAP", "COSCI_DATA_DIR")
"""Environment a Ray worker needs to report its task runs to this run's Prefect server."""


def task_runner(cfg: InvestigationConfig) -> Any:
    """The Prefect task runner of ``investigation.task_runner``.

    Raises:
        CosciError: ``ray`` without prefect-ray installed (one line).
    """
    inv = cfg.investigation
    if inv.task_runner == "ray":
        if importlib.util.find_spec("prefect_ray") is None:
            raise CosciError("investigation.task_runner=ray needs prefect-ray: pip install -e '.[ray]' (make setup)")
        from prefect_ray import RayTaskRunner

        env = {k: os.environ[k] for k in RAY_ENV if k in os.environ}
        init: dict[str, Any] = {"runtime_env": {"env_vars": env}, "include_dashboard": False,
                                "log_to_driver": False}
        if inv.ray_address is None:
            init["num_cpus"] = max(2, inv.workers)
        return RayTaskRunner(address=inv.ray_address, init_kwargs=init)
    from prefect.task_runners import ThreadPoolTaskRunner

    return ThreadPoolTaskRunner(max_workers=max(2, inv.workers))


def refuse_broken(task_dir: Path) -> None:
    """Refuse a task that breaks its contract (the first failure in one line; ``cosci investigate check`` lists
    all)."""
    failures = contract(load_task(task_dir))
    if failures:
        more = f" (and {len(failures) - 1} more: cosci investigate check {task_dir})" if len(failures) > 1 else ""
        raise CosciError(f"task {task_dir.name}: {failures[0]}{more}")


def sandbox(cfg: InvestigationConfig) -> Isolation:
    """The isolation to use (the backend ``investigation.sandbox`` names); without one and with
    ``unsafe_no_sandbox``, a warning on the terminal."""
    iso = isolation(cfg.investigation.unsafe_no_sandbox, cfg.investigation.sandbox)
    if not iso.isolated:
        print("cosci: WARNING: no sandbox (bubblewrap unavailable); investigation.unsafe_no_sandbox=true runs "
              "candidate programs with this user's rights and network (recorded in the run's manifest)",
              file=sys.stderr, flush=True)
    return iso


def start_tracking(cfg: InvestigationConfig, folder: RunFolder, iso: Isolation) -> None:
    """Create the MLflow parent and one child per worker (ids in the manifest), unless tracking is off."""
    if not cfg.base.tracking.enabled:
        return
    from cosci.tracking.investigation_runs import start

    uri = tracking_uri(cfg.base)
    experiment = cfg.base.tracking.experiment_name
    inv = cfg.investigation
    parent, children = start(uri, experiment, artifact_location(uri, cfg.base.paths.data_dir, experiment),
                             folder.run_id, inv.workers,
                             tags={"cosci.run_id": folder.run_id, "cosci.task": folder.manifest()["task"],
                                   "cosci.isolation": iso.tool,
                                   "cosci.unsafe_no_sandbox": str(not iso.isolated).lower()},
                             params={"workers": inv.workers, "cycles": inv.cycles, "budget_usd": inv.budget_usd,
                                     "models": cfg.base.models.name, "evidence_seeds": cfg.evidence.seeds,
                                     "task_runner": inv.task_runner})
    folder.update_manifest(mlflow_parent=parent, mlflow_children={str(k): v for k, v in children.items()})


def refuse_unproductive(task_dir: Path, iso: Isolation) -> None:
    """The production check before spending (docs/design.md#production-check): the initial program runs the
    search workload in the sandbox, in a temporary folder; a failure or a limit hit is one line, before any
    cycle call and before the run folder exists."""
    task = load_task(task_dir)
    with tempfile.TemporaryDirectory(prefix="cosci-production-") as tmp:
        why = production(task, Harness(task, iso, Path(tmp)), Path(tmp) / "run")
    if why:
        raise CosciError(f"task {task_dir.name}: {why} (nothing was spent; cosci investigate check {task_dir})")


def create(cfg: InvestigationConfig, task_path: Path, overrides: list[str], from_session: str | None,
           iso: Isolation) -> RunFolder:
    """A new run: task contract checked, the production check passed, seeded hypotheses read, folder created."""
    task_dir = Path(task_path).expanduser().resolve()
    refuse_broken(task_dir)
    refuse_unproductive(task_dir, iso)
    data_dir = cfg.base.paths.data_dir
    seeded = seeded_hypotheses(data_dir, from_session, cfg.investigation.from_session_top) if from_session else []
    folder = RunFolder(data_dir, new_run_id(task_dir.name, overrides))
    folder.create(task_dir, {"task": task_dir.name, "task_source": str(task_dir), "overrides": list(overrides),
                             "config": cfg.model_dump(mode="json"), "from_session": from_session, "seeded": seeded})
    return folder


def run(task_path: Path, overrides: list[str], from_session: str | None = None) -> dict[str, Any]:
    """Start an investigation and run it to its end (see the module docstring)."""
    cfg = load_investigation(overrides)
    iso = sandbox(cfg)  # refuse before anything is written
    check_tracking(cfg.base)
    folder = create(cfg, task_path, overrides, from_session, iso)
    folder.update_manifest(isolation=iso.tool, unsafe_no_sandbox=not iso.isolated)
    return _go(cfg, folder, iso, new=True)


def resume(data_dir: Path, run_id: str) -> dict[str, Any]:
    """Continue a killed investigation: finished cycles replay from the cache, the rest run."""
    folder = RunFolder.existing(data_dir, run_id)
    if folder.manifest().get("status") == "done":
        raise CosciError(f"investigation {run_id} is done; its report: {folder.root / 'report.md'}")
    cfg = InvestigationConfig.model_validate(folder.manifest()["config"])
    iso = sandbox(cfg)
    return _go(cfg, folder, iso, new=False)


def _go(cfg: InvestigationConfig, folder: RunFolder, iso: Isolation, *, new: bool) -> dict[str, Any]:
    folder.lock()
    try:
        home = prepare(cfg.base.paths.data_dir)
        ensure_server(home, wait=False)
        from flows.launch import quiet_logging

        quiet_logging(home / "prefect.log")
        print(f"investigation {folder.run_id} ({folder.root}); continue a stopped run with "
              f"`cosci investigate resume {folder.run_id}`", file=sys.stderr, flush=True)
        if new or not folder.manifest().get("mlflow_parent"):
            start_tracking(cfg, folder, iso)
        from flows.investigation import investigation_flow

        server_ready()
        runner = task_runner(cfg)
        flow = investigation_flow.with_options(task_runner=runner)
        try:
            summary: dict[str, Any] = flow(cfg.model_dump(mode="json"), str(cfg.base.paths.data_dir), folder.run_id,
                                           {"tool": iso.tool, "version": iso.version})
        except Exception:
            _fail_tracking(cfg, folder)
            raise
    finally:
        folder.unlock()
    for line in summary_lines(summary):
        print(line, flush=True)
    return summary


def _fail_tracking(cfg: InvestigationConfig, folder: RunFolder) -> None:
    """An investigation that ended by an error: its MLflow runs FAILED (a kill leaves them RUNNING, for resume)."""
    manifest = folder.manifest()
    if not manifest.get("mlflow_parent"):
        return
    from cosci.tracking.investigation_runs import finish

    try:
        finish(tracking_uri(cfg.base), manifest["mlflow_parent"],
               {int(k): v for k, v in manifest["mlflow_children"].items()}, {}, [], failed=True)
    except Exception as exc:  # the original error matters more
        print(f"cosci: the MLflow run was not marked failed: {error_line(exc)}", file=sys.stderr)


def summary_lines(s: dict[str, Any]) -> list[str]:
    """The summary printed on stdout."""
    sel = s["selected"]
    workers, cycles = s["workers"], s["cycles_run"]
    lines = [f"investigation {s['run_id']}  task {s['task']}  {cycles} cycle{'s' if cycles != 1 else ''} "
             f"({workers} worker{'s' if workers != 1 else ''})",
             f"selected     {sel['label']}: search score {fmt(sel['score'])} (initial {fmt(s['initial_score'])})",
             "gates        " + ", ".join(f"{k}: {v}" for k, v in s["gates"].items())]
    if s.get("intervals"):  # a run finished before the intervals were named has no such key
        lines.append(f"intervals    {s['intervals']}")
    lines += [f"evidence     [{r['label']}] {r['text']}" for r in s["evidence"]]
    lines += [f"outcome      {h}: {o}" for h, o in s["outcomes"].items()]
    lines += [f"cost         ${s['cost_usd']:.4f}", f"report       {s['report']}"]
    if s.get("mlflow_run_id"):
        lines.append(f"mlflow run   {s['mlflow_run_id']}")
    return lines


def command(action: str, target: str, overrides: list[str], from_session: str | None, data_dir: Path) -> int:
    """``cosci investigate check|run|resume``; returns the exit status (check: 1 when the task fails; run with
    ``paper.after_run``: the paper's, 1 when its checks still fail after ``paper.max_rounds``). Raises CosciError
    (one line, exit 2) for a target that is not a folder."""
    if action == "check":
        from cosci.investigation.check import check_task

        if not Path(target).expanduser().is_dir():  # bad input, as `run` says it: not a task that fails its check
            raise CosciError(f"{target}: no such task folder")
        iso = isolation(False, load_investigation(overrides).investigation.sandbox) if overrides else isolation(False)
        failures = check_task(Path(target), iso)
        for line in failures:
            print(f"check: {line}", flush=True)
        if not failures:
            print(f"check: {Path(target).name} passes (contract, and both evaluators on the initial program)")
        return 1 if failures else 0
    if action == "run":
        cfg = load_investigation(overrides)
        writes = cfg.paper is not None and cfg.paper.after_run
        summary = run(Path(target), overrides, from_session)
        if writes:
            from cosci.investigation.write_command import write

            return write(summary["run_id"], overrides, cfg.base.paths.data_dir)
    else:
        if overrides or from_session:
            raise CosciError("`investigate resume` takes only the run id (its configuration is frozen)")
        resume(data_dir, target)
    return 0
