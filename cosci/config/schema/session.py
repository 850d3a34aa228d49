"""The session's own sections: its goal and project, the run's limits, the budget's shares, store leases, provider
retries, launchers, the schedule and paths (design.md#defaults, #budget, #retries).
"""

from __future__ import annotations

from pathlib import Path

from pydantic import Field, field_validator

from cosci.config.schema.base import (
    MAX_ATTEMPTS,
    MAX_CALL_SECONDS,
    MAX_SECONDS,
    MAX_SEED,
    Unit,
    _Strict,
    folder_name,
)


class SessionCfg(_Strict):
    name: str = Field(description="Experiment name; also the MLflow experiment the session is logged to.")
    goal: str | None = Field(description="The research goal in the scientist's words (required to run).")
    goal_file: str | None = Field(
        default=None,
        description="A UTF-8 text file holding the goal (any prose); read once at validation, its text replaces goal.",
    )
    preferences: list[str] = Field(description="What the scientist values in a hypothesis (fed to goal parsing; "
                                   "design.md#supervisor).")
    preset_goal: str | None = Field(
        default=None, description="An experiment's own goal, which its preferences were written for; a session given "
        "another goal drops preferences still equal to preset_preferences (design.md#experiments).")
    preset_preferences: list[str] | None = Field(
        default=None, description="The experiment's preferences, as it set them (compared with preferences).")
    resume: str | None = Field(description="Session id to continue instead of starting a new session.")
    corpus_path: str | None = Field(description="Local corpus for local_corpus_search: a JSONL/Parquet file, a "
                                    "document (PDF, Markdown, HTML, text) or a folder of them "
                                    "(design.md#own-documents).")
    background: str | None = Field(
        default=None, description="Background survey of the research goal (prose); reaches every agent's system "
        "prompt quoted as untrusted data (design.md#prompts). Set by `cosci eval` (design.md#eval).")
    project: str | None = Field(
        description="Project the session belongs to (a name: letters, digits, '-', '_', '.'); its sessions share "
        "<data_dir>/projects/NAME/ and a new one starts from the earlier ones (design.md#projects). null = none.")

    @field_validator("project", mode="before")
    @classmethod
    def _project_name(cls, value: object) -> object:
        """A project name is a folder name under ``<data_dir>/projects/``: :data:`PROJECT_NAME`, said in words
        (pydantic's own message quotes the regex). A whole number (``session.project=2026``: Hydra reads an int)
        is taken as its digits."""
        if value is None:
            return None
        return folder_name(value, "a project name", "session.project=aml-2026")

    @field_validator("name", mode="before")
    @classmethod
    def _session_name(cls, value: object) -> object:
        """The experiment name names MLflow's experiment, hence a folder under ``mlartifacts/``: the project rule
        (:func:`folder_name`)."""
        return folder_name(value, "an experiment name", "session.name=aml-2026")


class ProjectCfg(_Strict):
    entrants: int = Field(ge=0, le=1_000, description="Best prior hypotheses of the project (by final Elo) a new "
                          "session receives as tournament entrants, re-reviewed (design.md#projects: 3).")
    rejected_in_prompts: int = Field(ge=0, le=1_000, description="Rejected directions of the project quoted in "
                                     "generation and evolution prompts, newest first, and as many demoted ones "
                                     "(design.md#projects: 20).")
    lock_timeout_seconds: float = Field(gt=0, le=3_600, description="How long a write waits for the project store's "
                                        "lock, seconds (design.md#projects: 30).")


class RunCfg(_Strict):
    concurrency: int = Field(gt=0, le=64, description="Model calls out at once (the provider's load), as many actions "
                             "that may call, and up to one fewer actions without a model call beside them "
                             "(design.md#defaults, design.md#supervisor).")
    max_hypotheses: int = Field(gt=0, le=10_000, description="Cap on hypotheses in the pool: generated, evolved "
                                "and carried-over ones not rejected, retired or quarantined; initial generation stops "
                                "at it too (design.md#defaults, design.md#supervisor).")
    wall_clock_seconds: float = Field(gt=0, le=MAX_SECONDS,
                                      description="Session deadline in seconds of active time (design.md#defaults).")
    budget_usd: float = Field(gt=0, le=100_000,
                              description="Session spending cap in USD, reserve included (design.md#budget).")
    budget_tokens: int | None = Field(
        gt=0, le=10**11, description="Optional session cap in tokens (in + out); null = none."
    )
    n_initial: int = Field(gt=0, le=1_000,
                           description="Generation tasks enqueued after goal parsing (design.md#supervisor: 3).")
    seed: int = Field(ge=0, le=MAX_SEED, description="Seed for every random choice (pair selection, strategy choice).")
    idle_poll_seconds: float = Field(
        gt=0, le=3_600, description="Seconds between idle refinement checks (design.md#supervisor: ~10 s)."
    )


class BudgetCfg(_Strict):
    reserve_share: Unit = Field(description="Share of the budget kept for goal parsing, safety screening, the final "
                                "overview and overages (design.md#budget: 0.08).")
    warn_ratio: float = Field(
        gt=0, le=1_000, description="Pre-flight estimate warns above this multiple of the budget (design.md#budget)."
    )
    admission_wait_seconds: float = Field(
        gt=0, le=3600,
        description="A call that fits the budget but not beside the calls in flight waits up to this many seconds"
        " for them to settle; then its action goes back to the queue (design.md#budget).",
    )


class LeaseCfg(_Strict):
    """A claimed task's attempts. Leases carry no time limit: one process runs a session, and a resume voids
    every lease (design.md#store; lease durations are deliberately absent, design.md#departures)."""

    max_attempts: int = Field(ge=1, le=MAX_ATTEMPTS, description="Attempts of one task (one agent action, its "
                              "provider-call retries inside each) before it is dead (design.md#store: 3).")


class RetryCfg(_Strict):
    rate_limit_attempts: int = Field(ge=1, le=MAX_ATTEMPTS,
                                     description="Attempts on HTTP 429 (design.md#retries: 6).")
    overloaded_attempts: int = Field(
        ge=1, le=MAX_ATTEMPTS, description="Attempts on HTTP 529 overloaded (design.md#retries: 8)."
    )
    server_error_attempts: int = Field(ge=1, le=MAX_ATTEMPTS,
                                       description="Attempts on other 5xx (design.md#retries: 5).")
    timeout_attempts: int = Field(
        ge=1, le=MAX_ATTEMPTS, description="Attempts on timeouts and connection errors (design.md#retries: 3)."
    )
    base_delay_seconds: float = Field(ge=0, le=3_600,
                                      description="First backoff delay, seconds (design.md#retries: 1 s).")
    max_delay_seconds: float = Field(ge=0, le=3_600, description="Backoff cap, seconds (design.md#retries: 60 s).")
    call_timeout_seconds: float = Field(
        gt=0, le=MAX_CALL_SECONDS, description="Per-call timeout, seconds (design.md#retries: 120 s)."
    )
    thinking_call_timeout_seconds: float = Field(
        gt=0, le=MAX_CALL_SECONDS, description="Per-call timeout with thinking (design.md#retries: 300 s)."
    )
    first_token_seconds: float = Field(
        default=60.0, gt=0, le=MAX_CALL_SECONDS, description="A streamed call's allowance for its first token, "
        "seconds: its deadline is this plus max_tokens at the tier's output_tokens_per_second "
        "(docs/design.md#long-calls).")
    stream_idle_seconds: float = Field(
        default=90.0, gt=0, le=MAX_CALL_SECONDS, description="A streamed call that sends no chunk for this long times "
        "out, seconds (docs/design.md#long-calls).")
    stream_timeout_attempts: int = Field(
        default=2, ge=1, le=MAX_ATTEMPTS, description="Attempts of a streamed call that timed out: once more at the "
        "same settings, no more (its deadline already allows the full answer; docs/design.md#long-calls).")
    unreachable_attempts: int = Field(
        default=2, ge=1, le=MAX_ATTEMPTS, description="Attempts of a call whose host's name does not resolve or "
        "which refuses the connection; then the session stops (docs/design.md#unreachable-hosts: 2).")


class JoblibCfg(_Strict):
    n_jobs: int = Field(gt=0, le=1_024, description="Local processes running sessions at once.")


class SlurmCfg(_Strict):
    partition: str | None = Field(description="SLURM partition; null = the cluster default.")
    timeout_min: int = Field(gt=0, le=MAX_SECONDS // 60, description="Job time limit, minutes.")
    cpus_per_task: int = Field(gt=0, le=1_024, description="CPUs per session job.")
    mem_gb: int = Field(gt=0, le=65_536, description="Memory per session job, GB.")


class RayCfg(_Strict):
    address: str | None = Field(description="Ray cluster address; null = start a local Ray.")
    num_cpus: int = Field(gt=0, le=1_024, description="CPUs per session task.")


class LauncherCfg(_Strict):
    joblib: JoblibCfg
    slurm: SlurmCfg
    ray: RayCfg


class ScheduleCfg(_Strict):
    cron: str = Field(description="Cron schedule of `cosci schedule` (five fields, e.g. '0 6 * * 1').")
    deployment: str = Field(min_length=1, description="Prefect deployment name.")

    @field_validator("cron")
    @classmethod
    def _five_fields(cls, v: str) -> str:
        if len(v.split()) != 5:
            raise ValueError(f"'{v}' is not a five-field cron expression (minute hour day month weekday)")
        return v


class PathsCfg(_Strict):
    data_dir: Path = Field(description="Root for sessions, the MLflow store and Prefect's home (made absolute).")

    @field_validator("data_dir")
    @classmethod
    def _absolute(cls, v: Path) -> Path:
        return v.expanduser().resolve()
