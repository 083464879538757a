"""llama.cpp backend (llama-cpp-python): any GGUF model, bundled or the user's own.

LlamaCppProvider is the one interface to a local model for every feature: chat, completion
(with a JSON schema as a grammar) and option log-probabilities, each call saying which
leading pieces of its prompt later calls repeat. It keeps no model of its own; its calls
work on
- the model loaded once per file and settings per process, shared by every provider and
  guarded by a lock (llamacpp_models.py: loading, the shared cache, unload, kept answers),
- the evaluated prompt prefixes kept beside it (llamacpp_state.py),
- the prompt as tokens, a chat rendered with its template (llamacpp_prompt.py),
- a completion and its remembered answers (llamacpp_completion.py),
- option log-probabilities, the KDA/EXAM hot path (llamacpp_scoring.py).
"""

from __future__ import annotations

import json
import time
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any, ClassVar

from quizsmith.errors import CapabilityError
from quizsmith.providers import interrupt
from quizsmith.providers.base import (
    ChatResult,
    Message,
    ModelInfo,
    OptionLogprob,
    Provider,
    Reusable,
    as_message_dicts,
    reusable_heads,
)
from quizsmith.providers.llamacpp_completion import check_fits, generate, grammar, read_answer
from quizsmith.providers.llamacpp_models import (
    OPTION_SEQUENCES,
    LoadedModel,
    load_shared,
    physical_cores,
    unload_all,
)
from quizsmith.providers.llamacpp_prompt import chat_prompt, prefix_length, tokenize
from quizsmith.providers.llamacpp_scoring import check_options, score_options
from quizsmith.providers.llamacpp_state import common_prefix, keeping_of, start_from

if TYPE_CHECKING:
    from quizsmith.providers.catalog import CatalogModel
    from quizsmith.settings import Settings


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
        self._loaded: LoadedModel | None = None

    # -- loading -----------------------------------------------------------------------------
    def _get(self) -> LoadedModel:
        # A provider that outlived `unload_all` (a long-lived caller, a test session) loads
        # the model again rather than touch a freed llama.cpp context (a segfault).
        if self._loaded is None or self._loaded.closed:
            n_seq = OPTION_SEQUENCES if self.batch_options else 1
            self._loaded = load_shared(self.model_path, self.n_ctx, self.n_threads, n_seq)
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
            formatter = loaded.formatter
            if formatter is None:
                # A chat model named so in settings but without a template of its own:
                # llama-cpp-python's guessed format, from an empty cache.
                n = len(tokenize(loaded, json.dumps(msgs), add_bos=True, special=False))
                check_fits(loaded, n, max_tokens)
                start_from(loaded, [], [])
                out = loaded.llm.create_chat_completion(
                    messages=msgs,
                    max_tokens=max_tokens,
                    temperature=temperature,
                    seed=seed,
                    stop=list(stop) or None,
                    grammar=grammar(json_schema),
                )
                choice = out["choices"][0]
                text = choice["message"].get("content") or ""
                return read_answer(
                    out, text, choice, started, json_schema, self.model_id, self.model_path
                )
            prompt = chat_prompt(loaded, formatter, msgs, reuse_prefix, self.model_path.name)
            tokens, rendered = prompt.tokens, prompt.rendered
            cuts = [
                max(0, min(common_prefix(head, tokens), len(tokens) - 1)) for head in prompt.heads
            ]
            extra = rendered.stop or []
            stops = [*stop, *([extra] if isinstance(extra, str) else extra)]
            return generate(
                loaded,
                tokens,
                cuts,
                keeping=keeping_of(prompt.texts, cuts),
                started=started,
                max_tokens=max_tokens,
                temperature=temperature,
                seed=seed,
                stop=stops,
                json_schema=json_schema,
                stopping_criteria=rendered.stopping_criteria,
                model_id=self.model_id,
                model_path=self.model_path,
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
            tokens = tokenize(loaded, prompt, add_bos=True, special=False)
            heads = reusable_heads(prompt, reuse_prefix)
            cuts = [prefix_length(loaded, tokens, h, add_bos=True, special=False) for h in heads]
            return generate(
                loaded,
                tokens,
                cuts,
                keeping=keeping_of(heads, cuts),
                started=started,
                max_tokens=max_tokens,
                temperature=temperature,
                seed=seed,
                stop=list(stop),
                json_schema=json_schema,
                model_id=self.model_id,
                model_path=self.model_path,
            )

    # -- prompt ------------------------------------------------------------------------------
    def chat_prompt_tokens(self, messages: Sequence[Message | dict[str, str]]) -> list[int]:
        """The tokens `chat` evaluates for `messages` (a chat model with a template)."""
        loaded = self._get()
        with loaded.lock:
            formatter = loaded.formatter
            if formatter is None:
                raise CapabilityError("This model has no chat template.", "")
            return chat_prompt(
                loaded, formatter, as_message_dicts(messages), "", self.model_path.name
            ).tokens

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
        (llamacpp_scoring's `_score_batched`), or, when they do not fit one batch (more than
        OPTION_SEQUENCES - 1 options, more tokens than n_batch or the context's cells) or
        the provider was built with batch_options=False, one option after another
        (`score_with_shared_prefix`). "sequential": always one after another. "scratch":
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
        check_options(options)
        loaded = self._get()
        with loaded.lock:
            interrupt.raise_if_stopped()
            prefix_tokens = tokenize(loaded, prefix, add_bos=True, special=False)
            fulls = [tokenize(loaded, prefix + o, add_bos=True, special=False) for o in options]
            texts = reusable_heads(prefix, reuse_prefix)
            heads = [tokenize(loaded, text, add_bos=True, special=False) for text in texts]
            return score_options(
                loaded,
                options,
                prefix_tokens,
                fulls,
                heads,
                texts,
                strategy,
                batch_options=self.batch_options,
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
        check_options(options)
        loaded = self._get()
        with loaded.lock:
            interrupt.raise_if_stopped()
            formatter = loaded.formatter if self.is_chat_model else None
            if formatter is None:
                raise CapabilityError(
                    f"{self.info.label()} has no chat template, so a reply cannot be scored.",
                    "Choose an instruct model with a chat template for this role.",
                )
            prompt = chat_prompt(
                loaded, formatter, as_message_dicts(messages), reuse_prefix, self.model_path.name
            )
            fulls = [
                prompt.tokens + tokenize(loaded, o, add_bos=False, special=False) for o in options
            ]
            return score_options(
                loaded,
                options,
                prompt.tokens,
                fulls,
                prompt.heads,
                prompt.texts,
                "reuse",
                batch_options=self.batch_options,
            )
