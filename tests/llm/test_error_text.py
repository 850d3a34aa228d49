"""The provider's words in a failed call's one line: LiteLLM's prefixes, its advice and object reprs dropped."""

from __future__ import annotations

import pytest

from cosci.llm.gateway.error_text import provider_message

CONNECT = ("litellm.InternalServerError: litellm.InternalServerError: AnthropicException - Cannot connect to host "
           "api.anthropic.com:443 ssl:<ssl.SSLContext object at 0x7f099d8992e0> [Name or service not known]. "
           "Handle with `litellm.InternalServerError`.")
BODY = ('litellm.BadRequestError: AnthropicException - {"type":"error","error":{"type":"invalid_request_error",'
        '"message":"thinking.type: Input tag \'enabled\' found using \'type\' does not match"}}')


@pytest.mark.parametrize("text, expected", [
    (CONNECT, "Cannot connect to host api.anthropic.com:443 [Name or service not known]."),
    (BODY, "invalid_request_error: thinking.type: Input tag 'enabled' found using 'type' does not match"),
    ("plain words from a provider", "plain words from a provider"),
])
def test_a_failed_call_reads_as_the_provider_said_it(text: str, expected: str) -> None:
    assert provider_message(text) == expected


def test_no_programmer_advice_or_object_repr_survives() -> None:
    line = provider_message(CONNECT)
    assert "Handle with" not in line and "object at 0x" not in line and "litellm." not in line


def test_a_thinking_form_the_model_does_not_take_names_the_setting_that_sent_it() -> None:
    """A tier's model swapped for one LiteLLM knows no thinking form of (an uncatalogued id under the fake's tiers):
    LiteLLM refuses the field before sending; the line names the tier's setting, not LiteLLM's drop_params."""
    import litellm

    from cosci.llm import errors as E
    from cosci.llm.gateway.exceptions import map_exception

    said = ("litellm.UnsupportedParamsError: openai does not support parameters: ['thinking'], for model=gpt-x. To "
            "drop these, set `litellm.drop_params=True` or for proxy:\n\n`litellm_settings: drop_params: true`\n.")
    err = map_exception(litellm.UnsupportedParamsError(message=said, llm_provider="openai", model="gpt-x"),
                        "openai/gpt-x", "strong")
    assert isinstance(err, E.PermanentLLMError) and not isinstance(err, E.TransientLLMError)
    line = str(err)
    assert "does not support parameters: ['thinking']" in line and "models.tiers.strong.thinking" in line
    assert "drop_params" not in line and "\n" not in line
    assert "the tier's thinking setting" in str(map_exception(
        litellm.UnsupportedParamsError(message=said, llm_provider="openai", model="gpt-x"), "openai/gpt-x"))
