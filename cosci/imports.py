"""Imports that must be complete before another thread can start them (docs/design.md#threads).

scikit-learn (1.6 and later) looks up ``sys.modules["polars"]`` (and pandas, pyarrow) on every fit and transform
and reads ``polars.DataFrame`` from whatever it finds. The session's MLflow tracker imports cosci.tracking, and so
polars, in its own worker thread (flows/tracker.py) while the first tasks run; a fit in that window finds a partly
initialised polars and raises ``AttributeError: partially initialized module 'polars' has no attribute
'DataFrame'``. Importing the module in the calling thread first waits for the other thread's import to finish
(Python's per-module import lock), so every user of scikit-learn calls :func:`scikit_learn_ready` before it.
"""

from __future__ import annotations

import functools


@functools.cache
def scikit_learn_ready() -> None:
    """Make sure the data-frame libraries scikit-learn probes are fully imported in this process (once; about
    1 s the first time, nothing after). pandas and pyarrow come with scikit-learn's own import; polars does not."""
    import polars  # noqa: F401
