"""Bradley–Terry fits kept in the user cache, keyed by the hash of their inputs (design.md#startup).

A researcher command on a stopped session fits the same data again and again: ``cosci status`` and ``cosci report``
the judge statistics' held-out fits, ``cosci rate`` and ``cosci result`` the refit of the standing and the report
page's judge-only fit for the researcher's agreement. Each is a pure function of its inputs (the ``eb_is`` draws are
seeded from the verdicts), so :func:`cached_fit` keeps each fit as a file
``<user cache>/cosci/fits/<sha256>.pickle`` and a later call with the same inputs reads it instead of fitting
(0.5-2 s of CPU and scipy's import, per fit, on a 4-10-hypothesis session).

The key covers the fitting function's qualified name, its arguments, the source of the modules that compute a fit
(``bt.py``, ``bt_model.py``, ``bt_solve.py``, ``importance.py``, ``rerun.py``) and the numpy and scipy versions: a
change of any of them misses the cache, never reads a stale fit. At most :data:`MAX_FILES` fits are kept (the
oldest go first). A file that cannot be read or written is ignored: the fit is made as before.
"""

from __future__ import annotations

import functools
import hashlib
import json
import os
import pickle
import tempfile
from collections.abc import Callable, Hashable, Sequence
from importlib.metadata import PackageNotFoundError, version
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from cosci.tournament.bt import BTFit, Verdict

MAX_FILES = 512
"""Fits kept in the cache (a 10-hypothesis fit is about 3 KB; a 1,000-hypothesis one about 16 MB, rarely repeated)."""
CODE = ("bt.py", "bt_model.py", "bt_solve.py", "importance.py", "rerun.py")
"""The modules whose source is part of the key: the ones that compute a fit."""


def cache_dir() -> Path:
    """``<user cache>/cosci/fits`` (platformdirs; ``XDG_CACHE_HOME`` on Linux)."""
    from platformdirs import user_cache_path

    return user_cache_path("cosci") / "fits"


@functools.cache
def code_version() -> str:
    """The sha256 of the fitting modules' source and the numpy and scipy versions (module docstring)."""
    digest = hashlib.sha256()
    here = Path(__file__).parent
    for name in CODE:
        digest.update((here / name).read_bytes())
    for package in ("numpy", "scipy"):
        try:
            digest.update(f"{package} {version(package)}".encode())
        except PackageNotFoundError:
            digest.update(package.encode())
    return digest.hexdigest()


def fit_key(fn: Callable[..., Any], ids: Sequence[str], verdicts: Sequence[Verdict], prior_sd: float,
            judges: Sequence[Hashable] | None, first: Sequence[str | None] | None, method: str) -> str:
    """The cache key (hex sha256) of ``fn(ids, verdicts, prior_sd, judges=..., first=..., method=...)``."""
    args = [code_version(), f"{fn.__module__}.{fn.__qualname__}", list(ids), [list(v) for v in verdicts],
            float(prior_sd), None if judges is None else [repr(j) for j in judges],
            None if first is None else list(first), method]
    return hashlib.sha256(json.dumps(args, separators=(",", ":")).encode()).hexdigest()


def cached_fit(fn: Callable[..., BTFit], ids: Sequence[str], verdicts: Sequence[Verdict], prior_sd: float, *,
               judges: Sequence[Hashable] | None = None, first: Sequence[str | None] | None = None,
               method: str = "eb_is", workers: int = 1) -> BTFit:
    """``fn(ids, verdicts, prior_sd, judges=judges, first=first, method=method)`` (``judges`` passed only when
    given; ``workers`` too, when not 1: how the fit is computed, not part of the key), read from the cache when the
    same inputs were fitted before, else fitted and kept.

    ``fn`` is :func:`cosci.tournament.bt.fit_bt` (or a stand-in with its signature: its qualified name is part of the
    key, so a test's stand-in never fills the cache for the real one).
    """
    path = cache_dir() / f"{fit_key(fn, ids, verdicts, prior_sd, judges, first, method)}.pickle"
    try:
        with path.open("rb") as fh:
            return pickle.load(fh)  # type: ignore[no-any-return]  # the user's own cache, written below
    except (OSError, EOFError, pickle.UnpicklingError, AttributeError, ImportError, TypeError, ValueError):
        pass
    extra: dict[str, Any] = {} if judges is None else {"judges": judges}
    if workers != 1:
        extra["workers"] = workers
    fit = fn(ids, verdicts, prior_sd, first=first, method=method, **extra)
    _keep(path, fit)
    return fit


def _keep(path: Path, fit: BTFit) -> None:
    """Write ``fit`` to ``path`` atomically (a temporary file renamed); once the files are over :data:`MAX_FILES`,
    drop the oldest down to an eighth below it. The files are counted by name and their times read only then: on a
    full cache, globbing 512 files and reading their times took 10-22 ms (load 10; counting them 0.4 ms) of every
    fit kept, finalisation's among them, which the session's overview waits for (bench/README.md, "Seventh pass").
    Any OSError leaves the cache as it was."""
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        fd, tmp = tempfile.mkstemp(dir=path.parent, suffix=".tmp")
        with os.fdopen(fd, "wb") as fh:
            pickle.dump(fit, fh, protocol=pickle.HIGHEST_PROTOCOL)
        os.replace(tmp, path)
        with os.scandir(path.parent) as entries:
            names = [e.path for e in entries if e.name.endswith(".pickle")]
        if len(names) <= MAX_FILES:
            return
        files = sorted(names, key=lambda p: os.stat(p).st_mtime)
        for old in files[:len(files) - (MAX_FILES - MAX_FILES // 8)]:
            Path(old).unlink(missing_ok=True)
    except OSError:
        return


__all__ = ["MAX_FILES", "cache_dir", "cached_fit", "code_version", "fit_key"]
