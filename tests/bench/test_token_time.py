"""The demo's token time at the depths the tokens sit (bench/README.md, "The twelfth stop"): a scripted call log at
scripted speeds, summed by hand."""

from __future__ import annotations

import pytest

from bench.model_speed import Speeds, _span_seconds, depth_token_seconds, token_seconds


def speeds(prompt_curve: list[list[float]] | None = None, generation_curve: list[list[float]] | None = None,
           grammar_curve: list[list[float]] | None = None) -> Speeds:
    return Speeds(prompt=500.0, generation=100.0, grammar=50.0, threads=2, weights="q4_0", decoding="grammar_last",
                  prompt_curve=prompt_curve or [], generation_curve=generation_curve or [],
                  grammar_curve=grammar_curve or [])


# prompt: 1 ms a token at depth 0 rising to 3 ms at 2,000 (seconds per token linear between the points);
# free generation 10 ms, grammar 20 ms at depth 0, both twice as slow at 2,000
CURVES = {"prompt_curve": [[0, 1000.0], [1000, 500.0], [2000, 1000 / 3]],
          "generation_curve": [[0, 100.0], [2000, 50.0]], "grammar_curve": [[0, 50.0], [2000, 25.0]]}


def test_a_span_integrates_the_seconds_per_token_linearly_between_depths() -> None:
    costs = [(0.0, 0.001), (1000.0, 0.002), (2000.0, 0.003)]
    assert _span_seconds(0, 1000, costs) == pytest.approx(1.5)  # 1,000 tokens at 1.5 ms on average
    assert _span_seconds(500, 1500, costs) == pytest.approx(2.0)  # across a point: 1.75 ms, then 2.25 ms
    assert _span_seconds(700, 700, costs) == 0.0


def test_each_call_is_summed_at_its_depths_with_a_fully_reused_call_and_one_past_the_deepest_point() -> None:
    log = [
        # a fresh prompt of 1,000 tokens, then 100 grammar-constrained tokens from depth 1,000 to 1,100
        {"prompt_tokens": 1000, "prompt_evaluated": 1000, "generated": 100, "schema": True},
        # 500 tokens evaluated after a reused 1,000-token prefix, then 20 free tokens from 1,500
        {"prompt_tokens": 1500, "prompt_evaluated": 500, "generated": 20, "schema": False},
        # fully reused: no prompt token evaluated, 10 grammar tokens at depth 400
        {"prompt_tokens": 400, "prompt_evaluated": 0, "generated": 10, "schema": True},
        # deeper than the deepest point (2,000): 200 evaluated from 2,100 to 2,300, 50 free tokens from 2,300
        {"prompt_tokens": 2300, "prompt_evaluated": 200, "generated": 50},
    ]
    expected = [
        1.5 + 100 * (0.020 + 0.020 * 1050 / 2000),  # prompt 0-1,000; grammar 20 ms at 0, +20 ms per 2,000 deep
        500 * 0.00225 + 20 * (0.010 + 0.010 * 1510 / 2000),
        0.0 + 10 * (0.020 + 0.020 * 405 / 2000),
        200 * 0.003 + 50 * 0.020,  # held at the deepest point's speeds
    ]
    s = speeds(**CURVES)
    for entry, seconds in zip(log, expected, strict=True):
        assert depth_token_seconds([entry], s) == pytest.approx(seconds)
    assert depth_token_seconds(log, s) == pytest.approx(sum(expected))
    # the short-prompt figure counts every token at the short speeds, whatever its depth
    assert token_seconds(log, s) == pytest.approx((1000 + 500 + 0 + 200) / 500 + 110 / 50 + 70 / 100)


def test_without_curves_the_token_time_is_the_short_prompt_one() -> None:
    log = [{"prompt_tokens": 900, "prompt_evaluated": 600, "generated": 30, "schema": True}]
    assert depth_token_seconds(log, speeds()) == pytest.approx(token_seconds(log, speeds()))


def test_forced_tokens_a_jump_forward_evaluated_count_at_the_prompt_speed() -> None:
    entry = {"prompt_tokens": 1000, "prompt_evaluated": 0, "generated": 10, "jumped": 40, "schema": True}
    at_depth = 10 * (0.020 + 0.020 * 1005 / 2000) + 40 * (0.002 + 0.001 * 30 / 1000)  # jumped: 1,010 to 1,050
    assert depth_token_seconds([entry], speeds(**CURVES)) == pytest.approx(at_depth)
    assert token_seconds([entry], speeds()) == pytest.approx(40 / 500 + 10 / 50)
