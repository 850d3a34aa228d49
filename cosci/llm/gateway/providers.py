"""In-process LiteLLM providers and price registration.

Two custom providers are registered in ``litellm.custom_provider_map`` (a ``CustomLLM`` is the
clean in-process provider):

- ``cosci-local/<name>`` — the embedded SmolLM2-135M-Instruct run by llama-cpp-python (:mod:`.local_model`);
- ``cosci-fake/<tier>`` — the scripted, call-recording fake (:mod:`.fake`).

Models with prices in ``conf/models`` or the catalogue (``conf/catalogue``: local, fake, ollama at zero or fake
prices; OpenRouter and other models LiteLLM's map does not price at their cited list prices) are registered with
``litellm.register_model`` so LiteLLM's own cost calculation prices them like hosted models (design.md#budget).
"""

from __future__ import annotations

import contextlib
import socket
from typing import Any
from urllib.parse import urlsplit

import litellm

from cosci.config.schema import CosciConfig
from cosci.errors import MissingApiKey, ServerUnreachable, UnknownModel
from cosci.hosts import is_loopback
from cosci.llm.fake.provider import FAKE
from cosci.llm.local.model import LocalModelProvider

CUSTOM_PROVIDERS = ("cosci-local/", "cosci-fake/")


def check_models(config: CosciConfig, *, keys: bool = True) -> None:
    """Fail before any work if a tier's model cannot be called: its string names no provider LiteLLM knows, or
    its provider needs a key that is not set (LiteLLM's own checks, no network). A tier with ``api_key_env`` is
    checked by :meth:`~cosci.llm.gateway.routing.Router.check_keys`; one with ``api_base`` (a local server) has no key.
    A model the provider does not serve (``anthropic/nope``) is only found by calling it; that error ends the
    session ``failed`` (``flows.session.FATAL_ERRORS``). ``keys=False`` checks the model strings only (a cost
    estimate needs no key).

    Raises:
        UnknownModel: naming the first tier whose model no provider serves.
        MissingApiKey: naming the variable a tier's provider needs (e.g. a fake tier overridden to
            ``openai/...``: fresh-user report, the session ran with every call failing).
    """
    for tier, entry in config.models.tiers.items():
        if entry.model.startswith(CUSTOM_PROVIDERS):
            continue
        try:
            litellm.get_llm_provider(entry.model, api_base=entry.api_base)
        except Exception:  # LiteLLM raises BadRequestError ("LLM Provider NOT provided") and others
            raise UnknownModel(tier, entry.model) from None
        if not keys or entry.api_key_env or entry.api_base:
            continue
        env = litellm.validate_environment(model=entry.model)
        if not env.get("keys_in_environment") and env.get("missing_keys"):
            raise MissingApiKey(" or ".join(env["missing_keys"]), entry.model)


def check_servers(config: CosciConfig, timeout: float = 1.0) -> None:
    """Fail before any work if a tier's server on this machine (an ``api_base`` on a loopback host: Ollama, a vLLM
    or llama.cpp server) refuses connections. Without it every call failed and was retried until the session ran
    out of work: 145 attempts and 2 min 40 s before its one line. Remote hosts are left to the calls (a firewall
    or a slow network is not a refusal, and a check needs no network). ``timeout`` in seconds per connection.

    Raises:
        ServerUnreachable: naming the first such tier and its ``api_base``.
    """
    seen: set[tuple[str, int]] = set()
    for tier, entry in config.models.tiers.items():
        parts = urlsplit(entry.api_base or "")
        try:
            host, port = parts.hostname or "", parts.port or (443 if parts.scheme == "https" else 80)
        except ValueError:  # a port that is not a number: the calls name it
            continue
        if not is_loopback(host) or (host, port) in seen:
            continue
        seen.add((host, port))
        try:
            socket.create_connection((host, port), timeout=timeout).close()
        except ConnectionRefusedError:
            raise ServerUnreachable(tier, str(entry.api_base), entry.model) from None
        except OSError:  # a timeout or another fault is not a refusal: the calls meet it and say so
            continue


def warm_first_call() -> None:
    """Import what LiteLLM's first completion imports lazily, whatever the provider: its managed-file helpers
    (``update_messages_with_model_file_ids`` imports ``litellm.proxy.openai_files_endpoints.common_utils``, with
    the proxy's types) and its default tokenizer (``litellm.main.encoding``, tiktoken's cl100k, which every provider
    handler is given) and its provider config map (``ProviderConfigManager``, built on the first call's
    parameters). About 0.2-0.3 s of CPU on the first call otherwise (design.md#startup). A module LiteLLM no
    longer has is skipped: the first call then loads whatever it loads."""
    import importlib

    with contextlib.suppress(ImportError):
        importlib.import_module("litellm.proxy.openai_files_endpoints.common_utils")
    with contextlib.suppress(ImportError, AttributeError):
        importlib.import_module("litellm.main").encoding  # noqa: B018 - the attribute's lookup loads it
    with contextlib.suppress(Exception):  # its provider config map, built (and its modules imported) on first use
        litellm.utils.ProviderConfigManager.get_provider_chat_config(model="", provider=litellm.LlmProviders.ANTHROPIC)


def priced_by_litellm(model: str) -> bool:
    """Whether LiteLLM's own map prices ``model`` (its row is left as it is: registering over it would replace the
    map's limits and modes). An OpenRouter model LiteLLM does not know is priced (0.0, 0.0) by
    ``litellm.cost_per_token`` instead of raising (design.md#catalogue): such a model is *not* priced here, so
    its catalogue price is registered (design.md#budget)."""
    if model.startswith(CUSTOM_PROVIDERS):
        return False
    try:
        info = litellm.get_model_info(model)
    except Exception:  # unknown to the map
        return False
    if info.get("key") not in litellm.model_cost:  # a row LiteLLM made up (OpenRouter: costs 0), not its map's
        return False
    return info.get("input_cost_per_token") is not None and info.get("output_cost_per_token") is not None


def register_providers(config: CosciConfig) -> None:
    """Install the custom providers (once per process) and register configured model prices."""
    if config.models.fake is not None:
        FAKE.configure(config.models.fake)
    local = LocalModelProvider.instance()
    if config.models.local is not None:
        local.configure(config.models.local, seed=config.run.seed)
    current = {p["provider"] for p in (litellm.custom_provider_map or [])}
    if {"cosci-local", "cosci-fake"} - current:
        others = [p for p in (litellm.custom_provider_map or [])
                  if p["provider"] not in ("cosci-local", "cosci-fake")]
        litellm.custom_provider_map = [*others, {"provider": "cosci-local", "custom_handler": local},
                                       {"provider": "cosci-fake", "custom_handler": FAKE.provider}]
    prices: dict[str, Any] = {}
    for entry in config.models.tiers.values():
        if (entry.input_usd_per_mtok is None and entry.output_usd_per_mtok is None) or priced_by_litellm(entry.model):
            continue
        prices[entry.model] = {
            "input_cost_per_token": (entry.input_usd_per_mtok or 0.0) / 1e6,
            "output_cost_per_token": (entry.output_usd_per_mtok or 0.0) / 1e6,
            # Anthropic's cache pricing ratios: writes 1.25x, reads 0.1x the input price
            "cache_creation_input_token_cost": (entry.input_usd_per_mtok or 0.0) * 1.25 / 1e6,
            "cache_read_input_token_cost": (entry.input_usd_per_mtok or 0.0) * 0.1 / 1e6,
            # batch prices: 50 % of the list price (design.md#batches)
            "input_cost_per_token_batches": (entry.input_usd_per_mtok or 0.0) * 0.5 / 1e6,
            "output_cost_per_token_batches": (entry.output_usd_per_mtok or 0.0) * 0.5 / 1e6,
            "litellm_provider": entry.model.split("/", 1)[0], "mode": "chat",
            "supports_function_calling": True, "max_input_tokens": entry.context_window or 200_000,
            "max_output_tokens": 64_000,
        }
    # priced like hosted ones (design.md#embeddings)
    for model, usd_per_mtok in config.models.embeddings.prices.items():
        prices[model] = {"input_cost_per_token": usd_per_mtok / 1e6, "output_cost_per_token": 0.0,
                         # stated, not left to LiteLLM's default (it warned on stderr for every command)
                         "cache_creation_input_token_cost": 0.0, "cache_read_input_token_cost": 0.0,
                         "litellm_provider": model.split("/", 1)[0], "mode": "embedding", "max_input_tokens": 8192}
    if prices:
        litellm.register_model(prices)
