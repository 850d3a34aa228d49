"""The vocabulary entries a grammar may still accept next, found by probing its first two characters
(design.md#local-decoding).

When the drawn token is rejected, :class:`~cosci.llm.local.sampling.GrammarLastSampler` applies the grammar to the
vocabulary and draws again. llama.cpp matches every entry it is given against the grammar: ~4 ms for SmolLM2's
49,152 entries here, paid at about a third of the demo's grammar-constrained tokens (the redraws fall where the
JSON's structure leaves a handful of tokens: a quote, a comma, a brace). A grammar consumes a token's piece one
character at a time, so a piece whose first character it cannot take next is rejected, and so is one whose second
character it cannot take after the first. :class:`PieceIndex` groups the vocabulary by the first two bytes of each
piece (when both are ASCII), and :meth:`PieceIndex.candidates` asks the grammar only about the ~120 one-character
pieces, once for the first character and, after each of the few first characters it takes, once more for the
second; every entry it leaves out is one the grammar rejects, so applying the grammar to the rest and ``-inf`` to
the others gives exactly the array the whole vocabulary gave, and the same draw. An entry that does not fit the
groups (empty piece, a non-ASCII byte among its first two, a control or end-of-generation token, a byte with no
one-character token) is always handed to the grammar.

The grouping (:meth:`PieceIndex.from_pieces`) is plain Python over the pieces; the probing imports ``llama_cpp``
when called.
"""

from __future__ import annotations

import ctypes
from collections import defaultdict
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

import numpy as np

TOKEN_DTYPE = np.dtype([("id", np.intc), ("logit", np.single), ("p", np.single)], align=True)
"""The layout of llama.cpp's ``llama_token_data`` (12 bytes)."""
MAX_FORCED_CHARS = 48
"""Characters :meth:`PieceIndex.forced` follows at most (a key and its punctuation fit: the demo's longest key,
``novelty_argument``, with its quotes, colon and comma is 20)."""
MAX_SECOND_PROBES = 12
"""First characters after which the second is probed, at most: each costs a copy of the grammar's state (inside a
string nearly every character is allowed, and probing ~95 seconds would cost more than it saves)."""


class PieceIndex:
    """The vocabulary's token ids grouped by the first two bytes of their pieces (see the module docstring).

    Attributes:
        n_vocab: vocabulary size.
        probe_ids: ``(n_probes,)`` intc, one token id per ASCII byte that has a one-character token.
        probe_bytes: ``(n_probes,)`` the byte each probe stands for.
        always: ``(k,)`` intc, ids always handed to the grammar.
        single: byte -> ``(m,)`` intc ids whose piece is that one character.
        first_only: byte -> ids whose piece starts with it and whose second byte is not grouped.
        pairs: byte -> {second byte -> ids whose piece starts with the two}.
        by_first: byte -> every id whose piece starts with it (``single``, ``first_only`` and the ``pairs``).
    """

    def __init__(self, n_vocab: int, probes: dict[int, int], always: list[int], single: dict[int, list[int]],
                 first_only: dict[int, list[int]], pairs: dict[int, dict[int, list[int]]]) -> None:
        def ids(xs: Iterable[int]) -> np.ndarray:
            return np.fromiter(xs, dtype=np.intc)

        self.n_vocab = n_vocab
        self.probe_bytes = np.array(sorted(probes), dtype=np.intc)
        self.probe_ids = ids(probes[b] for b in sorted(probes))
        self.always = ids(always)
        self.single = {b: ids(v) for b, v in single.items()}
        self.first_only = {b: ids(v) for b, v in first_only.items()}
        self.pairs = {b: {b2: ids(v) for b2, v in d.items()} for b, d in pairs.items()}
        self.by_first = {b: np.concatenate([self.single.get(b, ids(())), self.first_only.get(b, ids(())),
                                            *self.pairs.get(b, {}).values()])
                         for b in probes}

    @classmethod
    def from_pieces(cls, pieces: Sequence[bytes | None], special: Iterable[int] = ()) -> PieceIndex:
        """Group a vocabulary given as its pieces (``pieces[i]``: token ``i``'s bytes as the grammar reads them,
        ``None`` when unreadable); ``special``: control and end-of-generation ids (the grammar treats them apart)."""
        special_ids = set(special)
        probes: dict[int, int] = {}
        for i, p in enumerate(pieces):
            if i not in special_ids and p is not None and len(p) == 1 and 0 < p[0] < 128:
                probes.setdefault(p[0], i)
        always: list[int] = []
        single: dict[int, list[int]] = defaultdict(list)
        first_only: dict[int, list[int]] = defaultdict(list)
        pairs: dict[int, dict[int, list[int]]] = defaultdict(lambda: defaultdict(list))
        for i, p in enumerate(pieces):
            if i in special_ids or not p or p[0] not in probes:
                always.append(i)
            elif len(p) == 1:
                single[p[0]].append(i)
            elif p[1] in probes:
                pairs[p[0]][p[1]].append(i)
            else:
                first_only[p[0]].append(i)
        return cls(len(pieces), probes, always, single, first_only, pairs)

    @classmethod
    def for_model(cls, model: Any) -> PieceIndex:
        """The index of a loaded llama-cpp-python model's vocabulary (``Llama._model``; ~0.6 s, once per model)."""
        import llama_cpp

        vocab = llama_cpp.llama_model_get_vocab(model.model)
        n = int(llama_cpp.llama_vocab_n_tokens(vocab))
        buf = ctypes.create_string_buffer(256)
        pieces: list[bytes | None] = []
        for i in range(n):  # special=True: the pieces llama.cpp's grammar matches (its vocabulary's cached pieces)
            k = llama_cpp.llama_token_to_piece(vocab, i, buf, len(buf), 0, True)
            pieces.append(buf.raw[:k] if 0 <= k <= len(buf) else None)
        special = [i for i in range(n) if llama_cpp.llama_vocab_is_eog(vocab, i)
                   or llama_cpp.llama_vocab_is_control(vocab, i)]
        return cls.from_pieces(pieces, special)

    def select(self, first: Iterable[int], second: Mapping[int, Iterable[int]]) -> np.ndarray:
        """The ids to hand to the grammar when it takes the bytes ``first`` first and, after a byte ``b`` that is a
        key of ``second``, the bytes ``second[b]`` (a byte of ``first`` that is no key: every second byte)."""
        parts = [self.always]
        for b in first:
            if b in second:
                parts.append(self.single.get(b, self.always[:0]))
                parts.append(self.first_only.get(b, self.always[:0]))
                pairs = self.pairs.get(b, {})
                parts.extend(pairs[b2] for b2 in second[b] if b2 in pairs)
            else:
                parts.append(self.by_first[b])
        return np.concatenate(parts)

    def _accepted(self, grammar: Any) -> list[int]:
        """The probe bytes ``grammar`` (a ``llama_sampler`` pointer) takes next."""
        import llama_cpp

        data = np.empty(len(self.probe_ids), dtype=TOKEN_DTYPE)
        data["id"], data["logit"], data["p"] = self.probe_ids, 0.0, 0.0
        arr = llama_cpp.llama_token_data_array(data=data.ctypes.data_as(llama_cpp.llama_token_data_p),
                                               size=len(data), selected=-1, sorted=False)
        llama_cpp.llama_sampler_apply(grammar, ctypes.byref(arr))
        return [int(b) for b in self.probe_bytes[np.isfinite(data["logit"])]]

    def _accepts_any(self, grammar: Any, ids: np.ndarray) -> bool:
        """Whether ``grammar`` takes any of ``ids`` next."""
        import llama_cpp

        if not len(ids):
            return False
        data = np.empty(len(ids), dtype=TOKEN_DTYPE)
        data["id"], data["logit"], data["p"] = ids, 0.0, 0.0
        arr = llama_cpp.llama_token_data_array(data=data.ctypes.data_as(llama_cpp.llama_token_data_p),
                                               size=len(data), selected=-1, sorted=False)
        llama_cpp.llama_sampler_apply(grammar, ctypes.byref(arr))
        return bool(np.isfinite(data["logit"]).any())

    def forced(self, grammar: Any, limit: int = MAX_FORCED_CHARS) -> bytes:
        """The characters ``grammar`` (a ``llama_sampler`` pointer holding the grammar alone, in its state now) admits
        as the only continuation, up to ``limit``: while it takes exactly one of the one-character pieces and none of
        the entries outside the groups (end of generation, non-ASCII), that character is forced
        (design.md#local-decoding, jump-forward). Read on a copy of the grammar; ``b""`` when the next character is
        free."""
        import llama_cpp

        probe = dict(zip(self.probe_bytes.tolist(), self.probe_ids.tolist(), strict=True))
        clone = llama_cpp.llama_sampler_clone(grammar)
        out = bytearray()
        try:
            while len(out) < limit:
                first = self._accepted(clone)
                if len(first) != 1 or self._accepts_any(clone, self.always):
                    break
                out.append(first[0])
                llama_cpp.llama_sampler_accept(clone, probe[first[0]])
        finally:
            llama_cpp.llama_sampler_free(clone)
        return bytes(out)

    def candidates(self, grammar: Any) -> np.ndarray:
        """``(k,)`` intc: the ids the grammar (a ``llama_sampler`` pointer holding the grammar alone, in its state
        now) may accept next; every id left out it rejects. Probes the second byte after each first byte it takes
        when it takes at most :data:`MAX_SECOND_PROBES`."""
        import llama_cpp

        first = self._accepted(grammar)
        second: dict[int, list[int]] = {}
        if len(first) <= MAX_SECOND_PROBES:
            probe = dict(zip(self.probe_bytes.tolist(), self.probe_ids.tolist(), strict=True))
            for b in first:
                clone = llama_cpp.llama_sampler_clone(grammar)
                try:
                    llama_cpp.llama_sampler_accept(clone, probe[b])
                    second[b] = self._accepted(clone)
                finally:
                    llama_cpp.llama_sampler_free(clone)
        return self.select(first, second)
