"""Where cosci's shipped files live: ``conf/`` and ``prompts/``.

In a source checkout (``pip install -e .``) they are the repository's top-level folders; in a built wheel they
are packaged under ``cosci/_data/`` (see ``[tool.hatch.build.targets.wheel.force-include]``). Both layouts are
found without configuration.
"""

from __future__ import annotations

from pathlib import Path

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
