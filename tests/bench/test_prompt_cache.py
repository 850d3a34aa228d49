"""The cost bench's model of Anthropic's prompt cache (``bench/prompt_cache.py``), checked against a recorded
exchange and against the documented rules.

The recording (``tests/fixtures/anthropic/messages_cache_real_api_exchange.json``, sources in
``tests/fixtures/README.md``) is two requests to ``claude-sonnet-4-5`` with automatic caching (a top-level
``cache_control``: the breakpoint is the last block) and the usage Anthropic answered: the second turn read 1,111
tokens and wrote 418. Replayed through the model on a cold cache, the first request writes its prefix and the
second reads it and writes its new turn. Tokens are LiteLLM's count, not Claude's tokenizer (none ships offline), so
the model's read and write must match the recorded ones within :data:`TOLERANCE`.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from bench.cost import FRAMING_TOKENS, TRAILING_TOKENS, count
from bench.prompt_cache import Block, PromptCache, TooManyBreakpoints

FIXTURE = Path(__file__).resolve().parents[1] / "fixtures" / "anthropic" / "messages_cache_real_api_exchange.json"
TOLERANCE = 0.10
"""Relative tolerance on token counts: LiteLLM's counter stands in for Claude's tokenizer."""
MODEL = "anthropic/claude-sonnet-4-5"


def blocks(body: dict[str, Any]) -> list[Block]:
    """The cache model's blocks of a recorded Anthropic request body (automatic caching marks the last block)."""
    system = body["system"] if isinstance(body["system"], list) else [{"type": "text", "text": body["system"]}]
    out = [Block("S" + b["text"], count(MODEL, b["text"]), "cache_control" in b) for b in system]
    for m in body["messages"]:
        for i, part in enumerate(m["content"]):
            out.append(Block("M" + part["text"], count(MODEL, part["text"]) + (FRAMING_TOKENS if i == 0 else 0),
                             "cache_control" in part))
    if body.get("cache_control"):
        out[-1] = Block(out[-1].key, out[-1].tokens, True)
    return out


def test_the_model_predicts_the_recorded_cache_read_and_write() -> None:
    exchange = json.loads(FIXTURE.read_text(encoding="utf-8"))
    cache = PromptCache()
    first, second = (cache.send(MODEL, blocks(x["request"]), at=t, min_tokens=1024, trailing=TRAILING_TOKENS)
                     for t, x in ((0.0, exchange[0]), (10.0, exchange[1])))
    recorded = [x["response_usage"] for x in exchange]
    # the first request found a warm cache when it was recorded: its whole prompt is compared with the prediction
    whole = sum(recorded[0][k] for k in ("cache_read_input_tokens", "cache_creation_input_tokens", "input_tokens"))
    assert first.read == 0 and first.total == pytest.approx(whole, rel=TOLERANCE)
    assert second.read == pytest.approx(recorded[1]["cache_read_input_tokens"], rel=TOLERANCE)
    assert second.written == pytest.approx(recorded[1]["cache_creation_input_tokens"], rel=TOLERANCE)
    assert second.uncached == recorded[1]["input_tokens"] == TRAILING_TOKENS
    assert second.read == first.written  # the second turn reads exactly what the first wrote


def _req(*sizes: int, marks: tuple[int, ...] = (), salt: str = "") -> list[Block]:
    return [Block(f"{salt if i >= 2 else ''}b{i}", n, i in marks) for i, n in enumerate(sizes)]


def test_a_prefix_below_the_minimum_is_not_cached() -> None:
    cache = PromptCache()
    u = cache.send("m", _req(500, 400, marks=(1,)), at=0, min_tokens=1024)
    assert (u.read, u.written, u.uncached) == (0, 0, 900)
    assert cache.send("m", _req(500, 400, marks=(1,)), at=1, min_tokens=1024).read == 0


def test_an_entry_lives_five_minutes_from_its_last_read() -> None:
    cache = PromptCache()
    req = _req(2000, 100, marks=(0,))
    assert cache.send("m", req, at=0, min_tokens=1024).written == 2000
    assert cache.send("m", req, at=299, min_tokens=1024).read == 2000  # refreshed at 299
    assert cache.send("m", req, at=598, min_tokens=1024).read == 2000
    assert cache.send("m", req, at=899, min_tokens=1024).read == 0  # 301 s after the last read: expired


def test_a_later_breakpoint_reads_an_earlier_entry_within_twenty_blocks() -> None:
    cache = PromptCache()
    cache.send("m", _req(*[100] * 12, marks=(11,)), at=0, min_tokens=1024)  # writes 1,200 tokens at block 11
    grown = cache.send("m", _req(*[100] * 30, marks=(29,)), at=1, min_tokens=1024)
    assert (grown.read, grown.written) == (1200, 1800)
    far = PromptCache()
    far.send("m", _req(*[100] * 12, marks=(11,)), at=0, min_tokens=1024)
    assert far.send("m", _req(*[100] * 40, marks=(39,)), at=1, min_tokens=1024).read == 0  # 28 blocks back


def test_a_changed_tool_choice_misses_the_message_blocks_but_keeps_the_system_prefix() -> None:
    cache = PromptCache()
    cache.send("m", _req(1500, 300, 300, marks=(1, 2), salt="auto"), at=0, min_tokens=1024)
    forced = cache.send("m", _req(1500, 300, 300, marks=(1, 2), salt="forced"), at=1, min_tokens=1024)
    assert (forced.read, forced.written) == (1800, 300)


def test_five_breakpoints_are_refused() -> None:
    with pytest.raises(TooManyBreakpoints):
        PromptCache().send("m", _req(*[10] * 5, marks=(0, 1, 2, 3, 4)), at=0, min_tokens=1)


def test_an_entry_is_readable_only_once_its_writer_has_started_answering() -> None:
    cache = PromptCache()
    cache.send("m", _req(2000, 10, marks=(0,)), at=0, min_tokens=1024, visible_at=3)
    assert cache.send("m", _req(2000, 10, marks=(0,)), at=1, min_tokens=1024).read == 0  # concurrent: both write
    assert cache.send("m", _req(2000, 10, marks=(0,)), at=4, min_tokens=1024).read == 2000
