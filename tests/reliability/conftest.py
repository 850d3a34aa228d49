"""The reliability tests run agents on the agent tests' memoised config (see ``tests/agents/conftest.py``)."""

from tests.agents.conftest import add_player, compose_config, config, planned, pytest_configure, run_task  # noqa: F401
