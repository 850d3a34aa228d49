"""The research agents, one module each (design.md#supervisor); :func:`build_agents` wires them to their
dependencies."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from cosci.agents.base import AgentDeps, BaseAgent


def __getattr__(name: str) -> Any:
    """``AgentDeps`` and ``BaseAgent`` from :mod:`cosci.agents.base`, imported when first asked for: a command that
    needs one agent module (``cosci rate``'s refit, :mod:`cosci.agents.session_fit`) does not import the agents'
    base with the vector store (faiss) and the prompts (Jinja2) (design.md#startup)."""
    if name in ("AgentDeps", "BaseAgent"):
        from cosci.agents import base

        return getattr(base, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def build_agents(deps: AgentDeps) -> dict[str, BaseAgent]:
    """Agent name -> agent, for every agent the Supervisor dispatches to."""
    return {cls.name: cls(deps) for cls in agent_classes()}


def agent_classes() -> tuple[type[BaseAgent], ...]:
    """The classes of every agent the Supervisor dispatches to (imported here: a session's start imports them in
    :mod:`cosci.session.warm` while it waits for the Prefect server, design.md#startup)."""
    from cosci.agents.evolution import EvolutionAgent
    from cosci.agents.generation import GenerationAgent
    from cosci.agents.goal_parsing import GoalParsingAgent
    from cosci.agents.metareview import MetaReviewAgent
    from cosci.agents.proximity import ProximityAgent
    from cosci.agents.ranking import RankingAgent
    from cosci.agents.reflection import ReflectionAgent
    from cosci.agents.safety import SafetyAgent

    return (GoalParsingAgent, GenerationAgent, ReflectionAgent, RankingAgent, EvolutionAgent, ProximityAgent,
            MetaReviewAgent, SafetyAgent)


__all__ = ["AgentDeps", "BaseAgent", "agent_classes", "build_agents"]
