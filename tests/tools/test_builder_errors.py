"""A plugin's tool builder that imports but raises when called is skipped with the same one-line form as one whose
module does not import: ``tool '<name>': build <ref>: <Error>: <why>`` (docs/plugins.md's example; a fresh user saw
``NameError: ...`` without the ``build`` part)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from cosci.literature import ToolDeclaration
from cosci.tools import registry


def test_a_builder_that_raises_is_named_as_an_unimportable_one_is(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                                 capsys: pytest.CaptureFixture[str]) -> None:
    (tmp_path / "cosci_raising_plugin.py").write_text("def build(context):\n    return EchoSearch()\n",
                                                      encoding="utf-8")
    monkeypatch.syspath_prepend(str(tmp_path))
    said: list[tuple[str, str]] = []
    monkeypatch.setattr(registry, "skip", lambda who, reason: said.append((who, reason)))
    declared = ToolDeclaration(name="echo_search", rank=5, build="cosci_raising_plugin:build", origin="plugin 'demo'")
    context: Any = None
    assert registry._build(declared, context) is None
    assert said == [("plugin 'demo'", "tool 'echo_search': build cosci_raising_plugin:build: NameError: name "
                                      "'EchoSearch' is not defined")]
    unimportable = ToolDeclaration(name="echo_search", rank=5, build="cosci_no_such_plugin:build", origin="plugin 'x'")
    assert registry._build(unimportable, context) is None
    assert said[1][1].startswith("tool 'echo_search': build cosci_no_such_plugin:build: ModuleNotFoundError: ")
    assert not capsys.readouterr().err
