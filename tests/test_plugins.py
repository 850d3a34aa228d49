"""Extension points by entry points (docs/plugins.md, design.md#plugins): a throwaway plugin package, built and
installed with pip in the test's folder, adds a literature tool and a model catalogue that a real fake session
(``python -m cosci.run ... models=fake``) finds, offers, calls and routes to, and a sandbox backend that
``cosci investigate check`` runs the task's programs in; a bad plugin is one warning line and is skipped;
validating a config imports no tool or sandbox code (the declarations are data)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from cosci.config.load import ConfigError, compose, validate
from cosci.plugins import GROUPS
from cosci.store import STORE_FILE, SessionStore

ROOT = Path(__file__).resolve().parents[1]
TOOL = "plugin_echo_search"
MODEL = "cosci-fake/plugin-strong"

TOOL_MODULE = '''
import os

from cosci.llm.port.types import ToolSpec
from cosci.tools.common import LiteratureHit, SearchTool, search_parameters


class EchoSearch(SearchTool):
    spec = ToolSpec(name="plugin_echo_search", description="A plugin's search: one paper per query.",
                    parameters=search_parameters("Anything."))
    label = "Echo"
    network = False

    async def search(self, query, max_results):
        with open(os.environ["PLUGIN_LOG"], "a", encoding="utf-8") as log:
            log.write(query + "\\n")
        return [LiteratureHit(id="7", id_label="ECHO", title=f"On {query}",
                              url="https://echo.example/paper/7", abstract=query)], 1, ""


def build(ctx):
    return EchoSearch(default_max_results=ctx.max_results, offline=ctx.offline)
'''
TOOLS_YAML = f'''
{TOOL}:
  rank: 5                       # before every shipped search: the fake searches it first
  build: cosci_demo_plugin.search:build
  url_forms:
    - {{kind: ECHO, pattern: 'echo\\.example/paper/(?P<id>\\d+)'}}
'''
CATALOGUE_YAML = f'''
provider: cosci-fake
host: in-process
models:
  {MODEL}:
    thinking: "off"
    input_usd_per_mtok: 7.0
    output_usd_per_mtok: 11.0
    typical_output_tokens: 140
    context_window: 64000
    source: {{url: "https://example.org/plugin-catalogue", read: 2026-12-01}}
'''
SANDBOX_MODULE = '''
import os

from cosci.sandbox.bwrap import BACKEND as BWRAP, Isolation


class Logged:
    """Bubblewrap, with every command line it builds written to $PLUGIN_LOG."""

    def probe(self):
        found = BWRAP.probe()
        return None if found is None else Isolation("logged", found.version)

    def command(self, mounts, argv, *, cwd, env, tmp_bytes=0):
        with open(os.environ["PLUGIN_LOG"], "a", encoding="utf-8") as log:
            log.write("sandbox " + " ".join(argv) + "\\n")
        return BWRAP.command(mounts, argv, cwd=cwd, env=env, tmp_bytes=tmp_bytes)


BACKEND = Logged()
'''


def _install(tmp_path: Path, name: str, files: dict[str, str], entry_points: dict[str, str]) -> Path:
    """Build and install the package ``name`` (setuptools, no network) into ``<tmp>/site``; returns that folder."""
    src = tmp_path / f"src_{name}"
    for rel, text in files.items():
        (src / rel).parent.mkdir(parents=True, exist_ok=True)
        (src / rel).write_text(textwrap.dedent(text), encoding="utf-8")
    groups = "\n".join(f'[project.entry-points."{group}"]\n{value}' for group, value in entry_points.items())
    (src / "pyproject.toml").write_text(textwrap.dedent(f'''
        [build-system]
        requires = ["setuptools>=61"]
        build-backend = "setuptools.build_meta"
        [project]
        name = "{name.replace('_', '-')}"
        version = "0.1"
        [tool.setuptools.packages.find]
        where = ["."]
        [tool.setuptools.package-data]
        "*" = ["*.yaml"]
        ''') + groups + "\n", encoding="utf-8")
    site = tmp_path / "site"
    done = subprocess.run([sys.executable, "-m", "pip", "install", "--no-deps", "--no-build-isolation", "--no-index",
                           "--quiet", "--target", str(site), str(src)], capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr[-2000:]
    return site


@pytest.fixture(scope="module")
def good_plugin(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The throwaway plugin, built and installed once for this module: the folder to put on the path."""
    return _install(tmp_path_factory.mktemp("plugin"), "cosci_demo_plugin", {
        "cosci_demo_plugin/__init__.py": "",
        "cosci_demo_plugin/search.py": TOOL_MODULE,
        "cosci_demo_plugin/tools/tools.yaml": TOOLS_YAML,
        "cosci_demo_plugin/catalogue/plugin.yaml": CATALOGUE_YAML,
        "cosci_demo_plugin/sandbox.py": SANDBOX_MODULE,
        "cosci_demo_plugin/sandboxes/sandboxes.yaml": "logged:\n  build: cosci_demo_plugin.sandbox:BACKEND\n",
    }, {"cosci.tools": "demo = \"cosci_demo_plugin.tools\"",
        "cosci.catalogues": "demo = \"cosci_demo_plugin.catalogue\"",
        "cosci.sandboxes": "demo = \"cosci_demo_plugin.sandboxes\""})


def _env(tmp_path: Path, site: Path | None) -> dict[str, str]:
    path = os.pathsep.join([str(ROOT), *([str(site)] if site else [])])
    return {**os.environ, "PYTHONPATH": path, "COSCI_DATA_DIR": str(tmp_path / "data"),
            "PLUGIN_LOG": str(tmp_path / "plugin_calls.txt")}


def _python(code: str, env: dict[str, str], cwd: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-c", code], env=env, cwd=cwd, capture_output=True, text=True, timeout=300)


# The fake's strong tier takes every fact from the plugin's catalogue: the preset's own facts are deleted.
PLUGIN_TIER = [f"models.tiers.strong.model={MODEL}", "~models.tiers.strong.thinking",
               "~models.tiers.strong.input_usd_per_mtok", "~models.tiers.strong.output_usd_per_mtok",
               "~models.tiers.strong.typical_output_tokens"]


@pytest.mark.slow
def test_a_plugin_adds_a_tool_and_a_catalogue_a_fake_session_uses(tmp_path: Path, good_plugin: Path,
                                                                  prefect_api_url: str) -> None:
    site = good_plugin
    shared = {"PREFECT_API_URL": prefect_api_url}  # the worker's server: no boot of its own (docs/design.md#tests)
    calls = tmp_path / "calls.jsonl"
    args = [sys.executable, "-m", "cosci.run", "experiment=demo", "models=fake", "tools.offline=true",
            "tracking.enabled=false", f"models.fake.call_log={calls}", "agents.generation.tools=[default]",
            "agents.generation.modes.literature.max_iterations=3", *PLUGIN_TIER]
    # without the plugin, no catalogue, no facts: refused naming the key, checked in this process (the plugin is
    # on the path of the run's process only); the entry point's exit 2 and one line for a refused config are
    # tests/reliability/test_bad_input.py's (a process of its own here added only its start; docs/development.md)
    with pytest.raises(ConfigError, match=r"^models\.tiers\.strong\.thinking: missing required key: "):
        validate(compose(args[3:]), require_goal=True)
    done = subprocess.run(args, env={**_env(tmp_path, site), **shared}, cwd=tmp_path, capture_output=True, text=True,
                          timeout=900)
    assert done.returncode == 0, done.stderr[-3000:]
    assert "Traceback" not in done.stderr and "skipped" not in done.stderr
    logged = [json.loads(line) for line in calls.read_text().splitlines()]
    literature = [c for c in logged if (c["agent"], c["mode"]) == ("generation", "literature")]
    assert any(TOOL in c["tools"] for c in literature), literature  # offered: `default` includes it
    assert {c["model"] for c in logged} >= {MODEL}  # the strong tier routes to the plugin's model
    assert (tmp_path / "plugin_calls.txt").read_text().strip()  # and the plugin's tool was called
    [folder] = list((tmp_path / "data" / "sessions").iterdir())
    store = SessionStore.open(folder / STORE_FILE, folder.name)
    strong = store.sessions.get().config_snapshot["models"]["tiers"]["strong"]
    store.close()
    assert (strong["model"], strong["thinking"], strong["input_usd_per_mtok"]) == (MODEL, "off", 7.0)
    assert (strong["output_usd_per_mtok"], strong["context_window"]) == (11.0, 64000)


def test_a_plugin_sandbox_backend_runs_the_task_check(tmp_path: Path, good_plugin: Path) -> None:
    from cosci.sandbox.bwrap import probe

    if probe() is None:
        pytest.skip("bubblewrap cannot create namespaces here (the plugin's backend wraps it)")
    site = good_plugin
    cli = [sys.executable, "-m", "cosci.cli", "investigate", "check", str(ROOT / "tasks" / "circle_packing")]
    unknown = subprocess.run([*cli, "investigation.sandbox=nope"], env=_env(tmp_path, site), cwd=tmp_path,
                             capture_output=True, text=True, timeout=300)
    assert unknown.returncode == 2 and unknown.stderr.count("\n") == 1, unknown.stderr
    assert "unknown sandbox backend 'nope' (declared: bwrap, logged)" in unknown.stderr
    done = subprocess.run([*cli, "investigation.sandbox=logged"], env=_env(tmp_path, site), cwd=tmp_path,
                          capture_output=True, text=True, timeout=600)
    assert done.returncode == 0 and "passes" in done.stdout, done.stderr[-2000:]
    ran = (tmp_path / "plugin_calls.txt").read_text().splitlines()
    assert ran and all(line.startswith("sandbox ") and "rlimits.py" in line for line in ran)  # every program


BAD_TOOL_MODULE = "import a_module_that_does_not_exist\n\ndef build(ctx):\n    return None\n"


def test_a_bad_plugin_is_one_warning_line_and_skipped(tmp_path: Path) -> None:
    site = _install(tmp_path, "cosci_bad_plugin", {
        "cosci_bad_plugin/__init__.py": "",
        "cosci_bad_plugin/search.py": BAD_TOOL_MODULE,
        "cosci_bad_plugin/tools/tools.yaml": "broken_search:\n  rank: 5\n  build: cosci_bad_plugin.search:build\n",
        "cosci_bad_plugin/malformed/tools.yaml": "other_search:\n  rank: first\n",
        "cosci_bad_plugin/catalogue/bad.yaml": "provider: x\nhost: y\nmodels:\n  x/y: {thinking: sometimes}\n",
        "cosci_bad_plugin/box/sandboxes.yaml": "bwrap:\n  build: cosci_bad_plugin.box:BACKEND\n",
    }, {"cosci.tools": "unimportable = \"cosci_bad_plugin.tools\"\nmalformed = \"cosci_bad_plugin.malformed\"\n"
                       "missing = \"cosci_bad_plugin.nowhere\"\nobject = \"cosci_bad_plugin.search:build\"",
        "cosci.catalogues": "badbook = \"cosci_bad_plugin.catalogue\"",
        "cosci.sandboxes": "badbox = \"cosci_bad_plugin.box\""})
    code = ("import asyncio\n"
            "from cosci.config.load import compose, validate\n"
            "from cosci.tools.registry import build_registry\n"
            "from cosci.config.investigation import load_investigation\n"
            "config = validate(compose(['agents.generation.tools=[default]', 'tools.offline=true']))\n"
            "print('SANDBOX', load_investigation([]).investigation.sandbox)\n"
            "async def main():\n"
            "    async with build_registry(config, None, environ={}) as registry:\n"
            "        print('TOOLS', ' '.join(registry.names()))\n"
            "asyncio.run(main())\n")
    done = _python(code, _env(tmp_path, site), tmp_path)
    assert done.returncode == 0 and "Traceback" not in done.stderr, done.stderr
    lines = done.stderr.strip().splitlines()
    by_plugin = {name: [line for line in lines if f"plugin '{name}'" in line]
                 for name in ("unimportable", "malformed", "missing", "object", "badbook", "badbox")}
    assert all(len(found) == 1 for found in by_plugin.values()), lines
    assert all(line.startswith("warning: plugin '") and "skipped: " in line for line in lines), lines
    assert len(lines) == 6
    assert "ModuleNotFoundError" in by_plugin["unimportable"][0] and "broken_search" in by_plugin["unimportable"][0]
    assert "rank 'first'" in by_plugin["malformed"][0] or "needs rank and build" in by_plugin["malformed"][0]
    assert "names no package folder" in by_plugin["object"][0] and "cosci-bad-plugin" in by_plugin["object"][0]
    assert "thinking" in by_plugin["badbook"][0] and "backend 'bwrap' is already declared" in by_plugin["badbox"][0]
    assert "SANDBOX bwrap" in done.stdout
    tools = done.stdout.split("TOOLS ", 1)[1].split()
    assert "broken_search" not in tools and "pubmed_search" in tools  # skipped; the shipped tools stay


def test_validating_a_config_imports_no_tool_module(tmp_path: Path, good_plugin: Path) -> None:
    site = good_plugin
    code = ("import sys\n"
            "from cosci.config.load import compose, validate\n"
            "config = validate(compose(['agents.generation.tools=[default]']))\n"
            "print('GENERATION', ' '.join(config.agents['generation'].tools))\n"
            "from cosci.config.investigation import load_investigation\n"
            "assert load_investigation(['investigation.sandbox=logged']).investigation.sandbox == 'logged'\n"
            "print('LOADED', ' '.join(m for m in sys.modules\n"
            "                         if m.startswith(('cosci.tools', 'cosci.sandbox', 'cosci_demo'))))\n")
    done = _python(code, _env(tmp_path, site), tmp_path)
    assert done.returncode == 0, done.stderr
    out = dict(line.split(" ", 1) if " " in line else (line, "") for line in done.stdout.splitlines())
    assert TOOL in out["GENERATION"].split() and "pubmed_search" in out["GENERATION"].split()
    assert out["LOADED"] == ""  # neither cosci/tools/, cosci/sandbox/ nor the plugin's package was imported


def test_every_extension_point_has_a_recipe() -> None:
    page = (ROOT / "docs" / "plugins.md").read_text(encoding="utf-8")
    recipes = [line for line in page.splitlines() if line.startswith("## Adding ")]
    assert len(recipes) == len(GROUPS) == 3
    assert all(f"`{group}`" in page and f'entry-points."{group}"' in page for group in GROUPS)
