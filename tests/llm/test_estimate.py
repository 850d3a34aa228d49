"""The pre-flight estimate (seed 004: warn above 1.2x the budget), from the config alone."""

from __future__ import annotations

from pathlib import Path

import pytest

from cosci.llm.gateway.estimate import estimate_session
from cosci.text import dollars
from tests.llm.helpers import make_config


def test_hosted_models_cost_something(tmp_path: Path) -> None:
    est = estimate_session(make_config(tmp_path / "data", "models=opus", "run.budget_usd=1000"))
    assert est.usd > 0 and est.calls > 0
    assert set(est.by_agent) >= {"generation", "reflection", "ranking", "metareview", "goal_parsing"}
    assert sum(est.by_agent.values()) == pytest.approx(est.usd)
    assert not est.over_budget and "above" not in est.line()
    cheaper = estimate_session(make_config(tmp_path / "data", "models=sonnet", "run.budget_usd=1000"))
    assert 0 < cheaper.usd < est.usd  # no Opus-class tier


def test_the_embedded_model_is_free(tmp_path: Path) -> None:
    est = estimate_session(make_config(tmp_path / "data", "models=local"))
    assert est.usd == 0.0 and est.calls > 0
    assert not est.over_budget


def test_a_small_budget_is_over_budget(tmp_path: Path) -> None:
    est = estimate_session(make_config(tmp_path / "data", "models=opus", "run.budget_usd=1"))
    assert est.over_budget and not est.too_small  # enough for a first hypothesis, not for the whole session
    assert est.budget_usd == 1
    assert "above 1.2x the budget" in est.line()
    assert est.usd > 1.2 * 1


def test_the_estimate_grows_with_the_goal(tmp_path: Path) -> None:
    """Every prompt quotes the goal in its session context: a goal near the 8,000-character cap (GOAL_MAX_CHARS)
    costs over half as much again as the demo's short goal (1.6 times when written)."""
    short = estimate_session(make_config(tmp_path / "data", "experiment=demo", "models=fake"))
    long_goal = "Why do AML blasts resist cytarabine " * 220  # 7,920 characters
    long = estimate_session(make_config(tmp_path / "data", "experiment=demo", "models=fake",
                                        f"session.goal='{long_goal}'"))
    assert long.usd > 1.5 * short.usd


def test_openrouter_is_priced_within_2x_of_opus(tmp_path: Path) -> None:
    """LiteLLM prices OpenRouter models it does not know at (0.0, 0.0); the catalogue's prices apply instead
    (it was $0.14 against opus's $76 for ~1,000 calls)."""
    opus = estimate_session(make_config(tmp_path / "data", "models=opus", "run.budget_usd=1000"))
    openrouter = estimate_session(make_config(tmp_path / "data", "models=openrouter", "run.budget_usd=1000"))
    assert openrouter.calls == opus.calls
    assert opus.usd / 2 <= openrouter.usd <= opus.usd * 2, (openrouter.usd, opus.usd)


def test_a_model_with_no_price_takes_the_fallback_never_zero(tmp_path: Path) -> None:
    from cosci.llm.gateway.prices import FALLBACK_USD_PER_MTOK, estimate_call

    config = make_config(tmp_path / "data", "models=openrouter", "models.tiers.strong.model=openrouter/lab/unlisted",
                         "++models.tiers.strong.thinking=off")
    estimate_session(config)  # registers the priced tiers
    usd, tokens = estimate_call("openrouter/lab/unlisted", 3_000, 1_000, input_tokens=1_000)
    assert usd == (1_000 * FALLBACK_USD_PER_MTOK[0] + 1_000 * FALLBACK_USD_PER_MTOK[1]) / 1e6 and tokens == 2_000


def test_a_budget_under_a_cent_is_shown_not_rounded_to_zero() -> None:
    """Fresh user: `cosci estimate run.budget_usd=0.0001` printed "(budget $0.00) - above 1.2x the budget"."""
    from cosci.llm.gateway.estimate import Estimate

    line = Estimate(usd=0.0123, calls=18, budget_usd=0.0001).line()
    assert line.startswith("estimated cost ~$0.01 over ~18 model calls (budget $0.0001) - above 1.2x"), line
    assert Estimate(usd=1.5, calls=3, budget_usd=2).line() == "estimated cost ~$1.50 over ~3 model calls (budget $2.00)"


def test_a_budget_below_a_first_hypothesis_is_said_and_a_sufficient_one_is_not(tmp_path: Path) -> None:
    """The floor is the parse, one generation task and the overview, priced as the rest of the estimate."""
    from cosci.errors import first_hypothesis_needs

    est = estimate_session(make_config(tmp_path / "data", "models=opus", "run.budget_usd=0.0001"))
    assert 0 < est.floor_usd < est.usd and est.too_small
    assert est.line().endswith(f"{first_hypothesis_needs(est.floor_usd, est.floor_expected_usd)}, more than the budget "
                               "$0.0001")
    enough = estimate_session(make_config(tmp_path / "data", "models=opus", f"run.budget_usd={est.floor_usd:.4f}"))
    assert not enough.too_small and "refused" not in enough.line()
    free = estimate_session(make_config(tmp_path / "data", "models=local", "run.budget_usd=0.0001"))
    assert free.floor_usd == 0 and not free.too_small  # the embedded model costs nothing


def test_a_run_with_a_budget_below_a_first_hypothesis_is_refused_before_any_session(tmp_path: Path) -> None:
    from cosci import api
    from cosci.errors import BudgetTooSmall

    data = tmp_path / "data"
    with pytest.raises(BudgetTooSmall, match=r"^run.budget_usd=\$0.0001 is too small: a first hypothesis \("):
        api.start("Which repurposed drugs could treat AML?", ["models=fake", "tools.offline=true",
                                                             "run.budget_usd=0.0001"], data_dir=data, ui=False)
    assert not data.exists()  # nothing written: the folders the run made are taken back


def test_the_floor_holds_a_first_call_s_whole_output_as_admission_does(tmp_path: Path) -> None:
    """Fresh user: a fake session with $0.05 passed a floor priced at the expected output (~$0.007) and then admitted
    no generation call (each held at up to $0.06-0.08); the floor is now at least such a call's hold."""
    est = estimate_session(make_config(tmp_path / "data", "models=fake", "run.budget_usd=0.05"))
    assert est.too_small and est.floor_usd > 1.2 * 0.05
    assert not estimate_session(make_config(tmp_path / "data", "models=fake", "run.budget_usd=1")).too_small


def test_the_floor_says_whether_it_is_expected_or_an_upper_bound(tmp_path: Path) -> None:
    """Fresh-user trial: `cosci estimate` called the floor "estimated" ($0.13), a figure that is the upper bound of a
    call at its whole max_output_tokens: the line and the refusal name it as the budget's stop line does ("upper
    bound"), with the expected figure beside it; a floor that is the expected cost says "expected"."""
    from cosci.errors import BudgetTooSmall
    from cosci.llm.gateway.estimate import Estimate

    est = estimate_session(make_config(tmp_path / "data", "models=fake", "run.budget_usd=0.05"))
    assert est.floor_expected_usd < est.floor_usd  # the hold of the largest call is above the expected three calls
    line = est.line()
    assert f"needs ${dollars(est.floor_usd)}, the upper bound of its largest call" in line, line
    assert f"expected ~${dollars(est.floor_expected_usd)}" in line and "max_output_tokens" in line
    refusal = str(BudgetTooSmall(0.05, est.floor_usd, expected_usd=est.floor_expected_usd, estimated=True))
    assert "estimated at" not in refusal
    assert f"${dollars(est.floor_usd)}, the upper bound of its largest call" in refusal
    assert f"expected ~${dollars(est.floor_expected_usd)}" in refusal, refusal
    expected = Estimate(usd=1.0, calls=9, budget_usd=0.01, floor_usd=0.2, floor_expected_usd=0.2)
    assert expected.line().endswith("overview) needs ~$0.20 expected, more than the budget $0.01")
    assert "needs ~$0.20 expected; raise" in str(BudgetTooSmall(0.01, 0.2, expected_usd=0.2))


def test_a_refused_budget_equal_to_the_estimate_does_not_read_as_covered(tmp_path: Path) -> None:
    """Fresh-user trial: at run.budget_usd=0.05 on the fake, `cosci estimate` printed "estimated cost ~$0.05 ...
    (budget $0.05)" above a refusal, which read as if the budget covered it. The refused line names the budget beside
    the figure it cannot hold (the floor, in the same units and rounding as the refusal), never beside the estimate;
    the refusal says the figure to raise the budget to."""
    from cosci.errors import BudgetTooSmall
    from cosci.llm.gateway.estimate import Estimate

    est = estimate_session(make_config(tmp_path / "data", "experiment=demo", "models=fake", "run.budget_usd=0.05"))
    assert est.too_small
    line = Estimate(usd=0.0512, calls=34, budget_usd=0.05, floor_usd=est.floor_usd,  # the trial's figures
                    floor_expected_usd=est.floor_expected_usd).line()
    assert line.startswith("estimated cost ~$0.05 over ~34 model calls at their expected output, but"), line
    assert "(budget $0.05)" not in line and "at their expected output, but a run is refused" in line, line
    floor = dollars(est.floor_usd)
    assert line.endswith("more than the budget $0.05"), line
    assert f"needs ${floor}, the upper bound" in line
    refusal = str(BudgetTooSmall(0.05, est.floor_usd, expected_usd=est.floor_expected_usd, estimated=True))
    assert f"needs ${floor}, the upper bound of its largest call" in refusal, refusal  # the line's rounding
    assert f"; raise run.budget_usd to ${floor} or more" in refusal, refusal
    assert f"expected ~${dollars(est.floor_expected_usd)})" in refusal and "\n" not in refusal


@pytest.mark.parametrize(("budget", "floor", "expected"), [(0.05, None, None), (0.01, 0.2, 0.2)])
def test_the_line_and_the_refusal_word_the_floor_alike(tmp_path: Path, budget: float, floor: float | None,
                                                       expected: float | None) -> None:
    """Fresh-user trial: `cosci estimate` printed the floor ($0.13) twice, worded apart ("a first hypothesis needs",
    "the goal's parse, one generation and the overview need", "its"/"their largest call", "can hold"): one concept,
    one wording. Both lines say the same phrase, from one function (cosci.errors.first_hypothesis_needs)."""
    from cosci.errors import BudgetTooSmall
    from cosci.llm.gateway.estimate import Estimate

    if floor is None:
        est = estimate_session(make_config(tmp_path / "data", "models=fake", f"run.budget_usd={budget}"))
        floor, expected = est.floor_usd, est.floor_expected_usd
    else:
        est = Estimate(usd=1.0, calls=9, budget_usd=budget, floor_usd=floor, floor_expected_usd=expected)
    head = "a first hypothesis (the goal's parse, one generation and the overview) needs "
    phrase = head + (f"~${dollars(floor)} expected" if floor <= expected else
                     f"${dollars(floor)}, the upper bound of its largest call (its whole max_output_tokens, which the "
                     f"budget holds before sending it; expected ~${dollars(expected)})")
    refusal = str(BudgetTooSmall(budget, floor, expected_usd=expected, estimated=True))
    assert est.line().endswith(f"a run is refused: {phrase}, more than the budget ${dollars(budget)}"), est.line()
    assert refusal.startswith(f"run.budget_usd=${dollars(budget)} is too small: {phrase}; raise"), refusal
    assert est.line().count("first hypothesis") == refusal.count("first hypothesis") == 1


@pytest.mark.parametrize("amount", [0, 0.0001, 0.00564, 0.0072, 0.01, 0.05, 0.1257, 3, 1234.5])
def test_the_refusal_rounds_dollars_as_the_estimate_does(amount: float) -> None:
    from cosci.errors import _usd

    assert _usd(amount) == dollars(amount)
