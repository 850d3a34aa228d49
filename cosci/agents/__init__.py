"""The research agents, one module each (design.md#supervisor); :func:`build_agents` wires them to their
dependencies."""

from __future__ import annotations

from cosci.agents.base import AgentDeps, BaseAgent


def build_agents(deps: AgentDeps) -> dict[str, BaseAgent]:
    """Agent name -> agent, for every agent the Supervisor dispatches to."""
    from cosci.agents.evolution import EvolutionAgent
    from cosci.agents.generation import GenerationAgent
    from cosci.agents.goal_parsing import GoalParsingAgent
    from cosci.agents.metareview import MetaReviewAgent
    from cosci.agents.proximity import ProximityAgent
    from cosci.agents.ranking import RankingAgent
    from cosci.agents.reflection import ReflectionAgent
    from cosci.agents.safety import SafetyAgent

    agents = (GoalParsingAgent, GenerationAgent, ReflectionAgent, RankingAgent, EvolutionAgent, ProximityAgent,
              MetaReviewAgent, SafetyAgent)
    return {cls.name: cls(deps) for cls in agents}


__all__ = ["AgentDeps", "BaseAgent", "build_agents"]
