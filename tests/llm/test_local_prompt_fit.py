"""What the embedded model is sent of a user message: quoted blocks cut (``models.local.quote_chars``), a template's
fixed instructions first (``models.local.lead_sections``); design.md#local-prompt-fit. No model is loaded: the
provider's ``_fit`` is called on scripted messages."""

from __future__ import annotations

from pathlib import Path

from cosci.llm.local.model import DEFAULT_CFG, LocalModelProvider
from cosci.llm.local.prompt_fit import CUT, LEAD_SECTIONS, clip_quoted, lead_sections
from cosci.safety.quoting import quote_hypothesis, quote_untrusted
from tests.conftest import make_config

HYP = quote_hypothesis("Title: metformin in AML\nStatement: " + "complex I inhibition depletes stem cells " * 5, "H-1")
REVIEW = quote_untrusted("[full review] verdict: neutral", "review-R-1")


def judge_prompt(hypothesis: str) -> str:
    return (f"Decide which is better.\n\n## Objective\n\nAML drugs.\n\n## Hypothesis 1\n\n{hypothesis}\n\n"
            f"Review of hypothesis 1:\n\n{REVIEW}\n\n## How to judge\n\nCompare them.\n\nbetter idea: 1\n")


def test_a_quoted_block_keeps_its_first_characters_and_its_tags() -> None:
    text = judge_prompt(HYP)
    cut = clip_quoted(text, 40)
    body = HYP.split("\n", 1)[1].rsplit("\n", 1)[0]
    assert HYP.split("\n", 1)[0] + "\n" + body[:40].rstrip() + CUT + "\n</hypothesis_text>" in cut
    assert REVIEW in cut  # shorter than the bound: unchanged
    assert cut.replace(body[:40].rstrip() + CUT, body) == text  # nothing outside the block changed
    assert clip_quoted(text, 10_000) == text


def test_fixed_sections_move_before_the_data_and_the_rest_keeps_its_order() -> None:
    text = judge_prompt(HYP)
    moved = lead_sections(text, ("## How to judge", "## Steps"))
    opening, *sections = moved.split("## ")
    assert opening == "Decide which is better.\n\n"
    assert [s.split("\n", 1)[0] for s in sections] == ["How to judge", "Objective", "Hypothesis 1"]
    assert moved.endswith(REVIEW + "\n")  # the hypotheses and their reviews now last
    assert sorted(moved) == sorted(text)  # the same characters, reordered
    assert lead_sections(text, ()) == text and lead_sections(text, ("## Steps",)) == text


def test_two_calls_of_a_mode_share_the_moved_instructions_as_a_prefix() -> None:
    first = lead_sections(judge_prompt(HYP), LEAD_SECTIONS)
    second = lead_sections(judge_prompt(quote_hypothesis("Title: another idea", "H-2")), LEAD_SECTIONS)
    shared = first[:next(i for i, (a, b) in enumerate(zip(first, second, strict=False)) if a != b)]
    assert "## How to judge" in shared and "Compare them." in shared


def test_the_provider_fits_user_messages_only_and_as_written_when_the_settings_are_off() -> None:
    chat = [{"role": "system", "content": HYP}, {"role": "user", "content": judge_prompt(HYP)},
            {"role": "assistant", "content": HYP}, {"role": "user", "content": judge_prompt(HYP)}]
    provider = LocalModelProvider()
    provider.cfg = DEFAULT_CFG.model_copy(update={"quote_chars": 40, "lead_sections": ("## How to judge",)})
    fitted = provider._fit([dict(m) for m in chat], 900)
    assert fitted[0]["content"] == HYP and fitted[2]["content"] == HYP  # system and assistant text untouched
    for m in (fitted[1], fitted[3]):
        assert m["content"] == lead_sections(clip_quoted(judge_prompt(HYP), 40), ("## How to judge",))
    provider.cfg = DEFAULT_CFG.model_copy(update={"quote_chars": None, "lead_sections": ()})
    assert provider._fit([dict(m) for m in chat], 900) == chat


def test_the_local_preset_leaves_them_off_and_an_override_turns_them_on(tmp_path: Path) -> None:
    local = make_config(tmp_path / "a", "models=local").models.local
    assert local is not None and local.quote_chars is None and local.lead_sections == ()
    assert (DEFAULT_CFG.quote_chars, DEFAULT_CFG.lead_sections) == (None, ())
    on = make_config(tmp_path / "b", "models=local", "models.local.quote_chars=250",
                     "models.local.lead_sections=['## Steps','## How to judge']").models.local
    assert on is not None and on.quote_chars == 250 and on.lead_sections == ("## Steps", "## How to judge")


def test_a_fitted_request_draws_with_the_seed_of_the_request_as_the_agent_wrote_it() -> None:
    sent: list[dict] = []
    answer = {"choices": [{"message": {"content": "Metformin."}, "finish_reason": "stop"}], "usage": {}}

    def run(request: dict) -> tuple[dict, dict]:
        sent.append(request)
        return answer, {"prompt_evaluated": 0}

    provider = LocalModelProvider()
    provider._run = run  # type: ignore[method-assign]
    chat = [{"role": "system", "content": "You are a scientist."}, {"role": "user", "content": judge_prompt(HYP)}]
    for quote_chars, lead, seed in ((None, (), 0), (40, ("## How to judge",), 0), (40, ("## How to judge",), 1)):
        provider.configure(DEFAULT_CFG.model_copy(update={"quote_chars": quote_chars, "lead_sections": lead}),
                           seed=seed)
        provider._complete("smollm2-135m-instruct", [dict(m) for m in chat], {})
    provider._complete("smollm2-135m-instruct", [chat[0], {"role": "user", "content": judge_prompt(REVIEW)}], {})
    as_written, fitted, other_run, other_request = sent
    assert fitted["messages"] != as_written["messages"]  # the fit changed what the model is sent ...
    assert fitted["seed"] == as_written["seed"]  # ... not the numbers its sampler draws with
    assert len({as_written["seed"], other_run["seed"], other_request["seed"]}) == 3
