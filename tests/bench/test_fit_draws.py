"""bench.fit_draws: decision calls found by their schema, seeded as the embedded provider seeds them, fitted on user
messages only, and the choices counted per arm (design.md#local-prompt-fit). No model is loaded."""

from __future__ import annotations

from bench.fit_draws import decision_key, fitted, seeded, summarise
from cosci.llm.local.model import DEFAULT_CFG, LocalModelProvider
from cosci.safety.quoting import quote_hypothesis

VERDICT = {"type": "object", "properties": {"rationale": {"type": "string"}, "better_idea": {"enum": [1, 2]}}}
PROMPT = "Decide.\n\n## Hypothesis 1\n\n" + quote_hypothesis("Title: metformin " + "in AML " * 40, "H-1") + "\n"


def test_a_decision_call_is_one_whose_schema_holds_an_enumerated_choice() -> None:
    assert decision_key({"response_format": {"schema": VERDICT}}) == "better_idea"
    free = {"type": "object", "properties": {"better_idea": {"type": "integer"}, "notes": {"type": "string"}}}
    assert decision_key({"response_format": {"schema": free}}) is None
    assert decision_key({"messages": []}) is None


def test_the_seed_is_the_one_the_provider_gives_the_same_request() -> None:
    sent: list[dict] = []
    provider = LocalModelProvider()
    provider._run = lambda request: (sent.append(request) or  # type: ignore[method-assign]
                                     ({"choices": [{"message": {"content": "{}"}}], "usage": {}},
                                      {"prompt_evaluated": 0}))
    provider.configure(DEFAULT_CFG, seed=3)
    provider._complete("smollm2-135m-instruct", [{"role": "user", "content": PROMPT}],
                       {"response_format": {"type": "json_object", "schema": VERDICT}})
    request = sent[0]
    assert seeded(3, request["messages"], request["response_format"]["schema"]) == request["seed"]
    assert seeded(4, request["messages"], request["response_format"]["schema"]) != request["seed"]


def test_only_user_messages_are_fitted() -> None:
    chat = [{"role": "system", "content": PROMPT}, {"role": "user", "content": PROMPT}]
    out = fitted(chat, 40, lead=False)
    assert out[0] == chat[0] and len(out[1]["content"]) < len(PROMPT) and chat[1]["content"] == PROMPT


def test_the_choices_are_counted_per_arm_and_agreement_is_counted_seed_by_seed() -> None:
    picks = {"whole": [1, 2, 2, None], "fit": [2, 2, 1, None], "fit_same_seed": [1, 2, 2, 1]}
    tokens = {"whole": [30, 40, 50, 60], "fit": [10, 10, 10, 10], "fit_same_seed": [0, 0, 0, 4]}
    row = summarise(9, "better_idea", picks, tokens)
    assert row["whole"] == {"1": 1, "2": 2, "None": 1} and row["fit"] == {"1": 1, "2": 2, "None": 1}
    assert (row["fit_agrees"], row["fit_same_seed_agrees"]) == (2, 3)
    assert (row["whole_generated"], row["fit_generated"], row["fit_same_seed_generated"]) == (45.0, 10.0, 1.0)
