"""Pre-flight: every rule a session must pass before anything is written, called or paid, defined once here.

The session service (:mod:`cosci.api`) runs them for every door (``cosci run``, ``python -m cosci.run`` and its
sweeps, ``cosci resume``, ``cosci eval``, ``cosci serve``), and the Prefect deployment (``flows/deploy.py``) runs
:func:`check_config` inside its flow, where the service cannot be imported (it sits above ``flows``). The rules:

- the goal (:func:`check_goal_given`): given once, not empty, in words (:func:`cosci.config.load.check_goal`);
- the configuration (:func:`check_config`): a writable data folder, the models' API keys (a resumed session's, on
  its frozen config: :func:`check_resumed`), the local corpus and the skills folder read once, an MLflow server
  that answers;
- a sweep (:func:`check_parallel_tracking`): parallel jobs never share one SQLite MLflow store;
- the lifecycle (:func:`resume_plan`, :func:`check_open`): a finished or refused session
  is not resumed, paused, aborted or given feedback; a running one is not resumed twice;
- the notices said before a run (:func:`notices`): a model shutting down within 30 days, who decides safety.

One rule is left to the engine on purpose: whether every tier's model can be called (``check_models``) runs in
``flows/launch.py`` while the Prefect server boots, because LiteLLM's import (3 s) overlaps the boot there
(design.md#startup). Each rule raises a one-line :class:`~cosci.errors.CosciError` or
:class:`~cosci.config.load.ConfigError`; the doors print it and exit 2 (design.md#cli).
"""

from __future__ import annotations

import contextlib
import logging
import sys
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Literal

from cosci.config.load import ConfigError, check_goal, classifier_lines, lifecycle_lines
from cosci.config.schema import CosciConfig
from cosci.errors import CosciError
from cosci.paths import writable_data_dir
from cosci.session.folder import SessionBusy, SessionFolder
from cosci.store import SessionStore
from cosci.text import plural

FINISHED = ("done", "refused")
"""Session statuses nothing more runs in: a resume, pause, abort or feedback is refused in one line."""

RESUME_STARTING = "resume_starting"
"""The event a resume that runs the session again writes once its checks passed, before its process boots
(payload ``since``: the newest event's sequence number when the resume read the session). A pause asked after
``since`` wins over the resume: the session opens paused and its process holds (:func:`cosci.session.runtime.
record_resume`, design.md#resume)."""

def resume_starting(store: SessionStore) -> bool:
    """Whether a resume marked its start (:data:`RESUME_STARTING`) and has not opened the session since (no
    ``session_resumed`` after the mark): a pause asked of a session already ``paused`` is then recorded again, for
    that resume to weigh (design.md#resume)."""
    return store.logs.last_event_seq(RESUME_STARTING) > store.logs.last_event_seq("session_resumed")


ResumePlan = Literal["waiting", "settle", "run"]
"""What resuming a session does: ``waiting`` (a paused process holds it: it is told to continue), ``settle`` (a
done session's outstanding provider batches are polled and settled, nothing more runs), ``run`` (the session runs
again on its frozen config)."""


def check_goal_given(goal: str, overrides: Sequence[str], given_as: str = "--goal") -> None:
    """The rules of a goal given as text beside Hydra overrides (``cosci run --goal``, ``cosci.api.prepare``).

    Args:
        goal: the research goal, verbatim (never parsed by Hydra's override grammar).
        overrides: the Hydra overrides given with it.
        given_as: how the caller names the goal in a refusal (``--goal`` on the command line).

    Raises:
        ConfigError: the goal also given as ``session.goal=``/``session.goal_file=``, an empty goal, or one that
            fails :func:`cosci.config.load.check_goal` (one line naming ``given_as``).
    """
    if given := next((o.lstrip("+~").split("=", 1)[0] for o in overrides
                      if o.lstrip("+~").startswith(("session.goal=", "session.goal_file="))), None):
        raise ConfigError(f"{given}: give the goal once, with {given_as} (not also as an override)")
    if not goal.strip():
        raise ConfigError(f"{given_as}: the research goal is empty")
    check_goal(goal, given_as)


def check_config(config: CosciConfig) -> None:
    """The configuration's rules, in the order a refusal is said: data folder, keys (or the session to resume),
    corpus, skills, tracking.

    Raises:
        CosciError: an unusable data folder, a session to resume that does not exist or is finished, a corpus or
            skills path that cannot be read, an MLflow server that does not answer.
        MissingApiKey: a tier's model needs a key that is not set.
    """
    from cosci.llm.gateway.routing import Router
    from cosci.tracking import check_tracking

    writable_data_dir(config.paths.data_dir)
    if config.session.resume:
        check_resumable(config.paths.data_dir, config.session.resume)
    else:
        Router(config).check_keys()
    if config.session.corpus_path:
        check_corpus(config)
    if config.tools.skills_path:
        check_skills(config.tools.skills_path)
    check_tracking(config)


def check_resumed(config: CosciConfig) -> None:
    """The rules of a session resumed on its frozen configuration (``config``, overrides applied), before the
    Prefect server boots: its models' keys and its MLflow server.

    Raises:
        MissingApiKey: a tier's model needs a key that is not set. CosciError: the MLflow server does not answer.
    """
    from cosci.llm.gateway.routing import Router
    from cosci.tracking import check_tracking

    Router(config).check_keys()
    check_tracking(config)


def check_parallel_tracking(config: CosciConfig, parallel: bool) -> None:
    """Raises ConfigError when a sweep's jobs run at the same time (``parallel``) on one SQLite MLflow store."""
    if parallel and config.tracking.enabled and not (config.tracking.tracking_uri or "").startswith(
            ("http://", "https://")):
        raise ConfigError(
            "tracking.tracking_uri: parallel sweeps must not share one SQLite MLflow store; start "
            "`mlflow server --backend-store-uri sqlite:///$PWD/data/mlflow.db --host 127.0.0.1 --port 5000` and "
            "pass tracking.tracking_uri=http://127.0.0.1:5000 (or tracking.enabled=false)"
        )


def notices(configs: Sequence[CosciConfig], *, marked: bool = False) -> list[str]:
    """The lines said before a run, once for all its jobs: a model shutting down within 30 days
    (design.md#catalogue), a tier unable to decide safety verdicts (design.md#safety-measured; ``marked``: a tier its
    preset marks too, as ``cosci check`` says it, :func:`cosci.config.load.classifier_lines`)."""
    return [*lifecycle_lines(list(configs)), *classifier_lines(list(configs), marked=marked)]


def finished_refusal(session_id: str, status: str) -> CosciError:
    """The one line for resuming a finished session."""
    return CosciError(f"session {session_id} is {status}; `cosci report {session_id}` shows its overview")


def check_resumable(data_dir: Path, session_id: str) -> None:
    """The rules of :func:`resume_plan` for ``session.resume=ID`` (no overrides: the frozen config applies).

    Raises:
        SessionNotFound: no such session. CosciError: as :func:`resume_plan`.
    """
    resume_plan(SessionFolder.existing(data_dir, session_id))


def resume_plan(folder: SessionFolder, overrides: Sequence[str] = ()) -> ResumePlan:
    """What ``cosci resume`` does to the session in ``folder`` (:data:`ResumePlan`); reads only.

    Raises:
        SessionBusy: it runs in another process and is not paused. CosciError: it is paused in a running process and
            ``overrides`` were given (that process keeps its configuration); it is finished with no provider batch
            outstanding.
    """
    sid = folder.session_id
    with folder.store() as store:
        status = store.sessions.status()
        if folder.is_running():
            if status != "paused":
                raise SessionBusy.of(sid)
            if overrides:
                raise CosciError(f"{sid} is paused in a running process, which continues with its own "
                                 f"configuration; overrides ({' '.join(overrides)}) apply only when resuming a "
                                 "stopped session")
            return "waiting"
        outstanding = bool(store.batches.outstanding())
    if status in FINISHED and not outstanding:
        raise finished_refusal(sid, status)
    return "settle" if status == "done" else "run"


def check_open(session_id: str, status: str, action: str) -> None:
    """Raises CosciError when a finished session is asked to ``action`` (``pause``, ``abort``, ``feedback``)."""
    if status in FINISHED:
        if action == "feedback":
            raise CosciError(f"session {session_id} is {status}; feedback would reach no prompt")
        raise CosciError(f"session {session_id} is {status}; nothing to {action}")


@contextlib.contextmanager
def warnings_said() -> Iterator[None]:
    """The warnings the tools log while a check below runs, on stderr as every cosci warning is said
    (``cosci: warning: ...``): the session's own terminal handler (flows/launch.py) is not installed yet, and
    without one Python's last-resort handler would print the bare message."""
    handler = logging.StreamHandler(sys.stderr)
    handler.setFormatter(logging.Formatter("cosci: warning: %(message)s"))
    handler.setLevel(logging.WARNING)
    logger = logging.getLogger("cosci.tools")
    propagate = logger.propagate
    logger.addHandler(handler)
    logger.propagate = False  # said once, here, not also by a handler a parent logger has
    try:
        yield
    finally:
        logger.removeHandler(handler)
        logger.propagate = propagate


def check_corpus(config: CosciConfig) -> None:
    """Load the local corpus once before anything runs: a bad path or file fails here, in one line (its
    documents' passages are cached, so the session's own load reads them back: design.md#own-documents)."""
    from cosci.tools.corpus import load_corpus

    with warnings_said():
        corpus = load_corpus(config)
    if corpus.skipped:
        print(f"cosci: warning: session.corpus_path: {corpus.skipped} "
              f"{plural(corpus.skipped, 'row')} skipped (not JSON objects with a title or an abstract); "
              f"{len(corpus.records)} {plural(len(corpus.records), 'record')} kept", file=sys.stderr)


def check_skills(path: str) -> None:
    """Scan ``tools.skills_path`` before anything runs: a path that is no folder fails here, in one line."""
    from cosci.tools.skills import discover

    with warnings_said():
        discover(Path(path).expanduser())
