"""The LLM edge: routing, the gateway over LiteLLM, structured output, the tool loop, budgets, embeddings.

Only :mod:`cosci.llm.gateway`, :mod:`cosci.llm.providers` with its two in-process providers (the embedded
model, :mod:`cosci.llm.local_model`, and the scripted fake, :mod:`cosci.llm.fake`) and
:mod:`cosci.llm.embeddings` import litellm. Agents depend on :class:`cosci.llm.types.LLMPort` and the helpers
in :mod:`cosci.llm.structured` and :mod:`cosci.llm.tool_loop`, which import no framework.
"""

import os

os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")  # never fetch the price map (stack notes)
