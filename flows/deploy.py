"""Scheduled sessions: a Prefect deployment whose parameters are Hydra overrides (design.md#deployment).

Deployment parameters must be JSON, so the deployment takes the overrides as a list of strings and composes
and validates the config *inside* the flow. ``cosci schedule`` serves it with the cron schedule from
``schedule.cron`` (or ``--cron``); scheduled and past sessions show in the Prefect UI, and a run can be
triggered by hand with other overrides (docs/sweeps.md "Scheduling")::

    prefect server start                                   # UI on http://127.0.0.1:4200
    export PREFECT_API_URL=http://127.0.0.1:4200/api
    cosci schedule experiment=oncology models=opus --cron "0 6 * * 1"
    prefect deployment run 'cosci-scheduled-session/cosci-scheduled' -p 'overrides=["experiment=demo"]'

Import this module only after :func:`flows.env.prepare` (``cosci schedule`` does).
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from typing import Any

from prefect import flow

from cosci.config.load import compose, validate
from cosci.config.schema import CosciConfig
from cosci.session.preflight import check_config
from flows.session import session_flow

FLOW_NAME = "cosci-scheduled-session"


@flow(name=FLOW_NAME, persist_result=False, log_prints=False)
async def scheduled_session(overrides: list[str]) -> dict[str, Any]:
    """Compose ``overrides`` with Hydra, validate, run the pre-flight rules (:func:`cosci.session.preflight.
    check_config`, the ones the session service runs: the service sits above ``flows`` and is not imported here)
    and run one session as a subflow; returns its summary."""
    config = validate(compose(overrides), require_goal=True)
    check_config(config)
    return await session_flow(config.model_dump(mode="json"), list(overrides), config.models.name, None)


def serve_deployment(
    config: CosciConfig, overrides: Sequence[str], *, cron: str | None = None, name: str | None = None
) -> None:
    """Serve the deployment (blocks until interrupted)."""
    if "PREFECT_API_URL" not in os.environ:
        print(
            "cosci schedule: PREFECT_API_URL is not set; serving against a temporary local Prefect server "
            "(start `prefect server start` and export PREFECT_API_URL=http://127.0.0.1:4200/api to keep history)"
        )
    deployment = name or config.schedule.deployment
    schedule = cron or config.schedule.cron
    print(f"serving '{FLOW_NAME}/{deployment}' on cron '{schedule}' with overrides {list(overrides)}", flush=True)
    scheduled_session.serve(
        name=deployment, cron=schedule, parameters={"overrides": list(overrides)}, print_starting_message=False
    )
