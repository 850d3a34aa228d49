"""YAML files parsed once and kept in the user cache, keyed by their text (docs/design.md#startup, "The safety
files' YAML is parsed once").

The offline screen's gloss (``conf/safety_gloss.yaml``, ~260 KB) and term lists (``conf/safety_prescreen.yaml``,
~160 KB) took ~0.7 s of CPU to parse with PyYAML's pure-Python loader, in every session process before its first
call and again in its screen worker. :func:`load` returns what ``yaml.safe_load`` returns for a file's text: from
``<user cache>/cosci/yaml/<sha256>.pickle`` when a file of the same text was parsed before (~2 ms), else parsed with
libyaml's ``CSafeLoader`` (PyYAML's own C binding, ~0.05 s; the pure loader where PyYAML was built without it: both
use the same resolver and constructors, so the data is the same) and kept.

The key is the sha256 of the text (as ``Path.read_text`` decodes it), PyYAML's version and the Python version
(pickle's format): an edited file is parsed anew, and so is every file under another PyYAML or Python. A cache
file that cannot be read (truncated, corrupt, another format) is parsed again and replaced, with one ``cosci``
log line; one that cannot be written only means parsing next time too. At most :data:`MAX_FILES` kept, the oldest
go first.
"""

from __future__ import annotations

import contextlib
import hashlib
import logging
import os
import pickle
import sys
import tempfile
from pathlib import Path
from typing import Any

import yaml

log = logging.getLogger("cosci.parsed")

MAX_FILES = 64
"""Parsed files kept (a tree's safety files and catalogue are about a dozen; other trees and edits add more)."""

LOADER: Any = getattr(yaml, "CSafeLoader", yaml.SafeLoader)
"""libyaml's safe loader when PyYAML has it (``yaml.__with_libyaml__``), else the pure-Python one."""


def cache_dir() -> Path:
    """``<user cache>/cosci/yaml`` (platformdirs; ``XDG_CACHE_HOME`` on Linux)."""
    from platformdirs import user_cache_path

    return user_cache_path("cosci") / "yaml"


def cache_key(text: str) -> str:
    """The hex sha256 of ``text``, PyYAML's version and the Python version."""
    head = f"{yaml.__version__}|{sys.version_info[0]}.{sys.version_info[1]}|".encode()
    return hashlib.sha256(head + text.encode("utf-8", "surrogatepass")).hexdigest()


def load(path: Path) -> Any:
    """What ``yaml.safe_load(path.read_text(encoding="utf-8"))`` returns, parsed once per text (module docstring).

    Raises:
        OSError: ``path`` cannot be read. UnicodeDecodeError: it is not UTF-8. yaml.YAMLError: it is not YAML.
    """
    text = path.read_text(encoding="utf-8")
    kept = cache_dir() / f"{cache_key(text)}.pickle"
    try:
        raw = kept.read_bytes()
    except OSError:  # not kept yet (or no cache folder to read): parsed below
        raw = None
    if raw is not None:
        try:
            return pickle.loads(raw)  # the user's own cache, written by this module
        except Exception as exc:  # any unreadable cache file is parsed again (pickle raises many kinds)
            log.warning("the parsed copy of %s in the cache was unreadable (%s): parsed again", path.name,
                        type(exc).__name__)
    data = yaml.load(text, Loader=LOADER)  # a safe loader (CSafeLoader or SafeLoader)
    _write(kept, data)
    return data


def _write(path: Path, data: Any) -> None:
    with contextlib.suppress(OSError, pickle.PicklingError):
        path.parent.mkdir(parents=True, exist_ok=True)
        fd, tmp = tempfile.mkstemp(dir=path.parent, suffix=".tmp")
        try:
            with os.fdopen(fd, "wb") as fh:
                pickle.dump(data, fh, protocol=pickle.HIGHEST_PROTOCOL)
            os.replace(tmp, path)
        finally:
            Path(tmp).unlink(missing_ok=True)
        old = sorted(path.parent.glob("*.pickle"), key=lambda p: p.stat().st_mtime, reverse=True)[MAX_FILES:]
        for stale in old:
            stale.unlink(missing_ok=True)


__all__ = ["LOADER", "MAX_FILES", "cache_dir", "cache_key", "load"]
