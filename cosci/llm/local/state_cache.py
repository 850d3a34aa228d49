"""The embedded model's prompt-state cache: llama-cpp-python's RAM cache with its memory counted (design.md#local).

llama-cpp-python 0.3.36's ``LlamaRAMCache`` bounds its size by ``llama_state_size`` alone, but every state it keeps
also carries a copy of the model's logits buffer (``LlamaState.scores``: ``min(tokens, n_batch)`` rows of
``n_vocab`` float32, 512 × 49,152 × 4 B = 96 MiB for SmolLM2 after any prompt of 512 tokens or more) that the bound
does not see. Measured on the embedded demo: a 256 MB cache held five such copies besides its states, and the session
process passed 3 GB. A restored state never reads those logits: ``Llama.generate`` always decodes at least one token
after ``load_state`` (``_requires_eval``), which rewrites them. So :class:`PromptStateCache` keeps only the last row
(the shape ``load_state`` broadcasts back) and counts every byte a state holds against ``capacity_bytes``, and
:class:`PromptStateLlama` does not copy the rest in the first place: llama-cpp-python's ``save_state`` copies the
whole logits buffer and the llama.cpp state three times (a buffer, a compact copy, ``bytes``) before the cache sees
it, a transient of about 150 MB per call on the demo's longer prompts; this one copies the last row and the state
once (the buffer llama.cpp writes, kept as it is), and restores it without copying either again.

Imported only when the model loads (it imports ``llama_cpp``).
"""

from __future__ import annotations

import ctypes
import time
from collections.abc import Sequence
from typing import Any

import llama_cpp
from llama_cpp import Llama, LlamaRAMCache, LlamaState


def state_bytes(state: Any) -> int:
    """Bytes a cached ``LlamaState`` holds: the llama.cpp state, the logits kept and the token ids."""
    return int(state.llama_state_size) + int(state.scores.nbytes) + int(state.input_ids.nbytes)


class PromptStateCache(LlamaRAMCache):  # type: ignore[misc]  # llama_cpp has no type information
    """A least-recently-used cache of prompt states keyed by token prefix, bounded by the bytes it really holds."""

    @property
    def cache_size(self) -> int:  # type: ignore[override]
        """Bytes held by the kept states (see :func:`state_bytes`)."""
        return sum(state_bytes(s) for s in self.cache_state.values())

    def __setitem__(self, key: Sequence[int], value: Any) -> None:
        value.scores = value.scores[-1:].copy()  # see the module docstring: never read after a restore
        super().__setitem__(key, value)


class PromptStateLlama(Llama):  # type: ignore[misc]  # llama_cpp has no type information
    """``Llama`` whose saved prompt states are built without the copies the cache drops (module docstring), and whose
    grammar-constrained generation checks the grammar on the drawn token first when ``grammar_last`` is set
    (:mod:`cosci.llm.local.sampling`, design.md#local-decoding)."""

    grammar_last = True
    piece_filter = True
    """Whether a redraw hands the grammar only the entries it may accept (:mod:`cosci.llm.local.grammar_filter`: the
    same draws, fewer entries matched); ``False`` matches the whole vocabulary, as before (to measure it)."""
    jump_forward = False
    """Whether a grammar-constrained answer under ``grammar_last`` evaluates the text the grammar forces (keys,
    punctuation) in one batch with the drawn token before it instead of drawing it token by token
    (:meth:`generate`, design.md#local-decoding)."""
    compact_json = False
    """Whether the JSON-schema grammar under ``grammar_last`` admits no space between tokens (its ``space`` rule
    emptied; strings keep theirs): the keys and punctuation after a value are then forced whole, for
    :attr:`jump_forward` (design.md#local-decoding)."""
    jumped_tokens = 0
    jump_batches = 0
    """Forced tokens evaluated in jump-forward batches, and those batches (each also holds the drawn token before its
    forced ones), since the caller last set them to 0: llama.cpp counts a batch's tokens with the prompt's."""
    _piece_index: Any = None
    draft_batches = drafted_tokens = draft_accepted = 0
    draft_seconds = 0.0
    """Since the caller last set them to 0: batches evaluated with a draft (each holds the drawn token before its
    drafted ones: llama.cpp counts their tokens with the prompt's), the drafted tokens in them, those the sampler then
    drew (kept), and the batches' wall seconds (:meth:`set_drafts`, design.md#local-drafts)."""
    sampling_seconds = 0.0
    """Wall seconds spent drawing tokens (the sampler chain, and the grammar) since the caller last set it to 0:
    llama.cpp's own counters time the decode of each token only (design.md#local-decoding)."""

    def _init_sampler(self, **kwargs: Any) -> Any:  # type: ignore[override]  # generate() passes keywords only
        return TimedSampler(self, self._sampler_for(**kwargs))

    def _sampler_for(self, **kwargs: Any) -> Any:
        grammar = kwargs.get("grammar")
        if grammar is None or not self.grammar_last or kwargs.get("logits_processor") is not None:
            return super()._init_sampler(**kwargs)
        from llama_cpp._internals import LlamaSampler

        from cosci.llm.local.sampling import GrammarLastSampler

        chain = super()._init_sampler(**{**kwargs, "grammar": None})
        if self.compact_json:
            import re

            from llama_cpp import LlamaGrammar

            grammar = LlamaGrammar.from_string(re.sub(r"(?m)^space ::= .*$", 'space ::= ""', grammar._grammar),
                                               verbose=False)
        only_grammar = LlamaSampler()
        only_grammar.add_grammar(self._model, grammar)
        index = self.piece_index() if self.piece_filter or self.jump_forward else None
        return GrammarLastSampler(chain, only_grammar, self._n_vocab, index if self.piece_filter else None,
                                  tokenize=self._forced_tokens if self.jump_forward else None, jump_index=index)

    def set_drafts(self, max_tokens: int) -> None:
        """Speculative decoding by prompt lookup with up to ``max_tokens`` drafted tokens a step (0: off), through
        llama-cpp-python's ``draft_model`` hook of ``generate`` (:mod:`cosci.llm.local.draft`, design.md#local-drafts).
        The model was not built with ``logits_all``: only a batch holding a draft gets logits at every position
        (:meth:`eval`), so prompts pay for the output layer at their last token only, as without drafts."""
        from cosci.llm.local.draft import PromptLookup

        self.draft_model: Any = PromptLookup(max_tokens) if max_tokens > 0 else None

    def eval(self, tokens: Any) -> None:  # type: ignore[override]
        """``Llama.eval``; a batch holding a draft (the drawn token, then the :attr:`draft_model`'s proposal) is
        evaluated with logits at every position, so that the sampler can draw at each (``generate`` reads them with
        negative indices, from the batch's end)."""
        drafter: Any = self.draft_model
        if drafter is None or not getattr(drafter, "drafted", 0) or self.jump_forward:
            super().eval(tokens)
            return
        drafter.drafted = 0
        started = time.perf_counter()
        self._ctx.kv_cache_seq_rm(-1, self.n_tokens, -1)
        n_past = self.n_tokens
        self._batch.set_batch(batch=tokens, n_past=n_past, logits_all=True)
        self._ctx.decode(self._batch)
        self.input_ids[n_past: n_past + len(tokens)] = tokens
        self.n_tokens += len(tokens)
        self._requires_eval = False
        self.draft_batches += 1
        self.drafted_tokens += len(tokens) - 1
        self.draft_seconds += time.perf_counter() - started

    def _forced_tokens(self, text: bytes) -> list[int]:
        return list(self.tokenize(text, add_bos=False, special=False))

    def generate(self, tokens: Any, **kwargs: Any) -> Any:  # type: ignore[override]
        """``Llama.generate``, with jump-forward when the sampler offers forced tokens (:attr:`jump_forward`): after a
        drawn token they are sent into llama-cpp-python's generator, which evaluates the drawn token and them as one
        batch and asks the sampler for each position in turn (it returns the forced tokens it holds, then draws from
        the batch's last row)."""
        if self.jump_forward and self.draft_model is not None:
            self.draft_model = None  # the two would share the batch; jump-forward is the one asked for explicitly
        position = len(tokens)  # where the next drawn token goes
        inner = super().generate(tokens, **kwargs)
        sent: list[int] | None = None
        while True:
            try:
                token = inner.send(sent)
            except StopIteration:
                return
            if self.draft_model is not None and position < self.n_tokens and int(self.input_ids[position]) == token:
                self.draft_accepted += 1  # drawn where a draft put the same token: already evaluated
            position += 1
            sampler: Any = getattr(self._sampler, "inner", None)
            sent = sampler.take_forced() if hasattr(sampler, "take_forced") else None
            if sent:
                self.jumped_tokens += len(sent)
                self.jump_batches += 1
            yield token

    def piece_index(self) -> Any:
        """The vocabulary's :class:`~cosci.llm.local.grammar_filter.PieceIndex`, built at the first call (~0.3-0.6 s;
        the session's model preload builds it, beside the server's start: design.md#startup)."""
        if self._piece_index is None:
            from cosci.llm.local.grammar_filter import PieceIndex

            self._piece_index = PieceIndex.for_model(self._model)
        return self._piece_index

    def save_state(self) -> LlamaState:
        size = llama_cpp.llama_state_get_size(self._ctx.ctx)
        buffer = (ctypes.c_uint8 * int(size))()
        n_bytes = int(llama_cpp.llama_state_get_data(self._ctx.ctx, buffer, size))
        if n_bytes > int(size):
            raise RuntimeError("Failed to copy llama state data")
        return LlamaState(scores=self._scores[-1:].copy(), input_ids=self.input_ids.copy(), n_tokens=self.n_tokens,
                          llama_state=memoryview(buffer).cast("B")[:n_bytes],  # type: ignore[arg-type]  # read as a buffer
                          llama_state_size=n_bytes,
                          seed=self._seed)

    def load_state(self, state: LlamaState) -> None:
        """Restore a saved state without llama-cpp-python's copies: its ``load_state`` broadcasts the kept logits row
        over up to ``n_batch`` rows (48 MiB) and copies the llama.cpp state into a new buffer before handing it over;
        those logits are never read after a restore (module docstring) and llama.cpp copies the state in itself."""
        self.input_ids = state.input_ids.copy()
        self.n_tokens = state.n_tokens
        self._requires_eval = True
        self._seed = state.seed
        data = state.llama_state
        size = int(state.llama_state_size)
        array = (ctypes.c_uint8 * size).from_buffer(data) if isinstance(data, memoryview) and not data.readonly \
            else (ctypes.c_uint8 * size).from_buffer_copy(data)
        if llama_cpp.llama_state_set_data(self._ctx.ctx, array, size) != size:
            raise RuntimeError("Failed to set llama state data")


class TimedSampler:
    """A sampler (llama-cpp-python's chain or :class:`~cosci.llm.local.sampling.GrammarLastSampler`) whose ``sample``
    adds its wall time to ``owner.sampling_seconds``; everything else is the sampler's own. It changes no draw."""

    def __init__(self, owner: PromptStateLlama, inner: Any) -> None:
        self.owner, self.inner = owner, inner

    def sample(self, ctx: Any, idx: int = -1) -> int:
        started = time.perf_counter()
        try:
            return int(self.inner.sample(ctx, idx))
        finally:
            self.owner.sampling_seconds += time.perf_counter() - started

    def __getattr__(self, name: str) -> Any:
        return getattr(self.inner, name)
