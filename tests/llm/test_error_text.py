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
