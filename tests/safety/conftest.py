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


def yaml_text(data: object) -> str:
    """``data`` as YAML text, as ``yaml.safe_dump`` writes it but through libyaml's dumper where PyYAML has it: the
    pure-Python dumper took about a second of CPU for the term file (docs/development.md, test time, twelfth pass)."""
    import yaml

    return yaml.dump(data, Dumper=getattr(yaml, "CSafeDumper", yaml.SafeDumper), allow_unicode=True)
