"""Frameworks stay at the edges (house style "Shape of the tree"): the science core imports no prefect,
mlflow, hydra or litellm. The AST of every core module is walked for ``import``/``from`` statements and
dynamic imports; a subprocess then checks what importing the core actually loads."""

from __future__ import annotations

import ast
import json
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
FORBIDDEN = frozenset({"prefect", "mlflow", "hydra", "litellm"})
PKG = ROOT / "cosci"
CORE = sorted([*(PKG / "agents").glob("*.py"), *(PKG / "tournament").glob("*.py"),
               *(PKG / "store").glob("*.py"), PKG / "domain.py", PKG / "records.py"])


def imported_roots(source: str) -> set[str]:
    """Top-level packages a module imports: statements, ``importlib.import_module``, ``__import__``."""
    roots: set[str] = set()
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Import):
            roots.update(alias.name.split(".")[0] for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            roots.add(node.module.split(".")[0])
        elif isinstance(node, ast.Call) and node.args and isinstance(node.args[0], ast.Constant):
            func = node.func
            name = func.attr if isinstance(func, ast.Attribute) else getattr(func, "id", "")
            if name in ("import_module", "__import__") and isinstance(node.args[0].value, str):
                roots.add(node.args[0].value.split(".")[0])
    return roots


def test_the_checker_sees_every_kind_of_import() -> None:
    source = ("import litellm\nfrom prefect.tasks import task\nimport os, mlflow.tracking as m\n"
              "def f():\n    import hydra\n    importlib.import_module('litellm.utils')\n"
              "    __import__('mlflow')\nfrom . import sibling\n")
    assert imported_roots(source) == {"litellm", "prefect", "os", "mlflow", "hydra"}


def test_the_core_walk_covers_the_packages() -> None:
    names = {p.relative_to(ROOT).as_posix() for p in CORE}
    assert {"cosci/agents/ranking.py", "cosci/tournament/elo.py", "cosci/store/matches.py", "cosci/domain.py",
            "cosci/records.py"} <= names
    assert len(CORE) >= 20


@pytest.mark.parametrize("path", CORE, ids=lambda p: p.relative_to(ROOT).as_posix())
def test_no_core_module_imports_a_framework(path: Path) -> None:
    assert imported_roots(path.read_text(encoding="utf-8")) & FORBIDDEN == set()


def loaded_frameworks(*modules: str) -> set[str]:
    """Frameworks (and OmegaConf, Hydra's) present in ``sys.modules`` after importing ``modules`` afresh."""
    code = ("import json, sys\n" + "".join(f"import {m}\n" for m in modules)
            + "print(json.dumps(sorted({n.split('.')[0] for n in sys.modules})))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True, cwd=ROOT,
                         timeout=120)
    return set(json.loads(out.stdout.strip().splitlines()[-1])) & (FORBIDDEN | {"omegaconf"})


AGENTS = ["cosci.agents.goal", "cosci.agents.generation", "cosci.agents.reflection", "cosci.agents.ranking",
          "cosci.agents.evolution", "cosci.agents.proximity", "cosci.agents.metareview", "cosci.agents.safety"]


@pytest.fixture(scope="module")
def agents_load() -> set[str]:
    return loaded_frameworks(*AGENTS)


def test_importing_the_tournament_and_the_record_loads_no_framework() -> None:
    core = ["cosci.tournament.elo", "cosci.tournament.pairing", "cosci.tournament.stability",
            "cosci.tournament.verdict", "cosci.store", "cosci.domain", "cosci.records"]
    assert loaded_frameworks(*core) == set()


def test_importing_the_agents_loads_no_litellm_prefect_or_mlflow(agents_load: set[str]) -> None:
    assert agents_load - {"hydra", "omegaconf"} == set()


def test_importing_the_agents_loads_no_hydra(agents_load: set[str]) -> None:
    assert agents_load == set()
