"""Typed, validated session configuration, one module per section (docs/configuration.md#groups-and-layers).

Hydra composes ``conf/``; :func:`cosci.config.load.validate` turns the composed tree into plain data once and
validates it into :class:`CosciConfig`. After that, code receives these objects, never a ``DictConfig``; a component
that reads one section takes that section (``RankingCfg``, ``SafetyCfg``...). Every default lives in
``conf/*.yaml``, its reason in ``docs/design.md``; the models here only state the rules (ranges, units, cross-field
checks). All models forbid unknown keys. Modules: :mod:`.base` (shared rules), :mod:`.session`, :mod:`.ranking`,
:mod:`.agents`, :mod:`.tools`, :mod:`.safety`, :mod:`.models`, :mod:`.root`.
"""

from cosci.config.schema.agents import (
    DEBATE_MODE,
    AgentCfg,
    DebateCfg,
    EvolutionCfg,
    GenerationCfg,
    MetareviewCfg,
    ModeCfg,
    ReflectionCfg,
)
from cosci.config.schema.base import (
    AGENT_NAMES,
    INTERPOLATION,
    MAX_ATTEMPTS,
    MAX_CALL_SECONDS,
    MAX_COUNT,
    MAX_ELO,
    MAX_SECONDS,
    MAX_SEED,
    MAX_TOKENS,
    OPTIONAL_AGENTS,
    PROJECT_NAME,
    SafetyDecision,
    Unit,
    folder_name,
)
from cosci.config.schema.models import (
    EmbeddingsCfg,
    EmbeddingThresholdsCfg,
    FakeModelCfg,
    LocalModelCfg,
    ModelEntry,
    ModelsCfg,
    VectorsCfg,
)
from cosci.config.schema.ranking import RankingCfg, TerminationCfg
from cosci.config.schema.root import CosciConfig
from cosci.config.schema.safety import SafetyCfg, ScreenCfg
from cosci.config.schema.session import (
    BudgetCfg,
    JoblibCfg,
    LauncherCfg,
    LeaseCfg,
    PathsCfg,
    ProjectCfg,
    RayCfg,
    RetryCfg,
    RunCfg,
    ScheduleCfg,
    SessionCfg,
    SlurmCfg,
)
from cosci.config.schema.tools import ApisCfg, McpServerCfg, ToolsCfg, TrackingCfg

__all__ = [
    "AGENT_NAMES", "DEBATE_MODE", "INTERPOLATION", "MAX_ATTEMPTS", "MAX_CALL_SECONDS", "MAX_COUNT", "MAX_ELO",
    "MAX_SECONDS", "MAX_SEED", "MAX_TOKENS", "OPTIONAL_AGENTS", "PROJECT_NAME", "AgentCfg", "ApisCfg", "BudgetCfg",
    "CosciConfig", "DebateCfg", "EmbeddingThresholdsCfg", "EmbeddingsCfg", "EvolutionCfg", "FakeModelCfg",
    "GenerationCfg", "JoblibCfg", "LauncherCfg", "LeaseCfg", "LocalModelCfg", "McpServerCfg", "MetareviewCfg",
    "ModeCfg", "ModelEntry", "ModelsCfg", "PathsCfg", "ProjectCfg", "RankingCfg", "RayCfg", "ReflectionCfg", "RetryCfg",
    "RunCfg", "SafetyCfg", "SafetyDecision", "ScheduleCfg", "ScreenCfg", "SessionCfg", "SlurmCfg", "TerminationCfg",
    "ToolsCfg", "TrackingCfg", "Unit", "VectorsCfg", "folder_name"
]
