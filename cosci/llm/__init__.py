"""The LLM edge, one package per concern (design.md#routing; the import contracts in ``pyproject.toml``):

- ``port``: what agents depend on (:class:`cosci.llm.port.types.LLMPort`, call specs, routes, responses) and
  record calls over it (:mod:`cosci.llm.port.structured`); no framework.
- ``gateway``: the LiteLLM adapter (:class:`cosci.llm.gateway.adapter.Gateway`: request, cost, retries,
  degradation, budget admission, transcripts), routing, custom providers and prices, hosted embedding calls, the
  pre-flight estimate.
- ``budget``: the token budget and the expected answer lengths it admits by; no framework.
- ``local``: the embedded model (SmolLM2 through llama-cpp-python) as a LiteLLM custom provider.
- ``embeddings``: the embedder chain (hosted, the bundled WordLlama model, hashing).
- ``batches``: provider Message Batches (the ``anthropic`` SDK, which LiteLLM does not cover).
- ``fake``: the scripted fake, a LiteLLM custom provider, its data, its answers and its batch endpoint.
- ``errors`` (the error family) and ``responses`` (LiteLLM response building, shared by the two in-process
  providers) sit under them all.

LiteLLM is imported only by ``gateway``, ``local``, ``fake``, ``batches`` and ``responses``; the tool loop is
agent-side (:mod:`cosci.agents.tool_loop`), so this package imports neither tools nor agents.
"""

import os

os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")  # never fetch the price map (LiteLLM would download it)
