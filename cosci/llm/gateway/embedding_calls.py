"""Hosted embedding calls through the gateway: budget admission, cost, one transcript row, one retry owner.

design.md#budget: embeddings used to call ``litellm.aembedding`` directly, outside the budget and the transcripts, with
LiteLLM's own retries beside the gateway's. Here every hosted embedding call

- is admitted against **proximity's share** (design.md#budget: proximity 2 %, "embeddings only")
  with an upper-bound estimate (input characters / 3 tokens, priced by LiteLLM's price map or design.md#budget
  fallback), and settled with LiteLLM's actual cost (``response_cost``, else ``litellm.completion_cost``);
- writes one transcript row per attempt (agent ``proximity``, mode ``embedding``, the caller's action:
  ``dedup``, ``cluster``, ``probe``), like a completion;
- is retried by the gateway's own policy (:meth:`cosci.llm.gateway.adapter.Gateway.retrying`, design.md#retries), with
  LiteLLM's retries off (``num_retries=0``) and a hard deadline of ``retry.call_timeout_seconds``.
"""

from __future__ import annotations

import asyncio
import time
from typing import Any

import litellm
import numpy as np

from cosci.domain import Call
from cosci.llm import errors as E
from cosci.llm.budget.admission import admit_call
from cosci.llm.gateway.adapter import Gateway, estimate_call
from cosci.llm.gateway.exceptions import map_exception

EMBEDDING_AGENT = "proximity"
"""Proximity's 2 % is the embeddings' share, whichever agent asks (design.md#budget)."""
EMBEDDING_MODE = "embedding"


class EmbeddingCalls:
    """Hosted embeddings over a session's :class:`~cosci.llm.gateway.adapter.Gateway` (its budget, recorder and
    retries)."""

    def __init__(self, gateway: Gateway) -> None:
        self.gateway = gateway
        self.timeout = gateway.config.retry.call_timeout_seconds

    async def embed(self, model: str, texts: list[str], *, action: str = "embed",
                    task_id: str | None = None) -> np.ndarray:
        """Embed ``texts`` with the hosted ``model``: ``(len(texts), dim)`` float32 as the provider returns them.

        Raises:
            BudgetExceeded: proximity's share (or the session cap) would be passed; nothing was sent.
            TransientLLMError: retries ran out. PermanentLLMError: not retried.
        """
        attempt = 0
        async for trial in self.gateway.retrying():
            with trial:
                attempt += 1
                return await self._attempt(model, texts, action, task_id, attempt)
        raise AssertionError("unreachable")  # pragma: no cover

    async def _attempt(self, model: str, texts: list[str], action: str, task_id: str | None,
                       attempt: int) -> np.ndarray:
        gw = self.gateway
        chars = sum(len(t) for t in texts)
        est_usd, est_tokens = estimate_call(model, chars, 0)
        base: dict[str, Any] = {"agent": EMBEDDING_AGENT, "action": action, "mode": EMBEDDING_MODE,
                                "model": model, "task_id": task_id, "attempt": attempt}
        async with gw.call_slot():  # a provider call: one of the session's call slots (Gateway.call_slot)
            try:
                admission = await admit_call(gw.budget, EMBEDDING_AGENT, est_usd, est_tokens)
            except E.BudgetExceeded as exc:
                gw.recorder(Call(**base, outcome="error:budget", error=str(exc)))
                raise
            started = time.perf_counter()
            with admission:  # cancelled or failed unsettled: refunded
                try:
                    async with asyncio.timeout(self.timeout):
                        raw = await litellm.aembedding(model=model, input=texts, num_retries=0, timeout=self.timeout)
                except Exception as exc:
                    admission.refund()
                    if isinstance(exc, TimeoutError):
                        exc = litellm.Timeout(message=f"no answer within {self.timeout:.0f} s", model=model,
                                              llm_provider=model.split("/", 1)[0])
                    err = map_exception(exc, model)
                    will_retry = isinstance(err, E.TransientLLMError) and attempt < gw.max_attempts(err)
                    gw.recorder(Call(**base, outcome=f"{'retry' if will_retry else 'error'}:{err.kind}",
                                     latency_seconds=time.perf_counter() - started, error=str(err)))
                    raise err from exc
                vectors = np.asarray([_vector(d) for d in raw.data], dtype=np.float32)
                tokens = int(getattr(getattr(raw, "usage", None), "prompt_tokens", 0) or 0)
                cost = _cost(raw, model)
                admission.settle(cost, tokens)
        gw.recorder(Call(**base, outcome="ok", input_tokens=tokens, cost_usd=cost,
                               latency_seconds=time.perf_counter() - started,
                               request={"texts": len(texts), "chars": chars},
                               response={"vectors": len(vectors), "dim": int(vectors.shape[1]) if vectors.size else 0}))
        return vectors


def _vector(item: Any) -> list[float]:
    return list(item["embedding"] if isinstance(item, dict) else item.embedding)


def _cost(raw: Any, model: str) -> float:
    """USD of one embedding response: LiteLLM's ``response_cost``, else its price map (0 if unpriced)."""
    cost = (getattr(raw, "_hidden_params", None) or {}).get("response_cost")
    if cost is None:
        try:
            cost = litellm.completion_cost(completion_response=raw, model=model, call_type="aembedding")
        except Exception:
            cost = 0.0
    return float(cost or 0.0)
