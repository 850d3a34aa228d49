"""LiteLLM stays at the edge (house style "Frameworks stay at the edges"): only ``cosci/llm/`` imports it."""

from __future__ import annotations

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
GATEWAY_PACKAGE = ROOT / "cosci" / "llm"


def litellm_imports(path: Path) -> list[int]:
    """Line numbers of every ``import litellm[.x]`` / ``from litellm[.x] import`` in ``path`` (any depth)."""
    lines = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"), filename=str(path))):
        if isinstance(node, ast.Import):
            modules = [a.name for a in node.names]
        elif isinstance(node, ast.ImportFrom) and not node.level:  # relative imports are cosci's own
            modules = [node.module or ""]
        else:
            continue
        if any(m.split(".")[0] == "litellm" for m in modules):
            lines.append(node.lineno)
    return lines


def test_only_the_gateway_package_imports_litellm() -> None:
    files = sorted(p for folder in ("cosci", "flows") for p in (ROOT / folder).rglob("*.py"))
    assert files, "no sources found"
    found = {str(p.relative_to(ROOT)): lines for p in files if (lines := litellm_imports(p))}
    outside = {f: lines for f, lines in found.items() if not (ROOT / f).is_relative_to(GATEWAY_PACKAGE)}
    assert outside == {}, f"litellm imported outside cosci/llm/: {outside}"
    assert "cosci/llm/gateway/adapter.py" in found  # the check does see imports


def test_the_check_catches_every_import_form(tmp_path: Path) -> None:
    sample = tmp_path / "sample.py"
    sample.write_text('"""import litellm (in a docstring: not an import)."""\n'
                      "import os, litellm\n"
                      "def f():\n"
                      "    from litellm.types.utils import ModelResponse\n"
                      "    import litellm.utils as u\n"
                      "from .litellm import x\n")
    assert litellm_imports(sample) == [2, 4, 5]
