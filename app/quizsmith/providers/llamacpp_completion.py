"""A completion on a loaded llama.cpp model: `LlamaCppProvider.chat` and `complete` once the
prompt is tokens (providers/llamacpp.py).

Around llama-cpp-python's own call: the prompt checked against the context, the pieces of it
whose state is kept (llamacpp_state.py), the JSON schema as a grammar, a deterministic
answer remembered in the model's memo (a re-score of an unchanged question repeats it
without decoding), and the answer read, with the model file checked when it looks like a
damaged file's noise (model_files.py).
"""

from __future__ import annotations

import copy
import json
import time
from dataclasses import replace
from pathlib import Path
from typing import Any

from quizsmith.errors import OutputParseError, ProviderError
from quizsmith.providers import interrupt, model_files
from quizsmith.providers.base import ChatResult, parse_json_output
from quizsmith.providers.llamacpp_models import MEMO_ENTRIES, LoadedModel
from quizsmith.providers.llamacpp_state import KEEP_IN_MEMORY, Keeping, start_from


def generate(
    loaded: LoadedModel,
    tokens: list[int],
    cuts: list[int],
    *,
    keeping: Keeping = KEEP_IN_MEMORY,
    started: float,
    max_tokens: int,
    temperature: float,
    seed: int | None,
    stop: list[str],
    json_schema: dict[str, Any] | None,
    stopping_criteria: Any = None,
    model_id: str,
    model_path: Path,
) -> ChatResult:
    """Complete `tokens`, evaluated in the pieces `cuts` marks (llamacpp_state); the answer
    names `model_id`, and `model_path` is the file checked when it looks damaged."""
    if not tokens:
        raise ProviderError("The prompt is empty.", "Give the model some text to continue.")
    interrupt.raise_if_stopped()  # cancelled while it waited for the model's lock
    check_fits(loaded, len(tokens), max_tokens)
    memo_key: tuple[Any, ...] | None = None
    if temperature == 0 or seed is not None:
        schema = json.dumps(json_schema, sort_keys=True) if json_schema else ""
        memo_key = (
            tuple(tokens),
            tuple(cuts),
            max_tokens,
            temperature,
            seed,
            tuple(stop),
            schema,
        )
        hit = loaded.memo.get(memo_key)
        if hit is not None:
            loaded.memo.move_to_end(memo_key)
            # A copy of the parsed JSON: a caller changing it must not change the memory.
            data = copy.deepcopy(hit.data)
            return replace(hit, data=data, seconds=time.perf_counter() - started)
    start_from(loaded, tokens, cuts, keeping=keeping)
    out = loaded.llm.create_completion(
        tokens,
        max_tokens=max_tokens,
        temperature=temperature,
        seed=seed,
        stop=stop or None,
        grammar=grammar(json_schema),
        # In the model host a cancelled call stops at its next token (interrupt.py).
        stopping_criteria=interrupt.with_stop_check(stopping_criteria),
    )
    # Cut short by a stop: neither returned nor remembered as this prompt's answer.
    interrupt.raise_if_stopped()
    choice = out["choices"][0]
    result = read_answer(
        out, choice.get("text") or "", choice, started, json_schema, model_id, model_path
    )
    if memo_key is not None:
        loaded.memo[memo_key] = replace(result, data=copy.deepcopy(result.data))
        while len(loaded.memo) > MEMO_ENTRIES:
            loaded.memo.popitem(last=False)
    return result


def grammar(schema: dict[str, Any] | None) -> Any:
    """The JSON schema as a llama.cpp grammar (None for none)."""
    if schema is None:
        return None
    from llama_cpp import LlamaGrammar

    try:
        return LlamaGrammar.from_json_schema(json.dumps(schema), verbose=False)
    except (ValueError, RuntimeError) as exc:
        raise ProviderError(f"The JSON schema cannot be turned into a grammar: {exc}.", "") from exc


def check_fits(loaded: LoadedModel, n: int, max_tokens: int) -> None:
    """A prompt of `n` tokens and the answer must fit the model's context."""
    if n + max_tokens > loaded.n_ctx:
        raise ProviderError(
            f"The prompt ({n} tokens) plus the answer ({max_tokens}) does not fit the "
            f"model's context of {loaded.n_ctx} tokens.",
            "Shorten the passage (split it), or raise n_ctx in settings for a larger model.",
        )


def read_answer(
    out: dict[str, Any],
    text: str,
    choice: dict[str, Any],
    started: float,
    schema: Any,
    model_id: str,
    model_path: Path,
) -> ChatResult:
    """The answer, unless it is noise from a damaged model file: an answer that cannot be
    read as asked or looks garbled has the file's content checked, once per process
    (providers/model_files.py), and a damaged file stops the job saying how to rebuild it."""
    try:
        result = _read(out, text, choice, started, schema, model_id)
    except OutputParseError:
        model_files.raise_if_damaged(model_path)
        raise
    if model_files.looks_garbled(result.text, result.data):
        model_files.raise_if_damaged(model_path)
    return result


def _read(
    out: dict[str, Any],
    text: str,
    choice: dict[str, Any],
    started: float,
    schema: Any,
    model_id: str,
) -> ChatResult:
    usage = out.get("usage") or {}
    finish = str(choice.get("finish_reason") or "")
    if schema is not None and finish == "length":
        raise OutputParseError(
            "The model's JSON answer was cut off at the "
            f"{usage.get('completion_tokens')}-token limit.",
            "Ask for a shorter answer or raise max_tokens.",
        )
    return ChatResult(
        text=text,
        model=model_id,
        prompt_tokens=int(usage.get("prompt_tokens") or 0),
        completion_tokens=int(usage.get("completion_tokens") or 0),
        finish_reason=finish,
        seconds=time.perf_counter() - started,
        data=parse_json_output(text) if schema is not None else None,
    )
