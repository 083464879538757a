"""Evaluated prompt prefixes for llama.cpp: deterministic reuse of a passage across calls.

Why: the metrics and the generator ask many questions about the same passage (NACo's three
calls, every candidate of a ranked quiz, every live re-score while a teacher edits an item).
Evaluating the passage again each time is most of their cost on two cores.

Why not llama-cpp-python's own prefix matching: it reuses whatever the previous call left in
the KV cache, so the batch split of a prompt (and, since llama.cpp's CPU kernels depend on the
batch size, its logits: up to 0.7 in a logit measured on Gemma 3) depended on which call came
before. A re-score of an unchanged item could then change its answer. Here a call names its
reusable prefix; the prefix is always evaluated as its own batch from an empty cache, and the
rest of the prompt after it. The state after the prefix is kept (the KV cells of sequence 0,
a few MB) and restored bit for bit, so a cached prefix gives exactly the numbers of an
uncached one. Every call that names no prefix starts from an empty cache.
"""

from __future__ import annotations

import ctypes
from collections import OrderedDict
from collections.abc import Sequence
from typing import Any, NamedTuple

from quizsmith.providers.base import Fixed, Transient

#: Memory kept per loaded model for prefix states. One state is ~9 MB for 380 tokens of
#: SmolLM2-135M, ~7 MB for Gemma 3 270M; a larger model's are larger, so fewer are kept.
STATE_BUDGET_BYTES = 96 * 1024 * 1024


#: A prefix's tokens and where it was cut into evaluation pieces (both decide its state).
StateKey = tuple[tuple[int, ...], tuple[int, ...]]


class PrefixStates:
    """Least-recently-used store of prefix (tokens, cuts) -> serialized KV state, bounded in
    bytes."""

    def __init__(self, budget: int = STATE_BUDGET_BYTES) -> None:
        self.budget = budget
        self._states: OrderedDict[StateKey, bytes] = OrderedDict()
        self._bytes = 0

    def get(self, key: StateKey) -> bytes | None:
        state = self._states.get(key)
        if state is not None:
            self._states.move_to_end(key)
        return state

    def put(self, key: StateKey, state: bytes) -> None:
        if len(state) > self.budget:
            return  # one state larger than the budget: recompute it each time instead
        old = self._states.pop(key, None)
        if old is not None:
            self._bytes -= len(old)
        self._states[key] = state
        self._bytes += len(state)
        while self._bytes > self.budget:
            _, dropped = self._states.popitem(last=False)
            self._bytes -= len(dropped)

    def clear(self) -> None:
        self._states.clear()
        self._bytes = 0

    def __len__(self) -> int:
        return len(self._states)


def snapshot(llm: Any) -> bytes:
    """The KV state of sequence 0 (the only one Quizsmith uses)."""
    from llama_cpp import llama_cpp as lib

    ctx = llm._ctx.ctx
    size = int(lib.llama_state_seq_get_size(ctx, 0))
    buffer = (ctypes.c_uint8 * size)()
    written = int(lib.llama_state_seq_get_data(ctx, buffer, size, 0))
    # string_at copies in C; slicing the ctypes array would build a list of Python ints
    # (millions of them) while holding the GIL, stalling the GUI thread.
    return ctypes.string_at(buffer, written)


def restore(llm: Any, state: bytes) -> bool:
    """Load a snapshot into an empty cache; False when llama.cpp refuses it (then the caller
    evaluates the prefix instead)."""
    from llama_cpp import llama_cpp as lib

    buffer = (ctypes.c_uint8 * len(state)).from_buffer_copy(state)
    return int(lib.llama_state_seq_set_data(llm._ctx.ctx, buffer, len(state), 0)) > 0


class Keeping(NamedTuple):
    """How a call's cuts are kept beyond the call: `transient` ones not at all
    (providers.base.Transient), `fixed` ones on disk too (providers.base.Fixed)."""

    transient: frozenset[int] = frozenset()
    fixed: frozenset[int] = frozenset()


#: Every evaluated piece kept in memory, none on disk: the default of a call that marks none.
KEEP_IN_MEMORY = Keeping()


def start_from(
    loaded: Any,
    tokens: Sequence[int],
    cuts: Sequence[int],
    *,
    fresh: bool = False,
    keeping: Keeping = KEEP_IN_MEMORY,
) -> int:
    """Leave in the KV cache exactly the state of tokens[:cuts[-1]] evaluated piece by
    piece from an empty cache (tokens[0:cuts[0]], then tokens[cuts[0]:cuts[1]], ...), and
    llama-cpp-python's bookkeeping saying so; no cuts empties the cache. Pieces already
    in the cache, or kept from an earlier call, are not evaluated again; the others are,
    and kept. `fresh` evaluates everything (the reference path the tests compare the
    reuse against). A cut in `keeping.transient` is evaluated as its own piece all the same and
    serves the next call from the cache, but its state is not kept
    (providers.base.Transient). A cut in `keeping.fixed` (providers.base.Fixed) is kept on disk
    too where the model has a disk store, and read from there when memory has lost it.
    Returns the number of tokens now in the cache."""
    llm = loaded.llm
    cuts = sorted({c for c in cuts if 0 < c < len(tokens)})
    have = 0  # how many pieces the cache already holds
    if loaded.live is not None and not fresh:
        live_tokens, live_cuts = loaded.live
        for i, cut in enumerate(cuts):
            if i >= len(live_cuts) or live_cuts[i] != cut or llm.n_tokens < cut:
                break
            if live_tokens[:cut] != tuple(tokens[:cut]):
                break
            have = i + 1
    if have:
        llm._ctx.kv_cache_seq_rm(-1, cuts[have - 1], -1)
    else:
        llm.reset()
        llm._ctx.kv_cache_clear()
        loaded.live = None
        for i in reversed(range(len(cuts)) if not fresh else ()):
            key = (tuple(tokens[: cuts[i]]), tuple(cuts[: i + 1]))
            state = loaded.states.get(key)
            if state is None and cuts[i] in keeping.fixed and loaded.disk is not None:
                state = loaded.disk.get(key)
                if state is not None:
                    loaded.states.put(key, state)
            if state is not None:
                if restore(llm, state):
                    llm.input_ids[: cuts[i]] = tokens[: cuts[i]]
                    have = i + 1
                    break
                llm._ctx.kv_cache_clear()  # a refused state may have left cells behind
    done = cuts[have - 1] if have else 0
    llm.n_tokens = done
    for i in range(have, len(cuts)):
        llm.eval(list(tokens[done : cuts[i]]))  # one piece, at positions done..
        done = cuts[i]
        if not fresh and done not in keeping.transient:
            key = (tuple(tokens[:done]), tuple(cuts[: i + 1]))
            state = snapshot(llm)
            loaded.states.put(key, state)
            if done in keeping.fixed and loaded.disk is not None:
                loaded.disk.put(key, state)
    loaded.live = (tuple(tokens[:done]), tuple(cuts)) if done else None
    llm.n_tokens = done
    return done


def common_prefix(a: Sequence[int], b: Sequence[int]) -> int:
    n = 0
    for x, y in zip(a, b, strict=False):
        if x != y:
            break
        n += 1
    return n


def keeping_of(heads: Sequence[str], cuts: Sequence[int]) -> Keeping:
    """How the cuts of `heads` are kept, by the heads' types."""
    pairs = list(zip(heads, cuts, strict=False))
    return Keeping(
        frozenset(c for h, c in pairs if isinstance(h, Transient)),
        frozenset(c for h, c in pairs if isinstance(h, Fixed)),
    )
