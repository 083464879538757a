"""Option log-probabilities on a loaded llama.cpp model: the KDA/EXAM hot path.

`LlamaCppProvider.option_logprobs` and `reply_logprobs` (providers/llamacpp.py) tokenize
the prompt with each option and call `score_options`, which evaluates the shared prefix once
(its reusable heads from the kept states, llamacpp_state.py), then the options: in one
multi-sequence batch (`_score_batched`) where the provider asks for it and they fit, else one
after another (`score_with_shared_prefix`). Scored options are remembered in the model's memo
(`LoadedModel.memo`), so a re-score after a distractor edit decodes only the new option.

llama.cpp's own bookkeeping is bypassed here (tokens are decoded into its batch directly, and
only the logits rows needed are copied out): `score_options` leaves `llm.n_tokens` saying
what the cache holds afterwards.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from quizsmith.errors import ProviderError
from quizsmith.providers.base import OptionLogprob
from quizsmith.providers.llamacpp_models import MEMO_ENTRIES, LoadedModel
from quizsmith.providers.llamacpp_state import (
    KEEP_IN_MEMORY,
    Keeping,
    common_prefix,
    keeping_of,
    start_from,
)


def check_options(options: Sequence[str]) -> None:
    if any(not o for o in options):
        raise ProviderError("An option is empty.", "Fill in every option before scoring.")


def score_options(
    loaded: LoadedModel,
    options: Sequence[str],
    prefix_tokens: list[int],
    fulls: list[list[int]],
    heads: Sequence[Sequence[int]],
    head_texts: Sequence[str],
    strategy: str,
    *,
    batch_options: bool,
) -> list[OptionLogprob]:
    """option_logprobs on tokens: `fulls` are the prompt with each option, `heads` the
    token prefixes whose state is kept (see option_logprobs), or only used while in the
    cache where their text in `head_texts` is Transient. `batch_options`: the provider's
    choice of the one-batch path where the options fit it."""
    llm = loaded.llm
    longest = max(len(f) for f in fulls)
    if longest > loaded.n_ctx:
        raise ProviderError(
            f"Passage and option ({longest} tokens) exceed the model's context "
            f"({loaded.n_ctx} tokens).",
            "Shorten the passage or let the metric window it.",
        )
    # Where each option's own tokens start, and the prefix all of them share.
    starts = [max(1, min(common_prefix(prefix_tokens, f), len(f) - 1)) for f in fulls]
    shared = min(starts)
    # At least one shared token after a head: its logits predict the first option token.
    cuts = [min([common_prefix(head, f) for f in fulls] + [shared - 1]) for head in heads]
    keeping = keeping_of(head_texts, cuts)
    # The same options after the same prompt, evaluated in the same pieces, give the
    # same numbers bit for bit (tests/providers/test_llamacpp_reuse.py): remembered,
    # so a live re-score (NACo's answer and the overall estimate's signals rank the
    # same candidates) does not decode them twice.
    batched = batch_options and _fits_one_batch(loaded, fulls, shared)
    # The path taken joins the memo key: the paths differ in the last digits.
    path = ("batched" if batched else "sequential") if strategy == "reuse" else strategy
    memo_key = ("option_logprobs", tuple(map(tuple, fulls)), tuple(cuts), path)
    remembered = loaded.memo.get(memo_key)
    if remembered is not None:
        loaded.memo.move_to_end(memo_key)
        return list(remembered)
    try:
        if path == "batched" or (strategy == "scratch" and batched):
            fresh = strategy == "scratch"
            results = _score_batched(
                loaded, fulls, starts, shared, cuts, fresh=fresh, keeping=keeping
            )
        elif path == "sequential":
            results = _score_remembering_options(
                loaded, fulls, starts, shared, cuts, keeping=keeping
            )
        elif strategy == "single-pass":
            loaded.live = None
            results = [_score_single_pass(llm, f, s) for f, s in zip(fulls, starts, strict=True)]
        elif strategy == "scratch":
            results = [
                score_with_shared_prefix(loaded, [f], [s], shared, cuts, fresh=True)[0]
                for f, s in zip(fulls, starts, strict=True)
            ]
        else:
            raise ValueError(f"unknown strategy {strategy!r}")
    except RuntimeError as exc:
        loaded.live = None
        raise ProviderError(f"llama.cpp failed while scoring options: {exc}.", "") from exc
    finally:
        # Our decoding bypassed Llama's own bookkeeping. The first cells still hold
        # the reusable pieces (loaded.live says which); the rest is dropped by the next
        # call's start_from.
        llm.n_tokens = len(loaded.live[0]) if loaded.live else 0
    scored = [
        OptionLogprob(o, sum(lps), sum(lps) / len(lps), len(lps), tuple(lps))
        for o, lps in zip(options, results, strict=True)
    ]
    if strategy in ("reuse", "sequential"):
        loaded.memo[memo_key] = tuple(scored)
        while len(loaded.memo) > MEMO_ENTRIES:
            loaded.memo.popitem(last=False)
    return scored


def decode(llm: Any, tokens: Sequence[int], n_past: int, logits_from: int) -> Any:
    """Evaluate `tokens` at positions n_past.. and return the logits of tokens[logits_from:]
    as an array (rows, n_vocab). Only those rows are requested from llama.cpp: copying
    a 262k-entry vocabulary row for every prefix token would dominate the run time."""
    import numpy as np

    n_vocab = llm.n_vocab()
    rows_out = []
    for i in range(0, len(tokens), llm.n_batch):
        chunk = list(tokens[i : i + llm.n_batch])
        llm._batch.set_batch(batch=chunk, n_past=n_past + i, logits_all=False)
        flags = llm._batch.batch.logits
        wanted = 0
        for j in range(len(chunk)):
            flags[j] = i + j >= logits_from or j == len(chunk) - 1
            wanted += int(i + j >= logits_from)
        llm._ctx.decode(llm._batch)
        if wanted:
            rows = np.ctypeslib.as_array(llm._ctx.get_logits(), shape=(wanted * n_vocab,))
            rows_out.append(rows.reshape(wanted, n_vocab).copy())
    return np.concatenate(rows_out)


def option_scores(logits_before: Any, option_tokens: Sequence[int]) -> list[float]:
    """logits_before[k] predicts option_tokens[k]."""
    return [float(_log_softmax(logits_before[k])[t]) for k, t in enumerate(option_tokens)]


def score_with_shared_prefix(
    loaded: LoadedModel,
    fulls: list[list[int]],
    starts: list[int],
    shared: int,
    cuts: list[int],
    *,
    fresh: bool = False,
    keeping: Keeping = KEEP_IN_MEMORY,
) -> list[list[float]]:
    import numpy as np

    llm = loaded.llm
    k = start_from(loaded, fulls[0][:shared], cuts, fresh=fresh, keeping=keeping)
    # Positions k..shared-1 of the shared prefix; the last row predicts token `shared`.
    last = decode(llm, fulls[0][k:shared], k, logits_from=shared - k - 1)
    results = []
    for full, start in zip(fulls, starts, strict=True):
        llm._ctx.kv_cache_seq_rm(-1, shared, -1)  # drop the previous option, keep the prefix
        tail = full[shared:]
        if len(tail) > 1:
            rest = decode(llm, tail[:-1], shared, logits_from=0)
            logits = np.concatenate([last, rest])
        else:
            logits = last
        # logits[k] predicts full[shared + k]; the option's own tokens start at `start`.
        results.append(option_scores(logits[start - shared :], full[start:]))
    return results


def _score_remembering_options(
    loaded: LoadedModel,
    fulls: list[list[int]],
    starts: list[int],
    shared: int,
    cuts: list[int],
    *,
    keeping: Keeping = KEEP_IN_MEMORY,
) -> list[list[float]]:
    """The sequential path, one option at a time: an option scored before after the same
    prompt pieces (the same tokens, cuts and shared prefix) is taken from the memo, so
    after a distractor edit only the new option is decoded. Exact, not approximate: on
    this path an option's numbers do not depend on which other options were scored in
    the same call, or in which order (the KV cells after the prefix are freed and
    reused the same way for each; tests/providers/test_llamacpp_reuse.py)."""
    keys = [
        ("option", tuple(f), tuple(cuts), shared, start)
        for f, start in zip(fulls, starts, strict=True)
    ]
    known: list[list[float] | None] = [loaded.memo.get(k) for k in keys]
    missing = [i for i, found in enumerate(known) if found is None]
    if missing:
        fresh = score_with_shared_prefix(
            loaded,
            [fulls[i] for i in missing],
            [starts[i] for i in missing],
            shared,
            cuts,
            keeping=keeping,
        )
        for i, scores in zip(missing, fresh, strict=True):
            known[i] = scores
            loaded.memo[keys[i]] = scores
    for key in keys:
        loaded.memo.move_to_end(key)
    while len(loaded.memo) > MEMO_ENTRIES:
        loaded.memo.popitem(last=False)
    return [list(k) for k in known if k is not None]


def _fits_one_batch(loaded: LoadedModel, fulls: list[list[int]], shared: int) -> bool:
    """Whether every option's tokens after the shared prefix go into one decode: a
    sequence each (sequence 0 is the prefix's), at most n_batch tokens, and free cells
    for all of them after the prefix (the sequences share one pool of n_ctx cells)."""
    from llama_cpp import llama_cpp as lib

    llm = loaded.llm
    evaluated = sum(len(f) - shared - 1 for f in fulls)  # an option's last token: no input
    return (
        len(fulls) < int(lib.llama_n_seq_max(llm._ctx.ctx))
        and evaluated <= llm.n_batch
        and shared + evaluated <= loaded.n_ctx
    )


def _score_batched(
    loaded: LoadedModel,
    fulls: list[list[int]],
    starts: list[int],
    shared: int,
    cuts: list[int],
    *,
    fresh: bool = False,
    keeping: Keeping = KEEP_IN_MEMORY,
) -> list[list[float]]:
    """The shared prefix in sequence 0 (kept states as on the sequential path), then one
    decode with option i's tokens in sequence i + 1 at positions shared.. . seq_cp only
    tags the prefix's cells with the other sequences' ids: nothing is copied."""
    import numpy as np
    from llama_cpp import llama_cpp as lib

    llm = loaded.llm
    k = start_from(loaded, fulls[0][:shared], cuts, fresh=fresh, keeping=keeping)
    # Positions k..shared-1 of the shared prefix; the last row predicts token `shared`.
    last = decode(llm, fulls[0][k:shared], k, logits_from=shared - k - 1)
    memory = llm._ctx.memory
    batch = llm._batch.batch
    n = 0
    try:
        for seq, full in enumerate(fulls, start=1):
            tail = full[shared:-1]  # the last token is only predicted, never an input
            if not tail:
                continue
            lib.llama_memory_seq_cp(memory, 0, seq, 0, shared)
            for j, token in enumerate(tail):
                batch.token[n] = token
                batch.pos[n] = shared + j
                batch.n_seq_id[n] = 1
                batch.seq_id[n][0] = seq
                batch.logits[n] = True
                n += 1
        batch.n_tokens = n
        rows = np.zeros((0, llm.n_vocab()), dtype=np.float32)
        if n:
            llm._ctx.decode(llm._batch)
            n_vocab = llm.n_vocab()
            logits = np.ctypeslib.as_array(llm._ctx.get_logits(), shape=(n * n_vocab,))
            rows = logits.reshape(n, n_vocab).copy()
    finally:
        # Only sequence 0's prefix stays (what loaded.live and the kept states describe).
        lib.llama_memory_seq_keep(memory, 0)
    results = []
    at = 0
    for full, start in zip(fulls, starts, strict=True):
        count = len(full) - shared - 1
        logits = np.concatenate([last, rows[at : at + count]])
        at += count
        # logits[k] predicts full[shared + k]; the option's own tokens start at `start`.
        results.append(option_scores(logits[start - shared :], full[start:]))
    return results


def _score_single_pass(llm: Any, full: list[int], start: int) -> list[float]:
    llm._ctx.kv_cache_clear()
    logits = decode(llm, full[:-1], 0, logits_from=start - 1)
    return option_scores(logits, full[start:])


def _log_softmax(row: Any) -> Any:
    import numpy as np

    row = row.astype(np.float64)
    shifted = row - row.max()
    return shifted - np.log(np.exp(shifted).sum())
