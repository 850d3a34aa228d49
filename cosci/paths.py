"""Where cosci's shipped files live: ``conf/`` and ``prompts/``.

In a source checkout (``pip install -e .``) they are the repository's top-level folders; in a built wheel they
are packaged under ``cosci/_data/`` (see ``[tool.hatch.build.targets.wheel.force-include]``). Both layouts are
found without configuration.
"""

from __future__ import annotations

import contextlib
import os
import sqlite3
import tempfile
from pathlib import Path
from typing import Any

from cosci.errors import DataDirUnusable

_PACKAGE = Path(__file__).resolve().parent


def _shipped(name: str) -> Path:
    for candidate in (_PACKAGE / "_data" / name, _PACKAGE.parent / name):
        if candidate.is_dir():
            return candidate
    raise FileNotFoundError(
        f"cosci's '{name}' folder is missing (looked in {_PACKAGE / '_data'} and {_PACKAGE.parent})"
    )


def conf_dir() -> Path:
    """Absolute path of the Hydra config tree (``conf/``)."""
    return _shipped("conf")


def prompts_dir() -> Path:
    """Absolute path of the Jinja2 prompt templates (``prompts/``)."""
    return _shipped("prompts")


def moose_chem_dir() -> Path:
    """Absolute path of the vendored MOOSE-Chem benchmark data (``bench/data/moose_chem/`` in a checkout,
    ``cosci/_data/moose_chem/`` in a wheel)."""
    for candidate in (_PACKAGE / "_data" / "moose_chem", _PACKAGE.parent / "bench" / "data" / "moose_chem"):
        if candidate.is_dir():
            return candidate
    raise FileNotFoundError(f"the MOOSE-Chem data is missing (looked in {_PACKAGE / '_data'} and "
                            f"{_PACKAGE.parent / 'bench' / 'data'})")


def writable_data_dir(path: Path) -> Path:
    """Check, leaving nothing behind, that ``path`` is a folder cosci can write in or can create in an existing
    folder (a data folder whose parent does not exist either is a mistyped path, refused as ``cosci serve
    --data-dir`` refuses it): a probe folder is made (and removed) in its nearest existing ancestor. Used before a
    session starts, so a wrong data folder fails in one line and leaves nothing behind.

    Returns:
        The absolute path.

    Raises:
        DataDirUnusable: one line naming ``paths.data_dir``, the folder and the reason.
    """
    path = Path(path).expanduser().resolve()
    existing = next(p for p in (path, *path.parents) if p.exists())
    reason = ""
    if existing not in (path, path.parent):  # as `cosci serve --data-dir`: a mistyped path is not made
        reason = f"neither it nor {path.parent} exists (a mistyped path?)"
    elif not existing.is_dir():
        reason = f"{existing} is not a folder"
    else:
        try:  # a real probe: os.access says yes to root even where nothing can be created (/proc)
            os.rmdir(tempfile.mkdtemp(prefix=".cosci-probe-", dir=existing))
        except OSError as exc:
            reason = f"cannot create anything in {existing} ({exc.strerror or type(exc).__name__})"
    if reason:
        env = os.environ.get("COSCI_DATA_DIR")
        source = " (from COSCI_DATA_DIR)" if env and Path(env).expanduser().resolve() == path else ""
        raise DataDirUnusable(f"paths.data_dir{source}: cannot use {path}: {reason} (pick a folder you can write: "
                              "paths.data_dir=$HOME/cosci-data on `python -m cosci.run`, --data-dir on a `cosci` "
                              "command, or COSCI_DATA_DIR for both)")
    return path


def template_cache(kind: str, package: str, name: str) -> Path:
    """Where the per-user copy of a freshly migrated SQLite database is kept: one per ``package`` version
    (``<user cache>/cosci/<kind>/<version>/<name>``, through platformdirs). Used by the Prefect server
    (``flows.server``) and the MLflow store (``cosci.tracking.stores``): a new data folder starts from a copy
    instead of migrating an empty database again (design.md#store, fast start)."""
    from importlib.metadata import version

    from platformdirs import user_cache_path

    return user_cache_path("cosci") / kind / version(package) / name


def jinja_bytecode(kind: str) -> Any:
    """A Jinja2 bytecode cache at ``<user cache>/cosci/jinja/<kind>`` (platformdirs; ``XDG_CACHE_HOME`` on Linux),
    or None when that folder cannot be made. Compiling the report page's templates took about 70 ms of CPU in every
    `cosci rate` and `cosci result` (design.md#startup); Jinja keys each entry by the template's name and checks its
    source's checksum and Jinja's own bytecode version, so an edited template or another Jinja compiles anew. A
    cache file that cannot be written is skipped (the template was compiled anyway)."""
    from jinja2 import FileSystemBytecodeCache
    from platformdirs import user_cache_path

    class Quiet(FileSystemBytecodeCache):
        def dump_bytecode(self, bucket: Any) -> None:
            with contextlib.suppress(OSError):
                super().dump_bytecode(bucket)

    folder = user_cache_path("cosci") / "jinja" / kind
    try:
        folder.mkdir(parents=True, exist_ok=True)
    except OSError:
        return None
    return Quiet(str(folder))


def copy_sqlite(src: Path, dst: Path) -> None:
    """Copy a SQLite database consistently (SQLite's backup API), replacing ``dst`` atomically.

    Raises:
        sqlite3.Error, OSError: the source cannot be read or the destination written.
    """
    dst.parent.mkdir(parents=True, exist_ok=True)
    for stale in dst.parent.glob(f".{dst.name}.*.tmp"):  # a copy whose process was killed (SIGKILL at start-up)
        pid = stale.name.removeprefix(f".{dst.name}.").removesuffix(".tmp")
        if pid.isdigit() and not _alive(int(pid)):
            stale.unlink(missing_ok=True)
    tmp = dst.with_name(f".{dst.name}.{os.getpid()}.tmp")
    try:
        with contextlib.closing(sqlite3.connect(src)) as a, contextlib.closing(sqlite3.connect(tmp)) as b:
            a.backup(b)
        os.replace(tmp, dst)
    finally:
        tmp.unlink(missing_ok=True)


def _alive(pid: int) -> bool:
    """Whether a process ``pid`` runs on this machine (a signal 0 reaches it, or it is another user's)."""
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True
