"""The vocabulary index that lets a grammar redraw match only the entries it may accept
(cosci/llm/local/grammar_filter.py, design.md#local-decoding): grouping scripted pieces, selecting by the bytes a
grammar takes, and (slow, the embedded model) the same draws as matching the whole vocabulary."""

from __future__ import annotations

import json
from typing import Any

import numpy as np
import pytest

from cosci.llm.local.grammar_filter import PieceIndex

PIECES: list[bytes | None] = [
    b"<|end|>",  # 0: special (end of generation)
    b'"',  # 1: probe for '"'
    b",",  # 2: probe for ','
    b" ",  # 3: probe for ' '
    b"a",  # 4: probe for 'a'
    b'",',  # 5: '"' then ','
    b' "',  # 6: ' ' then '"'
    b" apple",  # 7: ' ' then 'a'
    b"apple",  # 8: 'a' then no probe ('p' has none)
    "é".encode(),  # 9: non-ASCII first byte
    b"",  # 10: empty
    None,  # 11: unreadable
    b"zz",  # 12: 'z' has no one-character token
    b" \xc3\xa9",  # 13: ' ' then a non-ASCII byte
    b'"',  # 14: a second one-character '"'
]


def index() -> PieceIndex:
    return PieceIndex.from_pieces(PIECES, special=[0])


def test_pieces_are_grouped_by_their_first_two_bytes() -> None:
    ix = index()
    probes = dict(zip(ix.probe_bytes.tolist(), ix.probe_ids.tolist(), strict=True))
    assert probes == {ord('"'): 1, ord(","): 2, ord(" "): 3, ord("a"): 4}  # the special token is never a probe
    assert sorted(ix.always.tolist()) == [0, 9, 10, 11, 12]
    assert ix.single[ord('"')].tolist() == [1, 14]
    assert ix.pairs[ord('"')][ord(",")].tolist() == [5]
    assert ix.pairs[ord(" ")][ord('"')].tolist() == [6] and ix.pairs[ord(" ")][ord("a")].tolist() == [7]
    assert ix.first_only[ord("a")].tolist() == [8] and ix.first_only[ord(" ")].tolist() == [13]
    every = np.concatenate([ix.always, *ix.by_first.values()])
    assert sorted(every.tolist()) == list(range(len(PIECES)))  # each id in exactly one group


def test_selection_keeps_every_entry_the_probed_bytes_allow_and_those_always_checked() -> None:
    ix = index()
    # the grammar takes '"' or ' ' first; after ' ' only '"' (so " apple" is left out), '"' not probed further
    chosen = sorted(ix.select([ord('"'), ord(" ")], {ord(" "): [ord('"')]}).tolist())
    assert chosen == [0, 1, 3, 5, 6, 9, 10, 11, 12, 13, 14]
    assert 7 not in chosen and 8 not in chosen and 2 not in chosen
    # nothing taken: only the entries always handed to the grammar
    assert sorted(ix.select([], {}).tolist()) == [0, 9, 10, 11, 12]


class ScriptedGrammar:
    """Stands in for llama.cpp's grammar in :meth:`PieceIndex.candidates`: takes the bytes of ``allowed`` (a
    prefix-closed set of byte strings), in the state ``taken``."""

    def __init__(self, allowed: set[bytes], taken: bytes = b"") -> None:
        self.allowed, self.taken = allowed, taken


@pytest.fixture
def clones(monkeypatch: pytest.MonkeyPatch) -> list[ScriptedGrammar]:
    """llama.cpp's sampler calls on a :class:`ScriptedGrammar` (clone, accept a piece of :data:`PIECES`, free); the
    list holds the copies not yet freed."""
    piece = dict(enumerate(PIECES))
    live: list[ScriptedGrammar] = []

    class FakeLlamaCpp:
        @staticmethod
        def llama_sampler_clone(g: ScriptedGrammar) -> ScriptedGrammar:
            live.append(ScriptedGrammar(g.allowed, g.taken))
            return live[-1]

        @staticmethod
        def llama_sampler_accept(g: ScriptedGrammar, token: int) -> None:
            g.taken += piece[token] or b""

        @staticmethod
        def llama_sampler_free(g: ScriptedGrammar) -> None:
            live.remove(g)

    import sys

    monkeypatch.setitem(sys.modules, "llama_cpp", FakeLlamaCpp)
    return live


def test_candidates_probe_the_first_and_second_byte(monkeypatch: pytest.MonkeyPatch,
                                                    clones: list[ScriptedGrammar]) -> None:
    ix = index()

    def accepted(grammar: ScriptedGrammar) -> list[int]:
        return [b for b in ix.probe_bytes.tolist() if grammar.taken + bytes([b]) in grammar.allowed]

    monkeypatch.setattr(PieceIndex, "_accepted", lambda self, g: accepted(g))
    grammar = ScriptedGrammar({b'"', b'",', b" ", b' "'})
    assert sorted(ix.candidates(grammar).tolist()) == [0, 1, 3, 5, 6, 9, 10, 11, 12, 13, 14]
    assert clones == []  # every copy of the grammar's state freed


def test_forced_text_runs_while_the_grammar_takes_one_character_and_nothing_outside_the_groups(
        monkeypatch: pytest.MonkeyPatch, clones: list[ScriptedGrammar]) -> None:
    """Jump-forward's reading (design.md#local-decoding): the characters the grammar admits alone, on a copy of its
    state, stopping where it takes two, where it would take an entry outside the groups, or at the limit."""
    ix = index()
    monkeypatch.setattr(PieceIndex, "_accepted", lambda self, g: [
        b for b in self.probe_bytes.tolist() if g.taken + bytes([b]) in g.allowed])
    # an entry outside the groups (here: the end of generation) is taken once the whole text is in
    monkeypatch.setattr(PieceIndex, "_accepts_any", lambda self, g, ids: g.taken.endswith(b"!"))
    key = ScriptedGrammar({b'"', b'"a', b'"a"', b'"a",', b'"a", ', b'"a",,'})
    assert ix.forced(key) == b'"a",'  # then ' ' or ',' : two characters, free
    assert ix.forced(key, limit=2) == b'"a'
    assert ix.forced(ScriptedGrammar({b'"', b" "})) == b""  # two at once: nothing forced
    assert ix.forced(ScriptedGrammar({b'"', b'"!'}, taken=b"!")) == b""  # an entry outside the groups is taken
    assert clones == []  # the grammar's own state untouched, every copy freed


@pytest.mark.slow
@pytest.mark.timeout(300)
def test_a_redraw_through_the_index_draws_what_the_whole_vocabulary_drew() -> None:
    """The index only leaves out entries the grammar rejects, so every answer is the same token for token, and
    redraws did happen (design.md#local-decoding)."""
    from cosci.llm.local.state_cache import PromptStateLlama
    from cosci.llm.local.weights import weights_path

    schema = {"type": "object", "properties": {
        "title": {"type": "string", "maxLength": 40},
        "scores": {"type": "object", "properties": {"novelty": {"type": "integer", "minimum": 1, "maximum": 5}},
                   "required": ["novelty"]},
        "strengths": {"type": "array", "items": {"type": "string", "maxLength": 40}, "maxItems": 2},
        "verdict": {"type": "string", "enum": ["accept", "revise", "reject"]}},
        "required": ["title", "scores", "strengths", "verdict"]}
    prompt = "Review this hypothesis: metformin slows acute myeloid leukemia growth through AMPK. " * 4
    llama: Any = PromptStateLlama(model_path=str(weights_path("q4_0")), n_ctx=1024, n_batch=128, n_threads=1,
                                  verbose=False, seed=0)
    answers: dict[bool, list[str]] = {}
    redrawn = 0
    try:
        for piece_filter in (False, True):
            llama.piece_filter = piece_filter
            for seed in range(2):
                llama.reset()
                out = llama.create_chat_completion(messages=[{"role": "user", "content": prompt}], max_tokens=120,
                                                   temperature=0.7, seed=seed, repeat_penalty=1.3,
                                                   response_format={"type": "json_object", "schema": schema})
                answers.setdefault(piece_filter, []).append(out["choices"][0]["message"]["content"])
                assert (llama._sampler.inner.index is not None) is piece_filter
                redrawn += llama._sampler.inner.resampled if piece_filter else 0
    finally:
        llama.close()
    assert answers[True] == answers[False]
    assert all(isinstance(json.loads(a, strict=False), dict) for a in answers[True])
    assert redrawn > 0
