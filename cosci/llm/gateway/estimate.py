"""Pre-flight estimate of a session's cost from its config (design.md#budget: ``estimate`` warns above 1.2x the
budget).

A full session is assumed to fill the pool (``run.max_hypotheses``: the generation share by generation, the rest by
evolution), give every hypothesis a full review, play about ``evolution.mature_matches + 1`` matches per
hypothesis (never more than every pair at the rematch cap), as debates for each hypothesis's first
``ranking.debate_min_matches`` matches (``debate.min_turns`` turns each) and pairwise after, verify the top
hypotheses, write system feedback every ``metareview.every_matches`` matches and one final overview.

Each call's prompt is a fixed part by kind (``PROMPT_CHARS``, the rendered templates and safety preamble as
measured on the fake demo) plus the session's own text (goal and preferences, which every prompt quotes in its
session context), plus ``TOOL_RESULT_CHARS`` per earlier tool-loop iteration; its answer is the tier's
``typical_output_tokens`` or 35 % of the mode's ``max_output_tokens`` (:func:`cosci.llm.budget.sizing.
prior_output_tokens`, the same prior the budget admission uses). Prices come from LiteLLM's price map (or the
configured overrides). The numbers are a planning aid (USD), not a bound: the token budget enforces the cap.
Measured against real runs in ``bench/README.md`` (design.md#supervisor).
"""

from __future__ import annotations

from dataclasses import dataclass, field

from cosci.config.schema import CosciConfig
from cosci.errors import first_hypothesis_needs
from cosci.llm.budget.sizing import EXPECTED_CHARS_PER_TOKEN, prior_output_tokens
from cosci.llm.gateway.adapter import estimate_call
from cosci.llm.gateway.providers import register_providers
from cosci.llm.gateway.routing import Router
from cosci.text import dollars

TOOL_LOOP_CALLS = 4
"""Model calls in a typical tool loop (search, read, search, record), at most ``max_iterations``."""
PROMPT_CHARS = {"parse": 2_300, "single": 5_000, "turn": 5_500, "tool_loop": 5_500, "feedback": 7_500,
                "overview": 14_000}
"""Fixed prompt characters per call kind, the session's own text excluded (measured on the fake demo)."""
TOOL_RESULT_CHARS = 4_000
"""Characters one tool result adds to every later call of its loop (``tools.max_results`` records)."""


@dataclass
class Estimate:
    usd: float
    calls: int
    by_agent: dict[str, float] = field(default_factory=dict)
    budget_usd: float = 0.0
    warn_ratio: float = 1.2
    floor_usd: float = 0.0
    """USD of what a first hypothesis needs: the goal's parse, one generation task and the final overview as
    expected, and at least the largest of their calls at its whole ``max_output_tokens`` (what the budget's admission
    holds for a call before it is sent)."""
    floor_expected_usd: float = 0.0
    """USD of the same three calls at their expected output; :attr:`floor_usd` is above it when the largest call's
    upper bound is (the figure is then named an upper bound, as the budget's stop line names it)."""

    @property
    def too_small(self) -> bool:
        """The first hypothesis's estimate is above ``warn_ratio`` x the budget (the estimate's own tolerance, as for
        :attr:`over_budget`): the run would stop with nothing to show, so it is refused (:class:`cosci.errors.
        BudgetTooSmall`, design.md#budget)."""
        return self.floor_usd > self.warn_ratio * self.budget_usd

    @property
    def over_budget(self) -> bool:
        return self.usd > self.warn_ratio * self.budget_usd

    def line(self) -> str:
        """One line: the estimate beside the budget; a refused budget beside the floor it cannot hold instead (at
        $0.05 on the fake, "~$0.05 (budget $0.05)" above a refusal read as if the budget covered the session)."""
        text = f"estimated cost ~${dollars(self.usd)} over ~{self.calls} model calls"
        if self.too_small:
            return (f"{text} at their expected output, but a run is refused: "  # the refusal's words (design.md#budget)
                    f"{first_hypothesis_needs(self.floor_usd, self.floor_expected_usd)}, more than the budget "
                    f"${dollars(self.budget_usd)}")
        text += f" (budget ${dollars(self.budget_usd)})"
        if self.over_budget:
            text += (f" - above {self.warn_ratio:g}x the budget: the session will stop when the budget is"
                     " spent")
        return text


def estimate_session(config: CosciConfig) -> Estimate:
    """Estimate one full session of ``config`` (see module docstring)."""
    register_providers(config)
    router = Router(config)
    session_text = len(config.session.goal or "") + sum(len(p) for p in config.session.preferences)

    def loop(agent: str, mode: str) -> int:  # a tool loop makes at most max_iterations calls
        return min(TOOL_LOOP_CALLS, config.agents[agent].modes[mode].max_iterations or TOOL_LOOP_CALLS)

    n = config.run.max_hypotheses
    evolved = round(n * config.evolution.pool_share)
    generated = n - evolved
    matches = min(n * (config.evolution.mature_matches + 1),
                  n * (n - 1) // 2 * config.ranking.max_matches_per_pair)
    debates = min(matches, n * max(config.ranking.debate_min_matches, 1))
    plan = [  # (agent, mode, tasks, calls per task, prompt kind)
        ("goal_parsing", "parse_goal", 1, 1, "parse"),
        ("generation", "literature", generated * (1 - config.generation.debate_share), loop("generation", "literature"),
         "tool_loop"),
        ("generation", "debate", generated * config.generation.debate_share, config.debate.min_turns + 1, "turn"),
        ("generation", "grounding", generated * config.generation.debate_share, 1, "single"),
        # the support check of each new hypothesis's verified quotes (at most one call each)
        ("generation", "grounding", generated, 1, "single"),
        ("evolution", "grounding", evolved, 1, "single"),
        ("reflection", "full", n, loop("reflection", "full"), "tool_loop"),
        ("reflection", "verification", config.reflection.verification_top_k, loop("reflection", "verification"),
         "tool_loop"),
        ("ranking", "pairwise", matches - debates, 1, "single"),
        ("ranking", "debate", debates, config.debate.min_turns, "turn"),
        ("evolution", "combine", evolved, loop("evolution", "combine"), "tool_loop"),
        ("metareview", "system", matches / config.metareview.every_matches + 1, 1, "feedback"),
        ("metareview", "final", 1, 1, "overview"),
        ("metareview", "audit", 1, 1, "single"),  # the audit (no call without a model other than the writer's)
        ("metareview", "claim_check", config.metareview.claim_check_max_calls, 1, "single"),  # at most
    ]
    total, calls, floor, held = 0.0, 0, 0.0, 0.0
    by_agent: dict[str, float] = {}
    first = {("goal_parsing", "parse_goal"), ("generation", "literature"), ("metareview", "final")}
    for agent, mode, tasks, per_task, kind in plan:
        route = router.route(agent, mode)
        out = prior_output_tokens(route.max_output_tokens, route.typical_output_tokens)
        usd = 0.0
        for i in range(per_task):  # each iteration of a loop carries the earlier results (and turns)
            grown = i * (TOOL_RESULT_CHARS if kind == "tool_loop" else out * EXPECTED_CHARS_PER_TOKEN)
            chars = PROMPT_CHARS[kind] + session_text + grown
            usd += estimate_call(route.model, chars, out, input_tokens=chars // EXPECTED_CHARS_PER_TOKEN + 1)[0]
        total += usd * tasks
        if (agent, mode) in first and tasks > 0:  # one task of each; admission holds a call's whole output
            floor += usd
            held = max(held, max(estimate_call(route.model, PROMPT_CHARS[kind] + session_text + i * TOOL_RESULT_CHARS,
                                               route.max_output_tokens)[0] for i in range(per_task)))
        calls += round(tasks * per_task)
        by_agent[agent] = by_agent.get(agent, 0.0) + usd * tasks
    return Estimate(total, calls, by_agent, config.run.budget_usd, config.budget.warn_ratio,
                    max(floor, held), floor)
