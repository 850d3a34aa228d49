"""Configuration: the Hydra tree is composed in :mod:`cosci.config.load` (over the layer files of :mod:`.layers`) and
validated into :mod:`.schema`, one module per section.

Import ``cosci.config.schema`` for the typed models (no Hydra) and ``cosci.config.load`` to compose.
"""
