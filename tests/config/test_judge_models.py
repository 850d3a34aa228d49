"""Judge ≠ generator (issue 13): for every hosted models config the ranking judge runs on another model than
generation; ``models=local`` has one model, so there the judge is the generator (and the overview says so)."""

from __future__ import annotations

from pathlib import Path

import pytest

from cosci.llm.gateway.routing import Router
from tests.conftest import make_config

HOSTED = ["opus", "claude45", "sonnet", "gemini", "gemini3", "openai", "openai_o", "openrouter", "ollama", "fake"]


def models(tmp_path: Path, choice: str) -> tuple[set[str], set[str]]:
    router = Router(make_config(tmp_path / "data", f"models={choice}"))
    judges = {router.route("ranking", m).model for m in ("pairwise", "debate")}
    generators = {router.route("generation", m).model for m in ("literature", "debate")}
    return judges, generators


@pytest.mark.parametrize("choice", HOSTED)
def test_the_judge_is_not_the_generator(tmp_path: Path, choice: str) -> None:
    judges, generators = models(tmp_path, choice)
    assert judges and generators and not judges & generators


def test_local_has_one_model_for_both(tmp_path: Path) -> None:
    judges, generators = models(tmp_path, "local")
    assert judges == generators
