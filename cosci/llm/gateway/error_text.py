"""The provider's own words in a LiteLLM exception (docs/design.md#permanent-errors).

LiteLLM's messages wrap the provider's error body: ``litellm.BadRequestError: AnthropicException -
{"type":"error","error":{"type":"invalid_request_error","message":"..."}}`` (a JSON text, or the bytes' repr when the
call was streamed). :func:`provider_message` returns ``<error type>: <message>`` from that body when there is one,
else the message without LiteLLM's prefixes, so a session that fails names what the provider said.
"""

from __future__ import annotations

import ast
import json
import re
from typing import Any

PREFIX = re.compile(r"^(?:litellm\.\w+:\s*)+(?:\w+Error:\s*)?(?:\w+Exception(?:\s+\w+Error)?\s*-\s*)?")
NOISE = re.compile(r"\s*Handle with `litellm\.\w+`\.?|\s*\w+:<[\w.]+ object at 0x[0-9a-f]+>")
"""LiteLLM's advice to programmers and Python object reprs (``ssl:<ssl.SSLContext object at 0x7f...>``): noise
to a researcher reading why a call failed."""
TOO_LARGE = re.compile(r"request too large|request_too_large|request exceeds the maximum", re.IGNORECASE)


def provider_message(text: str) -> str:
    """The provider's error type and message from a LiteLLM exception text, in one line."""
    text = NOISE.sub("", " ".join(text.split())).strip()
    rest = PREFIX.sub("", text)
    body = _body(rest)
    error = body.get("error") if isinstance(body, dict) else None
    if isinstance(error, dict) and error.get("message"):
        kind = error.get("type") or error.get("status") or error.get("code")
        return f"{kind}: {error['message']}" if kind else str(error["message"])
    return rest or text


def is_too_large(status: int | None, text: str) -> bool:
    """A request refused for its size (never servable as it is), not a passing rate limit."""
    return status == 413 or bool(TOO_LARGE.search(text))


def _body(text: str) -> Any:
    start = text.find("{")
    if start < 0:
        return None
    candidate = text[start:]
    if text[:start].endswith("b'") or text[:start].endswith('b"'):
        try:
            candidate = ast.literal_eval(text[start - 2:]).decode("utf-8", "replace")
        except (ValueError, SyntaxError, AttributeError):
            return None
    try:
        return json.loads(candidate)
    except json.JSONDecodeError:
        return None
