"""llama.cpp backend (llama-cpp-python): any GGUF model, bundled or the user's own.

Why this module is long: one loaded model per file per process, behind one lock; the
shared-model cache and LlamaCppProvider (chat, completion, grammars, option log-probabilities
that reuse a kept prefix state) work on that same state, which a split would spread over
modules.

One loaded model per file per process, shared by every feature and guarded by a lock:
llama.cpp contexts are not thread-safe, and the GUI and batch jobs must not load a model
twice. Models load lazily on first use.
"""

from __future__ import annotations

import atexit
import contextlib
import copy
import json
import logging
import os
import threading
import time
from collections import OrderedDict
from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import TYPE_CHECKING, Any, ClassVar, NamedTuple

from quizsmith.errors import (
    CapabilityError,
    ModelNotFoundError,
    OutputParseError,
    ProviderError,
)
from quizsmith.providers import (
    chat_formats,
    chat_template,
    interrupt,
    model_files,
    native_check,
    native_logs,
)
from quizsmith.providers.base import (
    ChatResult,
    Message,
    ModelInfo,
    OptionLogprob,
    Provider,
    Reusable,
    Transient,
    as_message_dicts,
    parse_json_output,
    reusable_heads,
)
from quizsmith.providers.llamacpp_state import PrefixStates, common_prefix, start_from
from quizsmith.providers.prompt_pieces import Piece, split_prompt

if TYPE_CHECKING:
    from quizsmith.providers.catalog import CatalogModel
    from quizsmith.settings import Settings

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


class _ChatPrompt(NamedTuple):
    """A chat prompt as `chat` evaluates it (`LlamaCppProvider._chat_prompt`)."""

    rendered: Any  # llama-cpp-python's ChatFormatterResponse: stop words, stopping criteria
    tokens: list[int]
    texts: list[str]  # the reusable heads of the last message
    heads: list[list[int]]  # their tokens, template pieces before the message included


@dataclass
class _Loaded:
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
    #: (`_choose_template`), else None (no template: a base model).
    formatter: Any = None
    #: Why the model's own template is not used ("" when it is, or when it has none).
    template_note: str = ""
    #: Set by unload_all: the llama.cpp context is freed and must not be used.
    closed: bool = False
    #: Remembered deterministic answers: ChatResults, and option log-prob tuples.
    memo: OrderedDict[tuple[Any, ...], Any] = field(default_factory=OrderedDict)


_models: dict[tuple[str, int, int, int], _Loaded] = {}
_models_lock = threading.Lock()


def _load_shared(path: Path, n_ctx: int, n_threads: int, n_seq: int = 1) -> _Loaded:
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
        choice = _choose_template(llm, path)
        loaded = _Loaded(
            llm,
            threading.RLock(),
            min(n_ctx, train_ctx),
            choice.formatter is not None,
            formatter=choice.formatter,
            template_note=choice.note,
        )
        if not _models:
            # Close models before the interpreter tears down llama_cpp's module globals;
            # left to garbage collection at exit, Llama.__del__ prints a TypeError.
            atexit.register(unload_all)
        _models[key] = loaded
        return loaded


def _choose_template(llm: Any, path: Path) -> chat_formats.TemplateChoice:
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
        has_token=_token_probe(llm),
        file_name=path.name,
    )
    if template and choice.name != "gguf":
        _leave_template(llm, choice)
    return choice


def _token_probe(llm: Any) -> Any:
    """Whether a control token's text is one token of the model's vocabulary."""

    def has_token(text: str) -> bool:
        return len(llm.tokenize(text.encode("utf-8"), add_bos=False, special=True)) == 1

    return has_token


def _leave_template(llm: Any, choice: chat_formats.TemplateChoice) -> None:
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


def _log_softmax(row: Any) -> Any:
    import numpy as np

    row = row.astype(np.float64)
    shifted = row - row.max()
    return shifted - np.log(np.exp(shifted).sum())


def _transient_cuts(heads: Sequence[str], cuts: Sequence[int]) -> frozenset[int]:
    """The cuts of the heads marked Transient (their states are not kept)."""
    return frozenset(c for h, c in zip(heads, cuts, strict=False) if isinstance(h, Transient))


def _check_options(options: Sequence[str]) -> None:
    if any(not o for o in options):
        raise ProviderError("An option is empty.", "Fill in every option before scoring.")


class LlamaCppProvider(Provider):
    name: ClassVar[str] = "llamacpp"
    description: ClassVar[str] = "Local GGUF model through llama.cpp (CPU)"
    can_chat = True
    can_complete = True
    can_logprob = True
    can_reply_logprob = True
    can_constrain = True
    is_local = True
    runs_in_host = True
    model_path: Path

    @classmethod
    def from_catalog(cls, model: CatalogModel, path: Path, settings: Settings) -> Provider:
        return cls(
            path,
            model_id=model.id,
            chat=model.chat,
            n_ctx=settings.n_ctx,
            n_threads=settings.n_threads,
        )

    @classmethod
    def release_shared(cls) -> None:
        unload_all()

    def __init__(
        self,
        model_path: str | Path,
        *,
        model_id: str = "",
        chat: bool | None = None,
        n_ctx: int = 4096,
        n_threads: int = 0,
        batch_options: bool = False,
    ) -> None:
        self.model_path = Path(model_path)
        self.model_id = model_id or f"gguf:{self.model_path.stem}"
        self._chat_flag = chat
        self.n_ctx = n_ctx
        self.n_threads = n_threads or physical_cores()
        #: Score a question's options in one multi-sequence batch (option_logprobs). Off by
        #: default, by measurement (bench/option_scoring.py): it saves 0-7% of a first KDA or
        #: EXAM score, and it moves an option's second and later tokens by up to 0.46 nats,
        #: which the shipped overall model's signals and the evaluation tables were not
        #: computed with. A provider with it on loads a 16-sequence context of its own; the
        #: default keeps llama-cpp-python's one-sequence context, so nothing a teacher sees
        #: changes.
        self.batch_options = batch_options
        self._loaded: _Loaded | None = None

    # -- loading -----------------------------------------------------------------------------
    def _get(self) -> _Loaded:
        # A provider that outlived `unload_all` (a long-lived caller, a test session) loads
        # the model again rather than touch a freed llama.cpp context (a segfault).
        if self._loaded is None or self._loaded.closed:
            n_seq = OPTION_SEQUENCES if self.batch_options else 1
            self._loaded = _load_shared(self.model_path, self.n_ctx, self.n_threads, n_seq)
        return self._loaded

    @property
    def is_chat_model(self) -> bool:
        """Instruct models with a chat template; base models get a plain transcript prompt."""
        if self._chat_flag is not None:
            return self._chat_flag
        return self._get().has_chat_template

    @is_chat_model.setter
    def is_chat_model(self, value: bool) -> None:
        self._chat_flag = value

    @property
    def info(self) -> ModelInfo:
        return ModelInfo(
            self.name,
            self.model_id,
            {"file": self.model_path.name, "n_ctx": self.n_ctx, "n_threads": self.n_threads},
        )

    def count_tokens(self, text: str) -> int:
        loaded = self._get()
        with loaded.lock:
            return len(loaded.llm.tokenize(text.encode("utf-8"), add_bos=False, special=False))

    @property
    def context_size(self) -> int:
        return self._get().n_ctx

    @property
    def chat_template_note(self) -> str:
        """Why the model's own chat template is not used ("" when it is, or it has none)."""
        return self._get().template_note

    # -- text --------------------------------------------------------------------------------
    @staticmethod
    def _grammar(schema: dict[str, Any] | None) -> Any:
        if schema is None:
            return None
        from llama_cpp import LlamaGrammar

        try:
            return LlamaGrammar.from_json_schema(json.dumps(schema), verbose=False)
        except (ValueError, RuntimeError) as exc:
            raise ProviderError(
                f"The JSON schema cannot be turned into a grammar: {exc}.", ""
            ) from exc

    def chat(
        self,
        messages: Sequence[Message | dict[str, str]],
        *,
        max_tokens: int = 256,
        temperature: float = 0.0,
        seed: int | None = None,
        stop: Sequence[str] = (),
        json_schema: dict[str, Any] | None = None,
        reuse_prefix: Reusable = "",
    ) -> ChatResult:
        msgs = as_message_dicts(messages)
        last = msgs[-1]["content"] if msgs else ""
        heads = reusable_heads(last, reuse_prefix)
        if not self.is_chat_model:
            # A base model has no chat template; a plain transcript is the closest prompt.
            lines = [f"{m['role'].capitalize()}: {m['content']}\n" for m in msgs]
            before = "".join(lines[:-1]) + f"{msgs[-1]['role'].capitalize()}: " if msgs else ""
            return self.complete(
                "".join(lines) + "Assistant:",
                max_tokens=max_tokens,
                temperature=temperature,
                seed=seed,
                stop=[*stop, "\nUser:"],
                json_schema=json_schema,
                reuse_prefix=tuple(type(h)(before + h) for h in heads),
            )
        loaded = self._get()
        started = time.perf_counter()
        with loaded.lock:
            formatter = self._formatter(loaded)
            if formatter is None:
                # A chat model named so in settings but without a template of its own:
                # llama-cpp-python's guessed format, from an empty cache.
                self._check_fits(loaded, json.dumps(msgs), max_tokens)
                start_from(loaded, [], [])
                out = loaded.llm.create_chat_completion(
                    messages=msgs,
                    max_tokens=max_tokens,
                    temperature=temperature,
                    seed=seed,
                    stop=list(stop) or None,
                    grammar=self._grammar(json_schema),
                )
                choice = out["choices"][0]
                text = choice["message"].get("content") or ""
                return self._result(out, text, choice, started, json_schema)
            prompt = self._chat_prompt(loaded, formatter, msgs, reuse_prefix)
            tokens, rendered = prompt.tokens, prompt.rendered
            cuts = [
                max(0, min(common_prefix(head, tokens), len(tokens) - 1)) for head in prompt.heads
            ]
            extra = rendered.stop or []
            stops = [*stop, *([extra] if isinstance(extra, str) else extra)]
            return self._generate(
                loaded,
                tokens,
                cuts,
                transient=_transient_cuts(prompt.texts, cuts),
                started=started,
                max_tokens=max_tokens,
                temperature=temperature,
                seed=seed,
                stop=stops,
                json_schema=json_schema,
                stopping_criteria=rendered.stopping_criteria,
            )

    def complete(
        self,
        prompt: str,
        *,
        max_tokens: int = 256,
        temperature: float = 0.0,
        seed: int | None = None,
        stop: Sequence[str] = (),
        json_schema: dict[str, Any] | None = None,
        reuse_prefix: Reusable = "",
    ) -> ChatResult:
        loaded = self._get()
        started = time.perf_counter()
        with loaded.lock:
            # A completion prompt is text (few-shot prompts around a passage): no part of it
            # may turn into a control token, so special tokens stay off.
            tokens = self._tokens(loaded, prompt, add_bos=True, special=False)
            heads = reusable_heads(prompt, reuse_prefix)
            cuts = [
                self._prefix_length(loaded, tokens, h, add_bos=True, special=False) for h in heads
            ]
            return self._generate(
                loaded,
                tokens,
                cuts,
                transient=_transient_cuts(heads, cuts),
                started=started,
                max_tokens=max_tokens,
                temperature=temperature,
                seed=seed,
                stop=list(stop),
                json_schema=json_schema,
            )

    # -- prompt state ------------------------------------------------------------------------
    @staticmethod
    def _tokens(loaded: _Loaded, text: str, *, add_bos: bool, special: bool) -> list[int]:
        return list(loaded.llm.tokenize(text.encode("utf-8"), add_bos=add_bos, special=special))

    def chat_prompt_tokens(self, messages: Sequence[Message | dict[str, str]]) -> list[int]:
        """The tokens `chat` evaluates for `messages` (a chat model with a template)."""
        loaded = self._get()
        with loaded.lock:
            formatter = self._formatter(loaded)
            if formatter is None:
                raise CapabilityError("This model has no chat template.", "")
            return self._chat_prompt(loaded, formatter, as_message_dicts(messages), "").tokens

    def _chat_prompt(
        self, loaded: _Loaded, formatter: Any, msgs: list[dict[str, str]], reuse_prefix: Reusable
    ) -> _ChatPrompt:
        """The prompt for `msgs` (`_render_chat_prompt`). The file's template passed its
        render at load, but a template can fail or overspend on other messages: then the
        family's built-in format takes its place for good, and the prompt is rendered with
        it (a ChatTemplateError only when there is none)."""
        try:
            return self._render_chat_prompt(loaded, formatter, msgs, reuse_prefix)
        except chat_template.ChatTemplateError as exc:
            if not isinstance(formatter, chat_formats.GuardedChatFormatter):
                raise
            replacement = self._template_failed(loaded, exc)
            return self._render_chat_prompt(loaded, replacement, msgs, reuse_prefix)

    def _template_failed(self, loaded: _Loaded, exc: chat_template.ChatTemplateError) -> Any:
        llm = loaded.llm
        choice = chat_formats.fallback(
            self.model_path.name,
            exc.message,
            str(llm.metadata.get("general.architecture", "")),
            _token_probe(llm),
        )
        loaded.formatter, loaded.template_note = choice.formatter, choice.note
        _leave_template(llm, choice)
        if choice.formatter is None:
            loaded.has_chat_template = False
            raise exc
        return choice.formatter

    def _render_chat_prompt(
        self, loaded: _Loaded, formatter: Any, msgs: list[dict[str, str]], reuse_prefix: Reusable
    ) -> _ChatPrompt:
        """What llama-cpp-python's template handler does, with the tokens in our hands, but
        the messages' text tokenized as plain text: control-token text in a passage
        (<|im_start|>system ...) must not become a real turn (prompt_pieces). With it, the
        tokens of each reusable head of the last message: the template's pieces before that
        message, then the head as message text."""
        rendered = formatter(messages=msgs)
        add_bos = not rendered.added_special
        pieces, last_at = split_prompt(lambda m: str(formatter(messages=m).prompt), msgs)
        tokens = self._piece_tokens(loaded, pieces, add_bos=add_bos)
        last = msgs[-1]["content"] if msgs else ""
        texts = reusable_heads(last, reuse_prefix) if last_at >= 0 else []
        heads = [
            self._piece_tokens(loaded, [*pieces[:last_at], (h, True)], add_bos=add_bos)
            for h in texts
        ]
        return _ChatPrompt(rendered, tokens, texts, heads)

    def _piece_tokens(
        self, loaded: _Loaded, pieces: Sequence[Piece], *, add_bos: bool
    ) -> list[int]:
        """Template pieces with control tokens, message text as plain text."""
        tokens: list[int] = []
        for text, is_message in pieces:
            if text:
                bos = add_bos and not tokens
                tokens += self._tokens(loaded, text, add_bos=bos, special=not is_message)
        return tokens

    def _prefix_length(
        self, loaded: _Loaded, tokens: Sequence[int], prefix: str, *, add_bos: bool, special: bool
    ) -> int:
        """How many leading tokens of `tokens` the text `prefix` accounts for (a token merged
        across the seam belongs to the rest), leaving at least one token to evaluate after it
        (its logits are what the next token is sampled from)."""
        prefix_tokens = self._tokens(loaded, prefix, add_bos=add_bos, special=special)
        return max(0, min(common_prefix(prefix_tokens, tokens), len(tokens) - 1))

    @staticmethod
    def _formatter(loaded: _Loaded) -> Any:
        return loaded.formatter

    def _generate(
        self,
        loaded: _Loaded,
        tokens: list[int],
        cuts: list[int],
        *,
        transient: frozenset[int] = frozenset(),
        started: float,
        max_tokens: int,
        temperature: float,
        seed: int | None,
        stop: list[str],
        json_schema: dict[str, Any] | None,
        stopping_criteria: Any = None,
    ) -> ChatResult:
        """Complete `tokens`, evaluated in the pieces `cuts` marks (llamacpp_state)."""
        if not tokens:
            raise ProviderError("The prompt is empty.", "Give the model some text to continue.")
        interrupt.raise_if_stopped()  # cancelled while it waited for the model's lock
        self._check_fits_count(loaded, len(tokens), max_tokens)
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
        start_from(loaded, tokens, cuts, transient=transient)
        out = loaded.llm.create_completion(
            tokens,
            max_tokens=max_tokens,
            temperature=temperature,
            seed=seed,
            stop=stop or None,
            grammar=self._grammar(json_schema),
            # In the model host a cancelled call stops at its next token (interrupt.py).
            stopping_criteria=interrupt.with_stop_check(stopping_criteria),
        )
        # Cut short by a stop: neither returned nor remembered as this prompt's answer.
        interrupt.raise_if_stopped()
        choice = out["choices"][0]
        result = self._result(out, choice.get("text") or "", choice, started, json_schema)
        if memo_key is not None:
            loaded.memo[memo_key] = replace(result, data=copy.deepcopy(result.data))
            while len(loaded.memo) > MEMO_ENTRIES:
                loaded.memo.popitem(last=False)
        return result

    def _check_fits(self, loaded: _Loaded, text: str, max_tokens: int) -> None:
        n = len(loaded.llm.tokenize(text.encode("utf-8"), add_bos=True, special=False))
        self._check_fits_count(loaded, n, max_tokens)

    @staticmethod
    def _check_fits_count(loaded: _Loaded, n: int, max_tokens: int) -> None:
        if n + max_tokens > loaded.n_ctx:
            raise ProviderError(
                f"The prompt ({n} tokens) plus the answer ({max_tokens}) does not fit the "
                f"model's context of {loaded.n_ctx} tokens.",
                "Shorten the passage (split it), or raise n_ctx in settings for a larger model.",
            )

    def _result(
        self, out: dict[str, Any], text: str, choice: dict[str, Any], started: float, schema: Any
    ) -> ChatResult:
        """The answer, unless it is noise from a damaged model file: an answer that cannot be
        read as asked or looks garbled has the file's content checked, once per process
        (providers/model_files.py), and a damaged file stops the job saying how to rebuild it."""
        try:
            result = self._read_result(out, text, choice, started, schema)
        except OutputParseError:
            model_files.raise_if_damaged(self.model_path)
            raise
        if model_files.looks_garbled(result.text, result.data):
            model_files.raise_if_damaged(self.model_path)
        return result

    def _read_result(
        self, out: dict[str, Any], text: str, choice: dict[str, Any], started: float, schema: Any
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
            model=self.model_id,
            prompt_tokens=int(usage.get("prompt_tokens") or 0),
            completion_tokens=int(usage.get("completion_tokens") or 0),
            finish_reason=finish,
            seconds=time.perf_counter() - started,
            data=parse_json_output(text) if schema is not None else None,
        )

    # -- scoring: the KDA/EXAM hot path ------------------------------------------------------
    def option_logprobs(
        self,
        prefix: str,
        options: Sequence[str],
        *,
        strategy: str = "reuse",
        reuse_prefix: Reusable = "",
    ) -> list[OptionLogprob]:
        """Log-probability of each option as the continuation of `prefix`.

        The prompt is evaluated in fixed pieces: `reuse_prefix` (leading parts of `prefix`
        that later calls repeat, e.g. the text a solver reads; their state is kept, see
        llamacpp_state), then the rest of the prefix the options share, then the options.
        strategy "reuse" (the default): the shared prefix is evaluated once and kept; then
        all options are evaluated in one batch, each in its own sequence after the prefix
        (`_score_batched`), or, when they do not fit one batch (more than
        OPTION_SEQUENCES - 1 options, more tokens than n_batch or the context's cells) or
        the provider was built with batch_options=False, one option after another
        (`_score_with_shared_prefix`). "sequential": always one after another. "scratch":
        the path "reuse" takes, with everything evaluated again from an empty cache (the
        reference the reuse must match bit for bit). "single-pass": prefix and option in one
        batch, see below. Tokenisation is that of prefix+option as one string (so a token
        merged across the boundary is scored as part of the option), identical on every path.

        llama.cpp's CPU matrix kernels depend on the batch size, so the batched and the
        sequential paths give different numbers for an option's second and later tokens (up
        to 0.46 nats per token on SQuAD items, bench/option_scoring.py), and evaluating
        prefix and option in one single batch differs too (up to ~5e-3 nats measured on
        Gemma 3 Q4_K_M);
        `_score_single_pass` exists to measure that in the tests and the benchmark. Each
        path is deterministic: which one runs depends only on the prompt, the options and the
        provider's settings, never on the calls before.
        """
        if not options:
            return []
        _check_options(options)
        loaded = self._get()
        with loaded.lock:
            interrupt.raise_if_stopped()
            prefix_tokens = self._tokens(loaded, prefix, add_bos=True, special=False)
            fulls = [self._tokens(loaded, prefix + o, add_bos=True, special=False) for o in options]
            texts = reusable_heads(prefix, reuse_prefix)
            heads = [self._tokens(loaded, text, add_bos=True, special=False) for text in texts]
            return self._score_options(
                loaded, options, prefix_tokens, fulls, heads, texts, strategy
            )

    def reply_logprobs(
        self,
        messages: Sequence[Message | dict[str, str]],
        options: Sequence[str],
        *,
        reuse_prefix: Reusable = "",
    ) -> list[OptionLogprob]:
        """Each option as the assistant's reply: the prompt `chat` would evaluate for
        `messages` (its template pieces, its reusable heads cut where `chat` cuts them, so
        the two share a kept passage state), then the option's tokens as plain text."""
        if not options:
            return []
        _check_options(options)
        loaded = self._get()
        with loaded.lock:
            interrupt.raise_if_stopped()
            formatter = self._formatter(loaded) if self.is_chat_model else None
            if formatter is None:
                raise CapabilityError(
                    f"{self.info.label()} has no chat template, so a reply cannot be scored.",
                    "Choose an instruct model with a chat template for this role.",
                )
            prompt = self._chat_prompt(loaded, formatter, as_message_dicts(messages), reuse_prefix)
            fulls = [
                prompt.tokens + self._tokens(loaded, o, add_bos=False, special=False)
                for o in options
            ]
            return self._score_options(
                loaded, options, prompt.tokens, fulls, prompt.heads, prompt.texts, "reuse"
            )

    def _score_options(
        self,
        loaded: _Loaded,
        options: Sequence[str],
        prefix_tokens: list[int],
        fulls: list[list[int]],
        heads: Sequence[Sequence[int]],
        head_texts: Sequence[str],
        strategy: str,
    ) -> list[OptionLogprob]:
        """option_logprobs on tokens: `fulls` are the prompt with each option, `heads` the
        token prefixes whose state is kept (see option_logprobs), or only used while in the
        cache where their text in `head_texts` is Transient."""
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
        transient = _transient_cuts(head_texts, cuts)
        # The same options after the same prompt, evaluated in the same pieces, give the
        # same numbers bit for bit (tests/providers/test_llamacpp_reuse.py): remembered,
        # so a live re-score (NACo's answer and the overall estimate's signals rank the
        # same candidates) does not decode them twice.
        batched = self.batch_options and self._fits_one_batch(loaded, fulls, shared)
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
                results = self._score_batched(
                    loaded, fulls, starts, shared, cuts, fresh=fresh, transient=transient
                )
            elif path == "sequential":
                results = self._score_remembering_options(
                    loaded, fulls, starts, shared, cuts, transient=transient
                )
            elif strategy == "single-pass":
                loaded.live = None
                results = [
                    self._score_single_pass(llm, f, s) for f, s in zip(fulls, starts, strict=True)
                ]
            elif strategy == "scratch":
                results = [
                    self._score_with_shared_prefix(loaded, [f], [s], shared, cuts, fresh=True)[0]
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

    def _decode(self, llm: Any, tokens: Sequence[int], n_past: int, logits_from: int) -> Any:
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

    def _option_scores(self, logits_before: Any, option_tokens: Sequence[int]) -> list[float]:
        """logits_before[k] predicts option_tokens[k]."""
        return [float(_log_softmax(logits_before[k])[t]) for k, t in enumerate(option_tokens)]

    def _score_with_shared_prefix(
        self,
        loaded: _Loaded,
        fulls: list[list[int]],
        starts: list[int],
        shared: int,
        cuts: list[int],
        *,
        fresh: bool = False,
        transient: frozenset[int] = frozenset(),
    ) -> list[list[float]]:
        import numpy as np

        llm = loaded.llm
        k = start_from(loaded, fulls[0][:shared], cuts, fresh=fresh, transient=transient)
        # Positions k..shared-1 of the shared prefix; the last row predicts token `shared`.
        last = self._decode(llm, fulls[0][k:shared], k, logits_from=shared - k - 1)
        results = []
        for full, start in zip(fulls, starts, strict=True):
            llm._ctx.kv_cache_seq_rm(-1, shared, -1)  # drop the previous option, keep the prefix
            tail = full[shared:]
            if len(tail) > 1:
                rest = self._decode(llm, tail[:-1], shared, logits_from=0)
                logits = np.concatenate([last, rest])
            else:
                logits = last
            # logits[k] predicts full[shared + k]; the option's own tokens start at `start`.
            results.append(self._option_scores(logits[start - shared :], full[start:]))
        return results

    def _score_remembering_options(
        self,
        loaded: _Loaded,
        fulls: list[list[int]],
        starts: list[int],
        shared: int,
        cuts: list[int],
        *,
        transient: frozenset[int] = frozenset(),
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
            fresh = self._score_with_shared_prefix(
                loaded,
                [fulls[i] for i in missing],
                [starts[i] for i in missing],
                shared,
                cuts,
                transient=transient,
            )
            for i, scores in zip(missing, fresh, strict=True):
                known[i] = scores
                loaded.memo[keys[i]] = scores
        for key in keys:
            loaded.memo.move_to_end(key)
        while len(loaded.memo) > MEMO_ENTRIES:
            loaded.memo.popitem(last=False)
        return [list(k) for k in known if k is not None]

    @staticmethod
    def _fits_one_batch(loaded: _Loaded, fulls: list[list[int]], shared: int) -> bool:
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
        self,
        loaded: _Loaded,
        fulls: list[list[int]],
        starts: list[int],
        shared: int,
        cuts: list[int],
        *,
        fresh: bool = False,
        transient: frozenset[int] = frozenset(),
    ) -> list[list[float]]:
        """The shared prefix in sequence 0 (kept states as on the sequential path), then one
        decode with option i's tokens in sequence i + 1 at positions shared.. . seq_cp only
        tags the prefix's cells with the other sequences' ids: nothing is copied."""
        import numpy as np
        from llama_cpp import llama_cpp as lib

        llm = loaded.llm
        k = start_from(loaded, fulls[0][:shared], cuts, fresh=fresh, transient=transient)
        # Positions k..shared-1 of the shared prefix; the last row predicts token `shared`.
        last = self._decode(llm, fulls[0][k:shared], k, logits_from=shared - k - 1)
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
            results.append(self._option_scores(logits[start - shared :], full[start:]))
        return results

    def _score_single_pass(self, llm: Any, full: list[int], start: int) -> list[float]:
        llm._ctx.kv_cache_clear()
        logits = self._decode(llm, full[:-1], 0, logits_from=start - 1)
        return self._option_scores(logits, full[start:])
