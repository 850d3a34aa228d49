"""Configuration: the Hydra tree is composed in :mod:`cosci.config.load` and validated into :mod:`.schema`.

Import ``cosci.config.schema`` for the typed models (no Hydra) and ``cosci.config.load`` to compose.
"""
