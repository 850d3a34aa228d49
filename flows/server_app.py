"""The app factory cosci's temporary Prefect server runs (``uvicorn --factory flows.server_app:create_app``,
:class:`flows.server.TemporaryServer`): Prefect's own ``prefect.server.api.server:create_app``, built with Python's
cyclic garbage collector paused (design.md#startup).

The server's start is mostly imports and the FastAPI app's construction (Prefect's server modules, SQLAlchemy, the
API's pydantic schemas and routes): millions of long-lived objects and little cyclic garbage, over which the
collector's passes were CPU spent on nothing, as in the session process (:func:`cosci.startup.pause_collector`).
Once the app is built, the objects alive are moved to the permanent generation (:func:`gc.freeze`: later full
passes of the long-running server no longer walk them) and the collector is enabled again, before the app's
lifespan (database, services) starts. A collector turned off by someone else stays off.

This module imports nothing at its top but the standard library, so uvicorn finds it before Prefect loads.
"""

from __future__ import annotations

import gc
from typing import Any


def create_app() -> Any:
    """Prefect's server app (``prefect.server.api.server.create_app()``, which reads its settings from the
    environment :class:`flows.server.TemporaryServer` gives the process), built with the collector paused.

    Returns:
        The FastAPI application uvicorn serves.
    """
    paused = gc.isenabled()
    gc.disable()
    try:
        from prefect.server.api.server import create_app as prefect_app

        return prefect_app()
    finally:
        if paused:
            gc.freeze()
            gc.enable()
