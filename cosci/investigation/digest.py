"""Program trees by content: sha256 per file, symlinks refused (docs/design.md#investigation).

Selection must not be fooled by a tree that points elsewhere: a tree holding a symlink (or anything but regular
files and folders) has no digest, so it can be neither evaluated nor chosen as a worker's best program.
"""

from __future__ import annotations

import hashlib
import os
import stat
from pathlib import Path

SKIPPED = ("__pycache__",)
"""Folders left out of a digest (interpreter caches, not sources)."""


class UnsafeTree(ValueError):
    """A program tree holds a symlink or a special file; the message names it."""


def file_digests(root: Path) -> dict[str, str]:
    """``{relative path: sha256 hex}`` of every regular file under ``root``, sorted by path.

    Raises:
        UnsafeTree: a symlink, device, FIFO or socket anywhere under ``root`` (or ``root`` itself a symlink).
    """
    if root.is_symlink():
        raise UnsafeTree(f"the program folder {root.name} is a symlink")
    out: dict[str, str] = {}
    for folder, dirs, files in os.walk(root, followlinks=False):
        dirs[:] = sorted(d for d in dirs if d not in SKIPPED)
        for name in [*dirs, *files]:
            path = Path(folder) / name
            mode = os.lstat(path).st_mode
            rel = path.relative_to(root).as_posix()
            if stat.S_ISLNK(mode):
                raise UnsafeTree(f"symlink in the program tree: {rel} -> {os.readlink(path)}")
            if not (stat.S_ISREG(mode) or stat.S_ISDIR(mode)):
                raise UnsafeTree(f"not a regular file in the program tree: {rel}")
            if stat.S_ISREG(mode):
                out[rel] = hashlib.sha256(path.read_bytes()).hexdigest()
    return dict(sorted(out.items()))


def tree_digest(root: Path) -> str:
    """One sha256 over :func:`file_digests` (paths and contents). Raises UnsafeTree like it."""
    body = "\n".join(f"{k}\t{v}" for k, v in file_digests(root).items())
    return hashlib.sha256(body.encode()).hexdigest()


def same_program(a: Path, b: Path) -> bool:
    """Whether two trees hold the same files with the same contents (False if either is unsafe)."""
    try:
        return file_digests(a) == file_digests(b)
    except UnsafeTree:
        return False
