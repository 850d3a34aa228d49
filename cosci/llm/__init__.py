"""The LLM edge: routing, the gateway over LiteLLM, structured output, budgets, embeddings.

LiteLLM is imported only inside this package (the ``litellm`` contract in ``pyproject.toml``): by the gateway,
the providers with their two in-process models (the embedded model, :mod:`cosci.llm.local.model`, and the
scripted fake, :mod:`cosci.llm.fake`), the response builder, embeddings and batches. Agents depend on
:class:`cosci.llm.port.types.LLMPort` and :mod:`cosci.llm.port.structured`, which import no framework; the tool loop is
agent-side (:mod:`cosci.agents.tool_loop`), so this package imports neither tools nor agents.
"""

import os

os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")  # never fetch the price map (stack notes)
