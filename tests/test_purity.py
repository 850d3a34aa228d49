"""Frameworks stay at the edges and the layers point one way (house style "Shape of the tree";
docs/ARCHITECTURE.md "Layers").

The import graph is checked by import-linter's contracts in ``pyproject.toml`` (``lint-imports``, also run by
``make lint``): the layers, no cycles, and prefect / mlflow / litellm / hydra only where they belong. Each contract
is shown to fail on a copy of the tree with one bad import added. A subprocess then checks what importing the core
actually loads (the contracts see direct imports; this sees everything that ends up in ``sys.modules``)."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
FORBIDDEN = frozenset({"prefect", "mlflow", "hydra", "litellm"})
LINT_IMPORTS = Path(sys.executable).with_name("lint-imports")


def lint_imports(tree: Path) -> subprocess.CompletedProcess[str]:
    """``lint-imports`` on the packages under ``tree`` (its ``pyproject.toml``), no cache."""
    env = {**os.environ, "PYTHONPATH": str(tree)}
    return subprocess.run([str(LINT_IMPORTS), "--no-cache", "--no-logo"], cwd=tree, env=env, capture_output=True,
                          text=True, timeout=120)


def test_the_contracts_hold() -> None:
    out = lint_imports(ROOT)
    assert out.returncode == 0, out.stdout + out.stderr
    assert "0 broken" in out.stdout
    for name in ("Layers, entry points down to the domain", "No import cycle", "Prefect only in flows/",
                 "MLflow only in cosci/tracking/", "LiteLLM only in the gateway and providers of cosci/llm/",
                 "The anthropic SDK only in cosci/llm/batches/", "cosci/llm/ layers", "Hydra and OmegaConf",
                 "The MCP SDK only in cosci/tools/mcp_servers.py and cosci/mcp_server.py"):
        assert name in out.stdout


BAD_IMPORTS = [
    ("cosci/agents/ranking.py", "import mlflow", "MLflow only in cosci/tracking/ BROKEN",
     "cosci.agents.ranking -> mlflow"),
    ("cosci/tournament/elo.py", "import prefect", "Prefect only in flows/ BROKEN", "cosci.tournament.elo -> prefect"),
    ("cosci/supervisor/rules.py", "import litellm", "LiteLLM only in the gateway and providers of cosci/llm/ BROKEN",
     "cosci.supervisor.rules -> litellm"),
    ("cosci/llm/port/types.py", "import litellm", "LiteLLM only in the gateway and providers of cosci/llm/ BROKEN",
     "cosci.llm.port.types -> litellm"),
    ("cosci/llm/gateway/adapter.py", "import anthropic", "The anthropic SDK only in cosci/llm/batches/ BROKEN",
     "cosci.llm.gateway.adapter -> anthropic"),
    ("cosci/tools/corpus.py", "import mcp",
     "The MCP SDK only in cosci/tools/mcp_servers.py and cosci/mcp_server.py BROKEN", "cosci.tools.corpus -> mcp"),
    ("cosci/llm/budget/token_budget.py", "import cosci.llm.gateway.adapter",
     "cosci/llm/ layers: batches, gateway, providers, budget, port BROKEN",
     "cosci.llm.budget.token_budget -> cosci.llm.gateway.adapter"),
    ("cosci/agents/base.py", "import omegaconf", "Hydra and OmegaConf only in the entry points and config loading "
     "BROKEN", "cosci.agents.base -> omegaconf"),
    ("cosci/store/db.py", "import cosci.agents.ranking", "Layers, entry points down to the domain "
     "(docs/ARCHITECTURE.md) BROKEN", "cosci.store.db -> cosci.agents.ranking"),
    ("cosci/llm/port/types.py", "import cosci.llm.gateway.adapter", "No import cycle between sibling packages",
     ".port -> .gateway"),
]


@pytest.mark.parametrize(("module", "line", "broken", "named"), BAD_IMPORTS, ids=[b[1] for b in BAD_IMPORTS])
def test_a_bad_import_breaks_a_contract(tmp_path: Path, module: str, line: str, broken: str, named: str) -> None:
    """The acceptance check of issue 18: a copy of the tree with one import added fails ``lint-imports``."""
    for part in ("cosci", "flows"):
        shutil.copytree(ROOT / part, tmp_path / part, ignore=shutil.ignore_patterns("__pycache__"))
    shutil.copy(ROOT / "pyproject.toml", tmp_path / "pyproject.toml")
    path = tmp_path / module
    path.write_text(path.read_text(encoding="utf-8") + f"\n{line}  # noqa\n", encoding="utf-8")
    out = lint_imports(tmp_path)
    assert out.returncode != 0
    assert broken in out.stdout and named in out.stdout, out.stdout


def loaded_frameworks(*modules: str, among: frozenset[str] = FORBIDDEN | {"omegaconf"}) -> set[str]:
    """Frameworks (``among``: by default the forbidden ones and OmegaConf, Hydra's) present in ``sys.modules`` after
    importing ``modules`` afresh."""
    code = ("import json, sys\n" + "".join(f"import {m}\n" for m in modules)
            + "print(json.dumps(sorted({n.split('.')[0] for n in sys.modules})))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True, cwd=ROOT,
                         timeout=120)
    return set(json.loads(out.stdout.strip().splitlines()[-1])) & among


AGENTS = ["cosci.agents.goal_parsing", "cosci.agents.generation", "cosci.agents.reflection", "cosci.agents.ranking",
          "cosci.agents.evolution", "cosci.agents.proximity", "cosci.agents.metareview", "cosci.agents.safety"]


@pytest.fixture(scope="module")
def agents_load() -> set[str]:
    return loaded_frameworks(*AGENTS)


def test_importing_the_tournament_and_the_record_loads_no_framework() -> None:
    core = ["cosci.tournament.elo", "cosci.tournament.pairing", "cosci.tournament.stability",
            "cosci.tournament.verdict", "cosci.store", "cosci.domain", "cosci.records"]
    assert loaded_frameworks(*core) == set()


def test_the_llm_port_and_the_budget_load_no_framework() -> None:
    """What agents call (the port, record calls) and the budget economics import no framework at all."""
    assert loaded_frameworks("cosci.llm.port.types", "cosci.llm.port.structured", "cosci.llm.budget.token_budget",
                             "cosci.llm.budget.admission", "cosci.llm.budget.sizing", "cosci.llm.errors") == set()


def test_importing_the_agents_loads_no_litellm_prefect_or_mlflow(agents_load: set[str]) -> None:
    assert agents_load - {"hydra", "omegaconf"} == set()


def test_importing_the_agents_loads_no_hydra(agents_load: set[str]) -> None:
    assert agents_load == set()


def test_the_entry_point_and_the_sweep_callback_load_no_mlflow_or_prefect() -> None:
    """MLflow loads only when a run is tracked, Prefect only when a session runs (issue 18: ``sweep.py`` is the
    Hydra callback of every run)."""
    assert loaded_frameworks("cosci.run", "cosci.sweep") & {"mlflow", "prefect"} == set()


def test_the_command_line_loads_no_renderer_tracker_or_flow_at_start_up() -> None:
    """``cosci list`` / ``cosci status`` start light: the status and report lines (``cosci/session/status.py``) and
    the report's file endings (``cosci/report/formats.py``) import no Jinja, matplotlib, MLflow, Prefect or LiteLLM;
    the commands that need one import it when they run."""
    heavy = frozenset({"jinja2", "matplotlib", "mlflow", "prefect", "litellm"})
    assert loaded_frameworks("cosci.cli", among=heavy) == set()
