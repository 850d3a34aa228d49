"""The offline screen's regular expressions compiled once and kept in the user cache (docs/design.md#startup, "The
screen's patterns are compiled once").

Building the screen compiles about 2,000 Python regular expressions (the term lists, their alternations, the
gloss): ~1.2 s of CPU of its ~1.6 s build on this machine, paid by every session process at start-up and again by
its screen worker. Python keeps a compiled pattern only in its own process, so :func:`compiled_once` keeps what
compiling produces: for each pattern text and flags, the program CPython's ``re._compiler`` computes (its opcodes,
flags and groups), in ``<user cache>/cosci/screen/<sha256>.pickle``, and a later build makes each pattern from that
program (``_sre.compile``, what ``re._compiler.compile`` itself ends with) instead of parsing and compiling it again.

Identical patterns: an entry is keyed by the pattern's text and flags, of which the program is a pure function for
one CPython (``sys.version``, ``_sre.MAGIC`` and ``_sre.CODESIZE`` are in the file's key, so another Python reads
another file). The file's key also holds the term and gloss files and the screen's source, only so that one tree's
build reads one file of the patterns it uses (a changed list writes a new one; at most :data:`MAX_FILES` kept, the
oldest go first). A file that cannot be read or written, or a Python whose ``re`` internals differ, only means
compiling as before.
"""

from __future__ import annotations

import _sre
import contextlib
import hashlib
import os
import pickle
import sys
import tempfile
from collections.abc import Iterator
from pathlib import Path
from typing import Any

MAX_FILES = 16
"""Cache files kept (one per tree's term lists; about 4 MB each)."""

Program = tuple[int, list[int], int, dict[str, int], tuple[str | None, ...]]
"""What ``_sre.compile`` takes after the pattern: flags, opcodes, groups, the group index both ways."""


def cache_dir() -> Path:
    """``<user cache>/cosci/screen`` (platformdirs; ``XDG_CACHE_HOME`` on Linux)."""
    from platformdirs import user_cache_path

    return user_cache_path("cosci") / "screen"


def cache_key(*inputs: str) -> str:
    """The hex sha256 of this CPython's regular-expression engine, the ``inputs`` files' bytes (each a path, or a
    name under ``conf/``; a missing one counts as its name) and the source of ``cosci/safety``'s modules."""
    from cosci.paths import conf_dir

    digest = hashlib.sha256(f"{sys.version}|{_sre.MAGIC}|{_sre.CODESIZE}".encode())
    files = [Path(f) if Path(f).is_absolute() else conf_dir() / f for f in inputs]
    for path in [*files, *sorted(Path(__file__).parent.glob("*.py"))]:
        try:
            digest.update(path.read_bytes())
        except OSError:
            digest.update(str(path).encode())
    return digest.hexdigest()


def program(pattern: str, flags: int) -> Program:
    """The program ``re._compiler.compile(pattern, flags)`` hands to ``_sre.compile`` (CPython 3.11-3.13).

    Raises:
        re.error: ``pattern`` is not a valid pattern (as :func:`re.compile` raises it).
    """
    from re import _compiler, _parser  # type: ignore[attr-defined]

    parsed = _parser.parse(pattern, flags)
    code = _compiler._code(parsed, flags)
    groupindex = dict(parsed.state.groupdict)
    indexgroup: list[str | None] = [None] * parsed.state.groups
    for name, i in groupindex.items():
        indexgroup[i] = name
    return int(flags | parsed.state.flags), [int(c) for c in code], parsed.state.groups - 1, groupindex, \
        tuple(indexgroup)


def _readable() -> bool:
    """Whether this Python's ``re`` has the internals :func:`program` reads."""
    try:
        from re import _compiler, _parser  # type: ignore[attr-defined]
    except ImportError:
        return False
    return all(hasattr(m, a) for m, a in ((_compiler, "compile"), (_compiler, "_code"), (_parser, "parse"),
                                            (_compiler, "SRE_FLAG_DEBUG")))


def _read(path: Path) -> dict[tuple[str, int], Program]:
    try:
        with path.open("rb") as fh:
            table = pickle.load(fh)  # the user's own cache, written by this module
    except (OSError, EOFError, pickle.UnpicklingError, AttributeError, ValueError, TypeError):
        return {}
    return table if isinstance(table, dict) else {}


def _write(path: Path, table: dict[tuple[str, int], Program]) -> None:
    with contextlib.suppress(OSError):
        path.parent.mkdir(parents=True, exist_ok=True)
        fd, tmp = tempfile.mkstemp(dir=path.parent, suffix=".tmp")
        with os.fdopen(fd, "wb") as fh:
            pickle.dump(table, fh, protocol=pickle.HIGHEST_PROTOCOL)
        os.replace(tmp, path)
        old = sorted(path.parent.glob("*.pickle"), key=lambda p: p.stat().st_mtime, reverse=True)[MAX_FILES:]
        for stale in old:
            stale.unlink(missing_ok=True)


@contextlib.contextmanager
def compiled_once(*inputs: str) -> Iterator[None]:
    """Within the block, every ``re.compile`` of a new pattern (text) in this process is made from the program kept
    for it in the cache file of ``inputs`` (:func:`cache_key`), computed and kept when missing (module docstring).
    The file is written when the block compiled a pattern it did not hold, with the patterns the block used. Other
    threads compiling meanwhile get the same patterns (a program is a function of the pattern's text and flags)."""
    from re import _compiler  # type: ignore[attr-defined]

    if not _readable() or _compiler.compile.__module__ != _compiler.__name__:  # another block is open: it serves
        yield
        return
    path = cache_dir() / f"{cache_key(*inputs)}.pickle"
    table = _read(path)
    used: dict[tuple[str, int], Program] = {}
    original = _compiler.compile

    def compile_kept(p: Any, flags: int = 0) -> Any:
        if not isinstance(p, str) or flags & _compiler.SRE_FLAG_DEBUG:
            return original(p, flags)
        key = (p, int(flags))
        kept = table.get(key) or program(p, int(flags))
        used[key] = kept
        return _sre.compile(p, *kept)

    _compiler.compile = compile_kept
    try:
        yield
    finally:
        _compiler.compile = original
    if used.keys() - table.keys():
        _write(path, used)


__all__ = ["MAX_FILES", "cache_dir", "cache_key", "compiled_once", "program"]
