"""Configuration: the Hydra tree is composed in :mod:`cosci.config.load` and validated into :mod:`.schema`."""

from cosci.config.load import ConfigError, compose, validate
from cosci.config.schema import CosciConfig

__all__ = ["ConfigError", "CosciConfig", "compose", "validate"]
