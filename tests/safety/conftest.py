"""The safety tests run agents on the agent tests' memoised config (see ``tests/agents/conftest.py``); ``shipped``
is the offline screen built from the shipped config, once per module that asks for it."""

from pathlib import Path

import pytest

from cosci.safety.screen import screen_for
from tests.agents.conftest import compose_config, config, pytest_configure  # noqa: F401
from tests.conftest import make_config


@pytest.fixture(scope="module")
def shipped():  # type: ignore[no-untyped-def]
    shipped_config = make_config(Path("."))
    assert shipped_config.safety is not None
    return screen_for(shipped_config.safety)
