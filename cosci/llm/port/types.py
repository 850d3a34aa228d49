"""The LLM port: what an agent asks for (:class:`CallSpec`) and what it gets back (:class:`LLMResponse`).

Messages use the OpenAI chat format (LiteLLM's lingua franca): ``{"role": "user", "content": ...}``,
assistant messages with ``tool_calls``, and ``{"role": "tool", "tool_call_id": ..., "content": ...}``. The
system prompt is a list of :class:`TextBlock`; blocks marked ``cache=True`` (safety preamble, goal, research
plan, preferences) get Anthropic ``cache_control`` at the gateway, per-task content does not (design.md#prompts
"Cached vs. Non-Cached Blocks").
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Protocol


@dataclass(frozen=True)
class Route:
    """Where an (agent, mode) call goes (design.md#routing).

    Attributes:
        model: LiteLLM model string.
        thinking_tokens: the mode's thinking budget in tokens; 0 when the tier's form is ``off``.
        max_output_tokens: max tokens per call (the cost cap), thinking and hidden reasoning included.
        max_iterations: tool-loop iterations allowed (for a debate mode: debate.max_turns, its turns).
        timeout_seconds: the call's deadline, seconds: the fixed timeout (design.md#retries: 120 s, 300 s with
            thinking), or for a streamed call ``retry.first_token_seconds`` plus ``max_output_tokens`` at the tier's
            output speed (design.md#long-calls).
        degradable: False for the never-degrade modes (``reflection.verification``, ``metareview.final``).
        constrained: the tier's output is schema-constrained (the embedded model).
        unable_to_classify: the tier is too weak to be a safety classifier; the offline screen decides.
        thinking_form: ``off``, ``budget``, ``adaptive`` or ``effort`` (:mod:`cosci.llm.port.thinking`).
        lowest_effort: effort sent by an ``effort`` tier on calls without a budget (None: no field).
        min_thinking_tokens: budget sent by a ``budget`` tier on calls without one (None: no field).
        caches: system blocks marked for caching get ``cache_control`` (the tier has ``cache_min_tokens``).
        stream: the call is streamed (its max tokens at the tier's speed outlast the fixed timeout).
        idle_seconds: a streamed call that sends nothing for this long times out, seconds.
    """

    agent: str
    mode: str
    tier: str
    model: str
    thinking_tokens: int
    max_output_tokens: int
    max_iterations: int
    timeout_seconds: float
    degradable: bool = True
    constrained: bool = False
    unable_to_classify: bool = False
    api_key_env: str | None = None
    api_base: str | None = None
    typical_output_tokens: int | None = None
    """The tier's typical answer length, tokens (admission prior and estimate; None = a share of the maximum)."""
    thinking_form: str = "off"
    lowest_effort: str | None = None
    min_thinking_tokens: int | None = None
    caches: bool = False
    stream: bool = False
    idle_seconds: float | None = None
    context_window: int | None = None
    """The model's context window, tokens (the catalogue's); an Ollama call's num_ctx is at most this."""

    @property
    def key(self) -> str:
        return f"{self.agent}.{self.mode}"


@dataclass(frozen=True)
class TextBlock:
    text: str
    cache: bool = False


@dataclass(frozen=True)
class ToolSpec:
    """A tool the model may call: ``parameters`` is a JSON schema object."""

    name: str
    description: str
    parameters: dict[str, Any]


@dataclass
class CallSpec:
    """One model call.

    Attributes:
        action: the agent action (``CreateInitialHypotheses``, ``ReviewHypothesis``...), for records and the
            fake.
        tool_choice: None (no tools / provider default), ``"auto"``, or a tool name to force that tool.
        response_schema: JSON schema a constrained tier must follow for a text answer (e.g. a verdict).
        thinking: allow the route's thinking budget on this call.
    """

    route: Route
    action: str
    system: list[TextBlock]
    messages: list[dict[str, Any]]
    task_id: str | None = None
    tools: list[ToolSpec] = field(default_factory=list)
    tool_choice: str | None = None
    response_schema: dict[str, Any] | None = None
    thinking: bool = True

    @property
    def thinking_tokens(self) -> int:
        return self.route.thinking_tokens if self.thinking else 0


@dataclass(frozen=True)
class ToolCall:
    id: str
    name: str
    arguments: str  # JSON text as the provider sent it (may be empty or truncated)


@dataclass
class LLMResponse:
    """A normalised completion. Tokens are counts; ``cost_usd`` in USD (LiteLLM); latency in seconds."""

    text: str
    tool_calls: list[ToolCall]
    thinking_blocks: list[dict[str, Any]]
    finish_reason: str | None
    model: str
    input_tokens: int = 0
    output_tokens: int = 0
    cache_read_tokens: int = 0
    cache_write_tokens: int = 0
    cost_usd: float = 0.0
    latency_seconds: float = 0.0

    def assistant_message(self) -> dict[str, Any]:
        """This response as the next assistant turn of the history (thinking blocks kept for Anthropic)."""
        msg: dict[str, Any] = {"role": "assistant", "content": self.text or None}
        if self.tool_calls:
            msg["tool_calls"] = [
                {"id": c.id, "type": "function", "function": {"name": c.name, "arguments": c.arguments}}
                for c in self.tool_calls
            ]
        if self.thinking_blocks:
            msg["thinking_blocks"] = self.thinking_blocks
        return msg


class LLMPort(Protocol):
    """The one port agents call. Implemented by :class:`cosci.llm.gateway.adapter.Gateway`.

    Raises:
        TransientLLMError: after the gateway's retries ran out.
        PermanentLLMError: never retried.
        BudgetExceeded: the call was not admitted.
    """

    async def complete(self, spec: CallSpec) -> LLMResponse: ...


@dataclass(frozen=True)
class BatchRequest:
    """One call sent inside a provider message batch (design.md#batches): ``custom_id`` names it in the batch's
    results."""

    custom_id: str
    spec: CallSpec


class BatchPort(Protocol):
    """The batch side of the gateway (:class:`cosci.llm.batches.batch_gateway.BatchGateway`), for the ranking batch
    pool.

    Raises (each method): TransientLLMError after the gateway's retries, PermanentLLMError.
    """

    def supports(self, route: Route) -> bool: ...

    async def submit(self, requests: list[BatchRequest]) -> tuple[str, list[str]]:
        """Admit and submit; returns ``(batch id, custom ids the budget refused)``."""
        ...

    async def ended(self, route: Route, batch_id: str) -> bool: ...

    def reserved_usd(self, custom_id: str) -> float:
        """USD held for a submitted request until its result is settled (0 once settled)."""
        ...

    async def results(self, route: Route, batch_id: str,
                      requests: list[BatchRequest]) -> dict[str, LLMResponse | None]:
        """Per custom id: the response (priced at the batch price), or None when it errored or expired."""
        ...
