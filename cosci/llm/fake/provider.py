"""The scripted fake model: one in-process LiteLLM provider (``cosci-fake/<tier>``) for tests, bench and dry
runs.

In the manner of simonw/llm's ``MockModel`` and DSPy's ``DummyLM``: tests *enqueue* replies and read the
*history* of what was asked. Selected with ``models=fake``, a whole session runs on it.

- **Scripted replies** (:meth:`FakeBackend.script`) match on agent, mode and action; unmatched calls get the
  autopilot: a literature search on the first turn of a tool loop, then a valid record filled with
  deterministic, varied content (citations taken from the tool results it saw, plus one fabricated URL that
  citation filtering must strip); tournament judges end with ``better idea: N``; debates run a few turns
  before concluding; the final overview cites the ``[H-...]`` ids it was given.
- **A record of every request** (:attr:`FakeBackend.calls`): model, agent, mode, action, task id, messages,
  tool names, tool_choice, thinking. With ``call_log`` set, each request is also appended to a JSONL file, so
  a killed process's calls survive (the resume test reads it).
- **Deterministic usage**: prompt tokens = request characters / 4, completion tokens = answer characters / 4;
  cost comes from LiteLLM's calculation over the prices in ``conf/models/fake.yaml``.
- **Embeddings** (design.md#embeddings): ``cosci-fake/embedding`` answers ``litellm.aembedding`` with the ``hash``
  vectors of the texts (usage: characters / 4 tokens; price in ``conf/models/fake.yaml``); the texts asked are
  kept in :attr:`FakeBackend.embedded`; ``embedding_faults`` queues faults for the next embedding calls.
- **Faults**: scripted (``FakeReply(fault=...)``) or at random with ``fault_rate``: ``rate_limit``,
  ``overloaded``, ``server_error``, ``timeout``, ``connection`` (transient), ``bad_request``, ``not_found``
  (permanent), ``unreachable`` (a host name that does not resolve: ``HostUnreachable``), and answer-shape faults:
  ``FakeReply.malformed`` (truncated arguments),
  ``FakeReply.no_tool_call``, ``FakeReply.empty``.
"""

from __future__ import annotations

import asyncio
import json
import random
import socket
import threading
import time
from pathlib import Path
from typing import Any

import httpx
import litellm
from litellm import CustomLLM

from cosci.config.schema import FakeModelCfg
from cosci.llm.fake import content as content
from cosci.llm.fake.types import FakeCall, FakeReply
from cosci.llm.responses import make_response

__all__ = ["FAKE", "FakeBackend", "FakeCall", "FakeReply"]

TRANSIENT_FAULTS = ("rate_limit", "overloaded", "server_error", "timeout", "connection")


class FakeBackend:
    """The fake's state: scripts, history, configuration. One per process: :data:`FAKE`."""

    def __init__(self) -> None:
        self.provider = _FakeProvider(self)
        self._lock = threading.Lock()
        self.reset()

    def reset(self) -> None:
        """Forget scripts and history; back to the default configuration."""
        with self._lock:
            self.calls: list[FakeCall] = []
            self._scripts: list[tuple[dict[str, str | None], FakeReply]] = []
            self.cfg = FakeModelCfg(seed=0, fault_rate=0.0, latency_seconds=0.0, call_log=None)
            self._rng = random.Random(0)
            self.embedded: list[list[str]] = []
            self.embedding_faults: list[str] = []

    def configure(self, cfg: FakeModelCfg) -> None:
        with self._lock:
            self.cfg = cfg
            self._rng = random.Random(cfg.seed)

    def script(self, reply: FakeReply, *, agent: str | None = None, mode: str | None = None,
               action: str | None = None, times: int = 1) -> None:
        """Queue ``reply`` for the next ``times`` calls matching agent / mode / action (None matches any)."""
        with self._lock:
            for _ in range(times):
                self._scripts.append(({"agent": agent, "mode": mode, "action": action}, reply))

    def calls_for(self, agent: str | None = None, mode: str | None = None) -> list[FakeCall]:
        return [c for c in self.calls
                if (agent is None or c.agent == agent) and (mode is None or c.mode == mode)]

    # --- answering ---------------------------------------------------------------------------------------
    def _take_script(self, call: FakeCall) -> FakeReply | None:
        with self._lock:
            for i, (match, reply) in enumerate(self._scripts):
                if all(v is None or getattr(call, k) == v for k, v in match.items()):
                    del self._scripts[i]
                    return reply
        return None

    async def respond(self, model: str, messages: list[dict[str, Any]], params: dict[str, Any],
                      metadata: dict[str, Any]) -> Any:
        tools = [t["function"]["name"] for t in params.get("tools") or []]
        call = FakeCall(model=model, agent=metadata.get("cosci_agent"), mode=metadata.get("cosci_mode"),
                        action=metadata.get("cosci_action"), task_id=metadata.get("cosci_task_id"),
                        messages=messages, tools=tools, tool_choice=params.get("tool_choice"),
                        thinking=params.get("thinking"))
        reply = self._take_script(call)
        with self._lock:
            if reply is None and self.cfg.fault_rate and self._rng.random() < self.cfg.fault_rate:
                reply = FakeReply(fault=self._rng.choice(TRANSIENT_FAULTS))
            self.calls.append(call)
        call.fault = reply.fault if reply else None
        self._log(call)
        if self.cfg.latency_seconds:
            await asyncio.sleep(self.cfg.latency_seconds)
        if reply and reply.fault:
            raise _fault(reply, model)
        # the variant number comes from the request, not from this process's call count: a killed-and-resumed
        # session must get the answers an uninterrupted one got (design.md#resume, kill at concurrency 1)
        reply = reply or content.autopilot(call, params, seed=self.cfg.seed, n=content.variant(self.cfg.seed, call),
                                           searches_per_loop=self.cfg.searches_per_loop)
        return self._response(model, call, reply, params.get("max_tokens"))

    async def embed(self, model: str, texts: list[str]) -> Any:
        """An embedding response: the ``hash`` vectors of ``texts`` (or the next queued embedding fault)."""
        from litellm.types.utils import EmbeddingResponse, Usage

        from cosci.llm.embeddings.embedder import hash_embed

        with self._lock:
            self.embedded.append(list(texts))
            fault = self.embedding_faults.pop(0) if self.embedding_faults else None
        if fault:
            raise _fault(FakeReply(fault=fault), model)
        vectors = hash_embed(list(texts))
        tokens = sum(len(t) for t in texts) // 4 + 1
        return EmbeddingResponse(model=model, data=[{"object": "embedding", "index": i, "embedding": v.tolist()}
                                                    for i, v in enumerate(vectors)],
                                 usage=Usage(prompt_tokens=tokens, completion_tokens=0, total_tokens=tokens))

    def _response(self, model: str, call: FakeCall, reply: FakeReply, max_tokens: int | None = None) -> Any:
        """The response to ``call``: its answer cut at ``max_tokens`` as a provider cuts it (``finish_reason``
        ``length``), so a call's upper bound holds on the fake too (design.md#budget)."""
        text, finish = reply.text, reply.finish_reason
        calls = [(name, args if isinstance(args, str) else json.dumps(args))
                 for name, args in reply.tool_calls]
        if max_tokens and (len(text) + sum(len(a) for _, a in calls)) // 4 + 1 > max_tokens:
            room, finish, text = 4 * max_tokens - 4, "length", text[:4 * max_tokens - 4]
            room -= len(text)
            calls = [(name, args[:max(room - sum(len(a) for _, a in calls[:i]), 0)])
                     for i, (name, args) in enumerate(calls)]
        out_chars = len(text) + sum(len(a) for _, a in calls)
        prompt_chars = len(json.dumps(call.messages, default=str)) + 200 * len(call.tools)
        return make_response(model, text=text, tool_calls=calls, prompt_tokens=prompt_chars // 4 + 1,
                             completion_tokens=out_chars // 4 + 1, finish_reason=finish)

    def _log(self, call: FakeCall) -> None:
        if not self.cfg.call_log:
            return
        line = json.dumps({"t": time.time(), "model": call.model, "agent": call.agent, "mode": call.mode,
                           "action": call.action, "task_id": call.task_id, "tools": call.tools,
                           "hash": call.request_hash(), "fault": call.fault})
        path = Path(self.cfg.call_log)
        path.parent.mkdir(parents=True, exist_ok=True)
        with self._lock, path.open("a", encoding="utf-8") as fh:
            fh.write(line + "\n")
            fh.flush()


def _fault(reply: FakeReply, model: str) -> Exception:
    kind = reply.fault
    headers = {"retry-after": str(reply.retry_after)} if reply.retry_after is not None else {}
    req = httpx.Request("POST", "https://fake.invalid/v1/messages")
    status = {"rate_limit": 429, "overloaded": 529, "server_error": 500, "bad_request": 400,
              "not_found": 404}.get(kind or "", 500)
    resp = httpx.Response(status, headers=headers, request=req)
    kw: dict[str, Any] = {"llm_provider": "cosci-fake", "model": model}
    if kind == "rate_limit":
        return litellm.RateLimitError(message="fake: rate limited", response=resp, **kw)
    if kind == "overloaded":
        return litellm.InternalServerError(message="fake: Overloaded (529)", response=resp, **kw)
    if kind == "server_error":
        return litellm.InternalServerError(message="fake: internal server error", response=resp, **kw)
    if kind == "timeout":
        return litellm.Timeout(message="fake: request timed out", **kw)
    if kind == "connection":
        return litellm.APIConnectionError(message="fake: connection reset", **kw)
    if kind == "not_found":
        return litellm.NotFoundError(message=f"fake: model {model} not found", response=resp, **kw)
    if kind == "bad_request":
        return litellm.BadRequestError(message="fake: invalid request", response=resp, **kw)
    if kind == "unreachable":  # a name that does not resolve, under LiteLLM's error as its transport leaves it
        exc = litellm.APIConnectionError(message="fake: cannot connect", **kw)
        exc.__cause__ = socket.gaierror(socket.EAI_NONAME, "Name or service not known")
        return exc
    raise ValueError(f"unknown fake fault {kind!r}")


class _FakeProvider(CustomLLM):
    def __init__(self, backend: FakeBackend) -> None:
        super().__init__()
        self.backend = backend

    async def acompletion(self, model: str, messages: list, api_base: str, custom_prompt_dict: dict,  # type: ignore[override]
                          model_response: Any, print_verbose: Any, encoding: Any, api_key: Any,
                          logging_obj: Any, optional_params: dict, acompletion: Any = None,
                          litellm_params: Any = None,
                          *args: Any, **kwargs: Any) -> Any:
        full = model if model.startswith("cosci-fake/") else f"cosci-fake/{model}"
        metadata = (litellm_params or {}).get("metadata") or {}
        return await self.backend.respond(full, messages, optional_params, metadata)

    async def aembedding(self, model: str, input: list, *args: Any, **kwargs: Any) -> Any:  # type: ignore[override]
        full = model if model.startswith("cosci-fake/") else f"cosci-fake/{model}"
        return await self.backend.embed(full, [str(t) for t in input])


FAKE = FakeBackend()
"""The process-wide fake: ``FAKE.script(...)``, ``FAKE.calls``, ``FAKE.reset()``."""
