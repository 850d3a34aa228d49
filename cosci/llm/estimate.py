"""Pre-flight estimate of a session's cost from its config (seed 004: ``estimate`` warns above 1.2x the
budget).

A full session is assumed to fill the pool (``run.max_ideas``), give every hypothesis a full review, play
about ``MATCHES_PER_HYPOTHESIS`` matches per hypothesis (``debate_share`` of them as debates of
``debate.min_turns`` turns), verify the top hypotheses, write system feedback every
``metareview.every_matches`` matches and one final overview. Per call, prompts and answers are sized by the
constants below; prices come from LiteLLM's price map (or the configured overrides). The numbers are a
planning aid (USD), not a bound: the token budget enforces the cap.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from cosci.config.schema import CosciConfig
from cosci.llm.gateway import estimate_call
from cosci.llm.providers import register_providers
from cosci.llm.routing import Router

MATCHES_PER_HYPOTHESIS = 6
TOOL_LOOP_CALLS = 4           # model calls in a typical tool loop (search, read, search, record)
PROMPT_CHARS = {"tool_loop": 24_000, "single": 12_000, "turn": 8_000}
OUTPUT_SHARE = 0.35           # share of max_output_tokens a typical answer uses
DEBATE_SHARE = 0.5


@dataclass
class Estimate:
    usd: float
    calls: int
    by_agent: dict[str, float] = field(default_factory=dict)
    budget_usd: float = 0.0
    warn_ratio: float = 1.2

    @property
    def over_budget(self) -> bool:
        return self.usd > self.warn_ratio * self.budget_usd

    def line(self) -> str:
        text = (f"estimated cost ~${self.usd:.2f} over ~{self.calls} model calls"
                f" (budget ${self.budget_usd:.2f})")
        if self.over_budget:
            text += (f" - above {self.warn_ratio:g}x the budget: the session will stop when the budget is"
                     " spent")
        return text


def estimate_session(config: CosciConfig) -> Estimate:
    """Estimate one full session of ``config`` (see module docstring)."""
    register_providers(config)
    router = Router(config)

    def loop(agent: str, mode: str) -> int:  # a tool loop makes at most max_iterations calls
        return min(TOOL_LOOP_CALLS, config.agents[agent].modes[mode].max_iterations)

    n = config.run.max_ideas
    matches = n * MATCHES_PER_HYPOTHESIS
    plan = [  # (agent, mode, calls, prompt kind)
        ("supervisor", "parse_goal", 1, "single"),
        ("generation", "literature", n * (1 - config.run.debate_fraction) * loop("generation", "literature"),
         "tool_loop"),
        ("generation", "debate", n * config.run.debate_fraction * (config.debate.min_turns + 1), "turn"),
        ("reflection", "full", n * loop("reflection", "full"), "tool_loop"),
        ("reflection", "verification", config.reflection.verification_top_k * loop("reflection", "verification"),
         "tool_loop"),
        ("ranking", "pairwise", matches * (1 - DEBATE_SHARE), "single"),
        ("ranking", "debate", matches * DEBATE_SHARE * config.debate.min_turns, "turn"),
        ("evolution", "combine", n * config.evolution.pool_share * loop("evolution", "combine"), "tool_loop"),
        ("metareview", "system", matches / config.metareview.every_matches + 1, "single"),
        ("metareview", "final", 1, "single"),
        ("metareview", "audit", 1, "single"),  # issue 14: the independent audit of the overview
    ]
    total, calls = 0.0, 0
    by_agent: dict[str, float] = {}
    for agent, mode, count, kind in plan:
        route = router.route(agent, mode)
        usd, _ = estimate_call(route.model, PROMPT_CHARS[kind], int(route.max_output_tokens * OUTPUT_SHARE))
        total += usd * count
        calls += round(count)
        by_agent[agent] = by_agent.get(agent, 0.0) + usd * count
    return Estimate(total, calls, by_agent, config.run.budget_usd, config.budget.warn_ratio)
