"""The session service: cosci as plain Python, the one door every entry point goes through (design.md#service).

Start a session (each step a typed result; nothing is written before :func:`run`)::

    from cosci import api
    prepared = api.prepare("Why do AML blasts resist cytarabine?", ["experiment=demo", "models=fake"])
    checked = api.preflight(prepared)        # every pre-flight rule; checked.notices: lines to say
    summary = api.run(checked)               # the Prefect flow runs it to its end (SessionSummary)

Work on an existing session::

    session = api.open(summary.session_id)
    session.leaderboard().ranked[0]          # best first: BT score (logits) with its 95 % interval, Elo
    session.rate("H-...", "H-...", prefer="a")
    session.result("H-...", "refuted", notes="...")
    session.status(), session.report(), session.feedback(...), session.pause(), session.resume(), session.abort()

The ``cosci`` command line, ``python -m cosci.run`` (and its sweeps), ``cosci resume``, ``cosci eval`` and
``cosci serve`` call this service; the pre-flight rules are :mod:`cosci.session.preflight`'s, defined once. Errors
are cosci's one-line exceptions (:class:`~cosci.errors.CosciError`, :class:`~cosci.config.load.ConfigError`,
:class:`~cosci.errors.GoalRefused`). Importing this package loads no framework; Prefect and MLflow load at
:func:`run`.
"""

from cosci.api.session import FEEDBACK_KINDS, Recorded, Resumed, Session, Status, data_folder, open
from cosci.api.start import Checked, Prepared, preflight, prepare, run, start

__all__ = ["FEEDBACK_KINDS", "Checked", "Prepared", "Recorded", "Resumed", "Session", "Status", "data_folder", "open",
           "preflight", "prepare", "run", "start"]
