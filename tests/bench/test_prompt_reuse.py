"""bench.prompt_reuse: the prompt tokens each call evaluates under llama-cpp-python's prefix reuse and a bounded
prompt-state cache, on scripted token lists; and the shared-sections-first order of a scripted prompt
(bench/README.md, "The tenth stop")."""

from __future__ import annotations

from bench.prompt_reuse import (
    STATE_BYTES_PER_TOKEN,
    STATE_FIXED_BYTES,
    common_prefix,
    evaluated,
    instructions_first,
    shared_first,
)


def states(*lengths: int) -> int:
    """Bytes of cached states of these token lengths (prompt + generated)."""
    return sum(n * STATE_BYTES_PER_TOKEN + STATE_FIXED_BYTES for n in lengths)


def test_common_prefix() -> None:
    assert common_prefix([1, 2, 3], [1, 2, 4, 5]) == 2
    assert common_prefix([], [1]) == 0
    assert common_prefix([1, 2], [1, 2, 3]) == 2


def test_the_model_s_own_tokens_serve_the_next_prompt_without_a_cache() -> None:
    # no room for any state: only what the model holds from the previous call is reused
    assert evaluated([[1, 2, 3, 4], [1, 2, 3, 9, 9]], [2, 1], capacity_bytes=0) == [4, 2]


def test_generated_tokens_never_match_a_later_prompt() -> None:
    # the second prompt continues the first one's prompt: its generated tokens are not the next prompt's tokens
    assert evaluated([[1, 2, 3], [1, 2, 3, 7, 8]], [5, 1], capacity_bytes=None) == [3, 2]


def test_a_prompt_wholly_shared_replays_its_last_token() -> None:
    assert evaluated([[1, 2, 3], [1, 2, 3]], [1, 1], capacity_bytes=None) == [3, 1]


def test_an_interleaved_call_is_served_from_the_cache_when_its_state_is_kept() -> None:
    a, b, a2 = [1, 2, 3, 4, 5, 6], [1, 9, 9, 9], [1, 2, 3, 4, 5, 7]
    # unbounded: a2 restores a's state (5 shared) rather than keep b's (1 shared)
    assert evaluated([a, b, a2], [1, 1, 1], capacity_bytes=None) == [6, 3, 1]
    # room for one state: a's was dropped when b's was saved, so a2 shares only the first token with b
    assert evaluated([a, b, a2], [1, 1, 1], capacity_bytes=states(7)) == [6, 3, 5]


def test_a_lookup_keeps_a_state_from_being_the_oldest() -> None:
    a, b, c, d = [1, 2, 3, 4], [5, 6, 7, 8], [1, 2, 3, 9], [1, 2, 3, 4, 0]
    # room for two states of 5 tokens: c's lookup touches a's state, so saving c drops b's, and d still finds a's
    assert evaluated([a, b, c, d], [1, 1, 1, 1], capacity_bytes=states(5, 5)) == [4, 4, 1, 1]
    # without the touch (a, b, then a prompt sharing nothing) a's state is the oldest and goes first
    assert evaluated([a, b, [7, 7, 7, 7], d], [1, 1, 1, 1], capacity_bytes=states(5, 5)) == [4, 4, 4, 5]


PROMPT = """Decide which of two hypotheses is better.

## Objective

Cure it.

The scientist values hypotheses that are:
- safe

A strong hypothesis here is: novel.

## Hypothesis 1

<hypothesis_text id="H-1" sha256="aa">
[H-1]
Title: one
</hypothesis_text>

Review of hypothesis 1:

fine

## How to judge

Compare them.
"""


def test_shared_first_puts_the_objective_and_the_hypotheses_before_the_instructions() -> None:
    out = shared_first(PROMPT)
    assert out.index("## Objective") < out.index("## Hypothesis 1\n\n<hypothesis_text") < out.index("Decide which")
    assert out.index("Decide which") < out.index("A strong hypothesis here is: novel.") < out.index("fine")
    assert out.index("fine") < out.index("## How to judge")
    assert "## Hypothesis 1, continued" in out
    # nothing lost: the same lines, in another order
    assert sorted(line for line in PROMPT.splitlines() if line.strip() and not line.startswith("## Hypothesis")) == \
        sorted(line for line in out.splitlines() if line.strip() and not line.startswith("## Hypothesis"))


def test_shared_first_leaves_a_prompt_without_an_objective_unchanged() -> None:
    text = "Screen the goal below.\n\n## How to fill the plan\n\n1. objective\n"
    assert shared_first(text) == text


def test_instructions_first_moves_the_fixed_sections_before_the_data_and_keeps_the_text() -> None:
    out = instructions_first(PROMPT)
    assert out.startswith("Decide which of two hypotheses is better.\n\n## How to judge\n\nCompare them.\n\n"
                          "## Objective")
    assert out.index("## Objective") < out.index("## Hypothesis 1")
    assert sorted(out.splitlines()) == sorted(PROMPT.splitlines())
    assert out.endswith("fine\n")  # the message's own ending
    assert instructions_first("No sections here.\n") == "No sections here.\n"
