"""Grammar-constrained sampling that checks the grammar on the sampled token first (design.md#local-decoding).

llama-cpp-python 0.3.36 puts the JSON-schema grammar in its sampler chain before top-k, so llama.cpp matches every
one of SmolLM2's 49,152 vocabulary entries against the grammar at every generated token: generation under a
grammar ran at ~36 tokens/s here against ~105 without one. :class:`GrammarLastSampler` does what llama.cpp's own
``common_sampler`` does: sample with the chain alone (penalties, top-k, top-p, min-p, temperature, the seeded
draw), check only the drawn token against the grammar, and only when the grammar rejects it apply the grammar to the
whole vocabulary and draw again. Every token kept is one the grammar accepts, so the answer still matches the schema;
what changes is the distribution among the accepted tokens when the unconstrained draw was rejected (the draw is
then made among the grammar's tokens alone, as before). Used for every grammar-constrained call when
``models.local.decoding`` is ``grammar_last`` (the default; ``grammar_first`` keeps llama-cpp-python's chain).

Imported only when the model loads (it imports ``llama_cpp``).
"""

from __future__ import annotations

import ctypes
import math
from collections.abc import Callable
from typing import Any

import llama_cpp
import numpy as np

from cosci.llm.local.grammar_filter import TOKEN_DTYPE, PieceIndex

__all__ = ["TOKEN_DTYPE", "GrammarLastSampler"]


class GrammarLastSampler:
    """Stands in for llama-cpp-python's ``LlamaSampler`` inside ``Llama.generate`` (it calls ``sample`` only).

    Args:
        chain: a ``LlamaSampler`` built without the grammar (owned; closed with this object).
        grammar: a ``LlamaSampler`` holding the grammar alone (owned).
        n_vocab: vocabulary size (49,152 for SmolLM2).
        index: the vocabulary grouped by its pieces' first bytes (:class:`~cosci.llm.local.grammar_filter.PieceIndex`):
            a redraw then hands the grammar only the entries it may accept (the same array, the same draw, ~4 ms
            less); ``None``: the whole vocabulary.
    """

    def __init__(self, chain: Any, grammar: Any, n_vocab: int, index: PieceIndex | None = None,
                 tokenize: Callable[[bytes], list[int]] | None = None, jump_index: PieceIndex | None = None) -> None:
        self.chain, self.grammar, self.n_vocab, self.index = chain, grammar, n_vocab, index
        self.ids = np.arange(n_vocab, dtype=np.intc)
        self.resampled = 0
        """Tokens the grammar rejected, drawn again among the grammar's tokens."""
        self.sampled = 0
        self.tokenize, self.jump_index = tokenize, jump_index or index
        """Jump-forward (:meth:`take_forced`) when ``tokenize`` (text -> token ids, no BOS) is given: the forced
        text is read through ``jump_index`` (``index`` when not given)."""
        self.pending: list[int] = []
        """Forced tokens handed to the caller to evaluate, returned in order by the next :meth:`sample` calls."""
        self.drew = False
        self.forced_tokens = 0
        """Tokens jumped over (evaluated in a batch after the drawn token, never drawn)."""

    def _candidates(self, ctx: Any, idx: int) -> tuple[np.ndarray, Any]:
        logits = np.ctypeslib.as_array(llama_cpp.llama_get_logits_ith(ctx.ctx, idx), shape=(self.n_vocab,))
        data = np.empty(self.n_vocab, dtype=TOKEN_DTYPE)
        data["id"], data["logit"], data["p"] = self.ids, logits, 0.0
        arr = llama_cpp.llama_token_data_array(
            data=data.ctypes.data_as(llama_cpp.llama_token_data_p), size=self.n_vocab, selected=-1, sorted=False)
        return data, arr

    def _selected(self, arr: Any) -> int:
        return int(arr.data[arr.selected].id)

    def accepts(self, token: int) -> bool:
        """Whether the grammar, in its current state, accepts ``token`` next."""
        one = (llama_cpp.llama_token_data * 1)(llama_cpp.llama_token_data(token, 1.0, 0.0))
        arr = llama_cpp.llama_token_data_array(data=one, size=1, selected=-1, sorted=False)
        llama_cpp.llama_sampler_apply(self.grammar.sampler, ctypes.byref(arr))
        return not math.isinf(one[0].logit)

    def sample(self, ctx: Any, idx: int = -1) -> int:
        """Draw the next token for the logits at ``idx`` and advance the chain and the grammar by it; a forced token
        pending (:meth:`take_forced`) is returned instead, without reading the logits (the batch it was evaluated in
        kept only its last row's)."""
        if self.pending:
            token = self.pending.pop(0)
            self.accept(token)
            return token
        self.drew = True
        data, arr = self._candidates(ctx, idx)
        llama_cpp.llama_sampler_apply(self.chain.sampler, ctypes.byref(arr))
        token = self._selected(arr)
        self.sampled += 1
        if not self.accepts(token):
            self.resampled += 1
            data, arr = self._candidates(ctx, idx)
            self._apply_grammar(data, arr)
            llama_cpp.llama_sampler_apply(self.chain.sampler, ctypes.byref(arr))
            token = self._selected(arr)
        del data
        self.chain.accept(token)
        self.grammar.accept(token)
        return token

    def take_forced(self) -> list[int]:
        """After a drawn token: the tokens of the text the grammar admits as its only continuation (keys,
        punctuation), for the caller to evaluate in one batch with the drawn token and take from the next
        :meth:`sample` calls in order (``[]`` when nothing is forced, jump-forward is off, or the last token was not
        drawn). Each is checked against the grammar; the text is cut before the first it would reject."""
        if not (self.drew and self.tokenize is not None and self.jump_index is not None):
            return []
        self.drew = False
        text = self.jump_index.forced(self.grammar.sampler)
        if not text:
            return []
        tokens = self.tokenize(text)
        clone = llama_cpp.llama_sampler_clone(self.grammar.sampler)
        kept: list[int] = []
        try:
            for token in tokens:
                one = (llama_cpp.llama_token_data * 1)(llama_cpp.llama_token_data(token, 1.0, 0.0))
                arr = llama_cpp.llama_token_data_array(data=one, size=1, selected=-1, sorted=False)
                llama_cpp.llama_sampler_apply(clone, ctypes.byref(arr))
                if math.isinf(one[0].logit):
                    break
                llama_cpp.llama_sampler_accept(clone, token)
                kept.append(token)
        finally:
            llama_cpp.llama_sampler_free(clone)
        self.pending = list(kept)
        self.forced_tokens += len(kept)
        return kept

    def _apply_grammar(self, data: np.ndarray, arr: Any) -> None:
        """Set the logit of every entry of ``data`` (the whole vocabulary, ``arr`` its llama.cpp view) the grammar
        rejects to ``-inf``: through :attr:`index` when given (only the entries it may accept are matched), else by
        matching all of them."""
        if self.index is None:
            llama_cpp.llama_sampler_apply(self.grammar.sampler, ctypes.byref(arr))
            return
        ids = self.index.candidates(self.grammar.sampler)
        sub = np.empty(len(ids), dtype=TOKEN_DTYPE)
        sub["id"], sub["logit"], sub["p"] = ids, data["logit"][ids], 0.0
        view = llama_cpp.llama_token_data_array(data=sub.ctypes.data_as(llama_cpp.llama_token_data_p), size=len(sub),
                                                selected=-1, sorted=False)
        llama_cpp.llama_sampler_apply(self.grammar.sampler, ctypes.byref(view))
        logits = np.full(self.n_vocab, -np.inf, dtype=np.single)
        logits[ids] = sub["logit"]
        data["logit"] = logits

    def accept(self, token: int) -> None:
        self.chain.accept(token)
        self.grammar.accept(token)

    def reset(self) -> None:
        self.chain.reset()
        self.grammar.reset()

    def close(self) -> None:
        self.chain.close()
        self.grammar.close()
