"""The whole configuration of one session, :class:`CosciConfig`, and its cross-section rules."""

from __future__ import annotations

import math

from pydantic import Field, field_validator, model_validator

from cosci import literature
from cosci.config.schema.agents import (
    AgentCfg,
    DebateCfg,
    EvolutionCfg,
    GenerationCfg,
    MetareviewCfg,
    ReflectionCfg,
)
from cosci.config.schema.base import (
    AGENT_NAMES,
    OPTIONAL_AGENTS,
    _Strict,
)
from cosci.config.schema.models import (
    ModelsCfg,
    VectorsCfg,
)
from cosci.config.schema.ranking import RankingCfg, TerminationCfg
from cosci.config.schema.safety import SafetyCfg
from cosci.config.schema.session import (
    BudgetCfg,
    LauncherCfg,
    LeaseCfg,
    PathsCfg,
    ProjectCfg,
    RetryCfg,
    RunCfg,
    ScheduleCfg,
    SessionCfg,
)
from cosci.config.schema.tools import ToolsCfg, TrackingCfg
from cosci.config.thinking import ThinkingCfg


class CosciConfig(_Strict):
    """The whole validated configuration of one session.

    Raises (from :func:`cosci.config.load.validate`): ``ConfigError`` naming the first offending key and rule.
    """

    session: SessionCfg
    project: ProjectCfg
    run: RunCfg
    generation: GenerationCfg
    budget: BudgetCfg
    ranking: RankingCfg
    debate: DebateCfg
    reflection: ReflectionCfg
    evolution: EvolutionCfg
    metareview: MetareviewCfg
    termination: TerminationCfg
    vectors: VectorsCfg
    lease: LeaseCfg
    retry: RetryCfg
    tools: ToolsCfg
    tracking: TrackingCfg
    launcher: LauncherCfg
    schedule: ScheduleCfg
    paths: PathsCfg
    models: ModelsCfg
    agents: dict[str, AgentCfg]
    safety: SafetyCfg | None = Field(
        default=None, description="Safety screening (design.md#safety); absent in sessions frozen before it existed."
    )
    thinking: ThinkingCfg | None = Field(
        default=None, description="The thinking-budget -> effort table (docs/design.md#thinking-forms); absent in "
        "sessions frozen before it existed (their tiers take budgets or nothing).")

    @field_validator("agents", mode="before")
    @classmethod
    def _default_tools(cls, agents: object) -> object:
        """``tools: [default, …]`` becomes the declared tools of that agent (design.md#tools), so the validated
        config, and the session's frozen snapshot, name every tool."""
        if not isinstance(agents, dict):
            return agents
        out = dict(agents)
        for name, agent in agents.items():
            tools = agent.get("tools") if isinstance(agent, dict) else None
            if isinstance(tools, list) and literature.DEFAULT in tools and all(isinstance(t, str) for t in tools):
                out[name] = {**agent, "tools": literature.expand(str(name), tools)}
        return out

    @model_validator(mode="after")
    def _judges_are_tiers(self) -> CosciConfig:
        for tier in self.ranking.judges:
            if tier not in self.models.tiers:
                raise ValueError(f"ranking.judges: tier '{tier}' is not in models '{self.models.name}' "
                                 f"({', '.join(self.models.tiers)})")
        if len(set(self.ranking.judges)) != len(self.ranking.judges):
            raise ValueError(f"ranking.judges: a tier is listed twice ({', '.join(self.ranking.judges)})")
        return self

    @model_validator(mode="after")
    def _cross_field(self) -> CosciConfig:  # noqa: C901 - independent checks in a row; split once issue-18b lands
        missing = [a for a in AGENT_NAMES if a not in self.agents]
        if missing:
            raise ValueError(f"agents: missing agent(s) {', '.join(missing)}")
        unknown = sorted(set(self.agents) - set(AGENT_NAMES) - set(OPTIONAL_AGENTS))
        if unknown:
            known = ", ".join((*AGENT_NAMES, *OPTIONAL_AGENTS))
            raise ValueError(f"agents.{unknown[0]}: unknown agent (known: {known})")
        if self.safety is not None and self.safety.enabled and "classify" not in self.agents.get(
            "safety", AgentCfg(budget_share=0.0, tools=[], modes={})
        ).modes:
            raise ValueError("safety.enabled: needs agents.safety.modes.classify (conf/agents/default.yaml)")
        shares = sum(a.budget_share for a in self.agents.values()) + self.budget.reserve_share
        if not math.isclose(shares, 1.0, abs_tol=1e-6):
            raise ValueError(f"agents.*.budget_share + budget.reserve_share must sum to 1 (got {shares:.3f})")
        for tier in self.models.degradation:
            if tier not in self.models.tiers:
                raise ValueError(f"models.degradation: tier '{tier}' is not in models.tiers")
        if self.thinking is None and any(e.thinking in ("adaptive", "effort") for e in self.models.tiers.values()):
            raise ValueError("thinking.efforts: adaptive and effort tiers need the effort table (conf/config.yaml)")
        for key, tier in self.models.agent_tiers.items():
            if tier not in self.models.tiers:
                raise ValueError(f"models.agent_tiers.{key}: tier '{tier}' is not in models.tiers")
        for agent, acfg in self.agents.items():
            for mode in acfg.modes:
                tier = self.tier_of(agent, mode)
                if tier not in self.models.tiers:
                    known = ", ".join(self.models.tiers)
                    raise ValueError(
                        f"agents.{agent}.modes.{mode}.tier: tier '{tier}' is not in models "
                        f"'{self.models.name}' ({known})"
                    )
        return self

    def tier_of(self, agent: str, mode: str) -> str:
        """The tier an (agent, mode) calls: ``models.agent_tiers`` wins over ``agents.<agent>.modes.<mode>.tier``."""
        overrides = self.models.agent_tiers
        return overrides.get(f"{agent}.{mode}") or overrides.get(agent) or self.agents[agent].modes[mode].tier
