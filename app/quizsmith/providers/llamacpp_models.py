"""Loaded llama.cpp models: one per file and settings per process, shared by every
LlamaCppProvider (providers/llamacpp.py) and guarded by a lock, with the state kept beside
each (evaluated prompt prefixes, llamacpp_state.py; remembered deterministic answers).

llama.cpp contexts are not thread-safe, and the GUI and batch jobs must not load a model
twice. Models load lazily on first use; `unload_all` frees them (at exit too) and
`forget_kept_state` drops what each remembers.
"""

from __future__ import annotations

import atexit
import contextlib
import logging
import os
import threading
from collections import OrderedDict
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from quizsmith.errors import ModelNotFoundError, ProviderError
from quizsmith.providers import chat_formats, native_check, native_logs
from quizsmith.providers.llamacpp_disk_states import DiskStates, model_identity
from quizsmith.providers.llamacpp_state import PrefixStates

#: Sequences of a loaded context (llama.cpp's n_seq_max): sequence 0 holds the prompt, the
#: others one option each, so up to OPTION_SEQUENCES - 1 options are scored in one batch.
#: The KV cache is unified (one pool of n_ctx cells for all sequences, the prefix cells shared
#: by seq_cp, not copied), so more sequences cost no KV memory; a question with more options
#: is scored one option at a time.
OPTION_SEQUENCES = 16

#: Finished deterministic calls kept per model (greedy, or seeded sampling): a re-score of an
#: item whose question did not change (a distractor was edited) repeats NACo's calls exactly.
MEMO_ENTRIES = 1024


def physical_cores() -> int:
    """Physical cores (llama.cpp gains nothing from hyper-threads), at least 1."""
    seen: set[str] = set()
    cpu_root = Path("/sys/devices/system/cpu")
    for topo in cpu_root.glob("cpu[0-9]*/topology/core_cpus_list"):
        try:
            seen.add(topo.read_text().strip())
        except OSError:
            continue
    if seen:
        return len(seen)
    return max(1, (os.cpu_count() or 2) // 2)


@dataclass
class LoadedModel:
    """A model file loaded with its settings, and the state kept beside it."""

    llm: Any
    lock: threading.RLock
    n_ctx: int
    has_chat_template: bool
    #: Evaluated prompt prefixes (see llamacpp_state for why this is not llama-cpp's own).
    states: PrefixStates = field(default_factory=PrefixStates)
    #: (tokens, cuts) whose canonical state fills the KV cells 0..len(tokens)-1 right now.
    live: tuple[tuple[int, ...], tuple[int, ...]] | None = None
    #: The chat template, rendered here so that the prompt's tokens are known: the model's
    #: own (rendered within a budget), else its family's built-in format
    #: (`choose_template`), else None (no template: a base model).
    formatter: Any = None
    #: Why the model's own template is not used ("" when it is, or when it has none).
    template_note: str = ""
    #: Set by unload_all: the llama.cpp context is freed and must not be used.
    closed: bool = False
    #: Remembered deterministic answers: ChatResults, and option log-prob tuples.
    memo: OrderedDict[tuple[Any, ...], Any] = field(default_factory=OrderedDict)
    #: Fixed heads' states on disk (llamacpp_disk_states); None where it cannot be keyed.
    disk: DiskStates | None = None


_models: dict[tuple[str, int, int, int], LoadedModel] = {}
_models_lock = threading.Lock()


def load_shared(path: Path, n_ctx: int, n_threads: int, n_seq: int = 1) -> LoadedModel:
    """The loaded model for these settings, shared by every provider that asks for them.
    `n_seq` > 1 (batched option scoring, off by default) is a context of its own: the
    default path keeps llama-cpp-python's own one-sequence context, untouched."""
    n_ctx = within_trained_context(path, n_ctx)
    key = (str(path.resolve()), n_ctx, n_threads, n_seq)
    with _models_lock:
        loaded = _models.get(key)
        if loaded is not None:
            return loaded
        if not path.exists():
            raise ModelNotFoundError(f"The model file {path} does not exist.", "Check the path.")
        from quizsmith.providers.gguf_header import not_a_regular_file

        problem = not_a_regular_file(path)
        if problem:
            # llama.cpp would open it and wait for a writer that never comes (issue 48).
            raise ModelNotFoundError(problem, "Name a regular .gguf file.")
        try:
            from llama_cpp import Llama
        except ImportError:
            raise ModelNotFoundError(
                "llama-cpp-python is not installed.", "Run `make install` (extra: local)."
            ) from None
        # A library built for another CPU would crash this process on the first call:
        # prove it runs, in a child process, once per build (providers/native_check.py).
        native_check.ensure_native_runs(native_check.reference_model(path) or path)
        native_logs.route_llama_cpp_logs()
        try:
            # Llama() compiles the file's chat templates; guarded, they compile when first
            # used, within a budget (providers/chat_formats.py).
            with chat_formats.gguf_templates_guarded():
                llm = Llama(
                    model_path=str(path),
                    n_ctx=n_ctx,
                    n_threads=n_threads,
                    n_threads_batch=n_threads,
                    logits_all=False,  # option_logprobs asks for logits only where it needs them
                    # Read into memory, not mapped: llama.cpp repacks most weights of a Q4_K
                    # model for the CPU's kernels, and with a mapping the file's pages it read
                    # them from stay resident beside the repacked copy. Measured on the 1.5B
                    # model: 1,880 -> 1,289 MiB resident after load and a 400-token read; the
                    # numbers computed are the same (issue 26's < 3 GB peak).
                    use_mmap=False,
                    verbose=False,
                )
        except (ValueError, RuntimeError) as exc:
            raise ProviderError(
                f"llama.cpp could not load {path.name}: {exc}.",
                "The file may be damaged or use an architecture this llama.cpp does not know.",
            ) from exc
        if n_seq > 1:
            _allow_sequences(llm, n_seq)
        train_ctx = int(llm.n_ctx_train()) if hasattr(llm, "n_ctx_train") else n_ctx
        choice = choose_template(llm, path)
        loaded = LoadedModel(
            llm,
            threading.RLock(),
            min(n_ctx, train_ctx),
            choice.formatter is not None,
            formatter=choice.formatter,
            template_note=choice.note,
            disk=_disk_states(path, n_ctx, n_threads, n_seq, llm),
        )
        if not _models:
            # Close models before the interpreter tears down llama_cpp's module globals;
            # left to garbage collection at exit, Llama.__del__ prints a TypeError.
            atexit.register(unload_all)
        _models[key] = loaded
        return loaded


def _disk_states(path: Path, n_ctx: int, n_threads: int, n_seq: int, llm: Any) -> DiskStates | None:
    """The disk store for this model and settings, or None (then fixed heads are kept in
    memory only, as every other head)."""
    try:
        n_batch = int(llm.n_batch)
        return DiskStates(model_identity(path, n_ctx, n_threads, n_batch) + f"|{n_seq}")
    except Exception:  # no identity means no disk store, never a failed load
        logging.getLogger(__name__).warning(
            "Prompt states are kept in memory only: no identity for %s.", path.name
        )
        return None


def choose_template(llm: Any, path: Path) -> chat_formats.TemplateChoice:
    """The formatter chat prompts are rendered with: the file's own template when it renders
    Quizsmith's kind of messages within its budget, else the family's built-in format (with
    a logged note saying why), else none."""
    eos_id, bos_id = llm.token_eos(), llm.token_bos()
    template = llm.metadata.get("tokenizer.chat_template")
    choice = chat_formats.choose_formatter(
        template,
        # As Llama.__init__ builds its handler for the GGUF's template.
        eos_token=llm._model.token_get_text(eos_id) if eos_id != -1 else "",
        bos_token=llm._model.token_get_text(bos_id) if bos_id != -1 else "",
        stop_token_ids=[eos_id],
        architecture=str(llm.metadata.get("general.architecture", "")),
        has_token=token_probe(llm),
        file_name=path.name,
    )
    if template and choice.name != "gguf":
        leave_template(llm, choice)
    return choice


def token_probe(llm: Any) -> Any:
    """Whether a control token's text is one token of the model's vocabulary."""

    def has_token(text: str) -> bool:
        return len(llm.tokenize(text.encode("utf-8"), add_bos=False, special=True)) == 1

    return has_token


def leave_template(llm: Any, choice: chat_formats.TemplateChoice) -> None:
    # llama-cpp-python's own chat path (create_chat_completion, used for a chat model without
    # a formatter) would otherwise render the file's template: give it the same format, or
    # the one it uses for a file without a template.
    llm.chat_format = choice.name or "llama-2"


def within_trained_context(path: Path, n_ctx: int) -> int:
    """`n_ctx` capped at the context the model was trained on, read from its GGUF header
    before loading: llama.cpp allocates the whole KV cache for what it is given (n_ctx =
    131072 took 6.2 GB and crashed for a model trained on 8,192) and only then would the
    cap apply. A header that does not say leaves `n_ctx` as it is."""
    from quizsmith.providers.gguf_header import read_general_metadata

    try:
        meta = read_general_metadata(path)
    except ModelNotFoundError:
        return n_ctx  # llama.cpp's own load says what is wrong with the file
    trained = [v for k, v in meta.items() if k.endswith(".context_length")]
    if not trained or not isinstance(trained[0], int) or not 0 < trained[0] < n_ctx:
        return n_ctx
    logging.getLogger(__name__).warning(
        "n_ctx = %d in settings is more than %s was trained on; using %d tokens.",
        n_ctx,
        path.name,
        trained[0],
    )
    return int(trained[0])


def _allow_sequences(llm: Any, n_seq: int) -> None:
    """Give `llm` a context with `n_seq` sequences in one unified KV cache. Llama() has no
    argument for either (it builds its context with one sequence), so the context is built
    again from Llama's own parameters. Unified: without it llama.cpp gives every sequence
    n_ctx / n_seq cells, and a long passage would no longer fit sequence 0."""
    from llama_cpp import _internals

    params = llm.context_params
    params.n_seq_max = n_seq
    params.kv_unified = True
    try:
        ctx = _internals.LlamaContext(model=llm._model, params=params, verbose=False)
    except ValueError as exc:
        llm.close()
        raise ProviderError(
            f"llama.cpp could not create a context with {n_seq} sequences: {exc}.",
            "Lower n_ctx in settings.",
        ) from exc
    old = llm._ctx
    llm._ctx = llm._stack.enter_context(contextlib.closing(ctx))
    old.close()  # its KV cache would otherwise stay allocated until the model is closed


def unload_all() -> None:
    with _models_lock:
        for loaded in _models.values():
            with loaded.lock:
                loaded.llm.close()
                loaded.closed = True
        _models.clear()


def forget_kept_state() -> None:
    """Drop every model's kept prompt states and remembered answers (the models stay loaded):
    the next calls run as for text never seen. For benchmarks that must not time a repeat."""
    with _models_lock:
        for loaded in _models.values():
            with loaded.lock:
                loaded.states.clear()
                loaded.memo.clear()
                loaded.live = None
