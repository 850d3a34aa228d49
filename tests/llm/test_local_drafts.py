"""Speculative decoding by prompt lookup (``models.local.draft_tokens``, docs/design.md#local-drafts): the drafts
proposed from the context, and the embedded model keeping drafted tokens, its answers still parsing.

The lookup is plain numpy and tested on scripted token lists; the model tests load the embedded SmolLM2 (slow).
"""

from __future__ import annotations

import json
from typing import Any

import numpy as np
import pytest

from cosci.config.schema import LocalModelCfg
from cosci.llm.local.draft import PromptLookup
from cosci.llm.local.model import DEFAULT_CFG, strict_json


def ids(*xs: int) -> np.ndarray:
    return np.array(xs, dtype=np.intc)


def test_the_draft_is_what_followed_the_latest_earlier_occurrence_of_the_last_three_tokens() -> None:
    lookup = PromptLookup(max_tokens=3)
    # 5 6 7 occurs at 1 (then 8 9 10 11) and at 7 (then 20 21): the latest earlier one wins
    context = ids(4, 5, 6, 7, 8, 9, 10, 5, 6, 7, 20, 21, 22, 5, 6, 7)
    assert lookup(context).tolist() == [20, 21, 22]
    assert lookup.drafted == 3  # for the model's eval: this batch needs logits at every position


def test_two_tokens_are_looked_up_when_three_never_occurred_before_and_one_is_not_enough() -> None:
    lookup = PromptLookup(max_tokens=4)
    assert lookup(ids(1, 2, 3, 4, 9, 3, 4)).tolist() == [9, 3, 4]  # 3 4 at 2; what followed it, to the context's end
    assert lookup(ids(1, 2, 3, 4, 9, 8, 4)).tolist() == []  # only the last token (4) occurred before: no draft
    assert lookup.drafted == 0
    assert lookup(ids(7, 7)).tolist() == []  # too short for any tail with a token after it


def test_the_draft_never_exceeds_its_bound_and_the_bound_must_be_positive() -> None:
    lookup = PromptLookup(max_tokens=2)
    assert lookup(ids(1, 2, 3, 4, 5, 6, 1, 2, 3)).tolist() == [4, 5]
    with pytest.raises(ValueError, match="max_tokens"):
        PromptLookup(0)


def test_the_setting_is_off_unless_configured_and_bounded() -> None:
    assert DEFAULT_CFG.draft_tokens == 0
    with pytest.raises(ValueError):
        LocalModelCfg.model_validate({**DEFAULT_CFG.model_dump(), "draft_tokens": 33})


SCHEMA = {"type": "object", "properties": {"title": {"type": "string", "maxLength": 80},
                                           "statement": {"type": "string", "maxLength": 200}},
          "required": ["title", "statement"]}
PROMPT = ("Hypothesis: Metformin depletes leukemic stem cells in acute myeloid leukemia by inhibiting mitochondrial "
          "complex I, which lowers oxidative phosphorylation. Review this hypothesis: restate its title and its "
          "statement, quoting the hypothesis.")


def _answers(llama: Any, draft_tokens: int) -> tuple[list[str], int, int]:
    """Three seeded answers (two schema-constrained, one free) with ``draft_tokens``; the draft batches and the drafted
    tokens kept, summed. Checks each answer's accounting: every generated token but the last is decoded once, alone
    or in a draft's batch (drafted and kept, or the drawn token that opens the batch)."""
    import llama_cpp

    llama.set_drafts(draft_tokens)
    texts, batches, kept = [], 0, 0
    for seed, schema in ((1, SCHEMA), (2, SCHEMA), (3, None)):
        llama.reset()
        llama.draft_batches = llama.drafted_tokens = llama.draft_accepted = 0
        llama_cpp.llama_perf_context_reset(llama._ctx.ctx)
        request: dict[str, Any] = {"messages": [{"role": "user", "content": PROMPT}], "max_tokens": 160,
                                   "temperature": 0.7, "seed": seed, "repeat_penalty": 1.3}
        if schema:
            request["response_format"] = {"type": "json_object", "schema": schema}
        out = llama.create_chat_completion(**request)
        text = out["choices"][0]["message"]["content"]
        texts.append(strict_json(text) if schema else text)
        decoded = int(llama_cpp.llama_perf_context(llama._ctx.ctx).n_eval) + llama.draft_batches + llama.draft_accepted
        assert decoded in (out["usage"]["completion_tokens"], out["usage"]["completion_tokens"] - 1)
        assert llama.draft_accepted <= llama.drafted_tokens
        batches, kept = batches + llama.draft_batches, kept + llama.draft_accepted
    return texts, batches, kept


@pytest.mark.slow
@pytest.mark.timeout(240)
@pytest.mark.parametrize("grammar_last", [True, False])
def test_with_drafts_answers_parse_and_drafted_tokens_are_kept(grammar_last: bool) -> None:
    """Drafted tokens are kept where the model draws them (the answers quote the prompt). The answers are not compared
    text for text with those drawn token by token: llama.cpp's logits for a batch of one differ from a longer batch's
    by up to ~1 (bench/README.md, "The fifteenth stop"), so the draws drift apart after the first draft."""
    from cosci.llm.local.state_cache import PromptStateLlama
    from cosci.llm.local.weights import weights_path

    llama: Any = PromptStateLlama(model_path=str(weights_path("q4_0")), n_ctx=1024, n_batch=128, n_threads=1,
                                  verbose=False, seed=0)
    llama.grammar_last = grammar_last
    try:
        _, no_batches, _ = _answers(llama, 0)
        drafted, batches, kept = _answers(llama, 8)
    finally:
        llama.close()
    assert no_batches == 0
    assert all(isinstance(json.loads(t), dict) for t in drafted[:2])
    assert batches > 0 and kept > 0
