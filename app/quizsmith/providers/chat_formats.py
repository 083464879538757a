"""Which chat template a loaded GGUF model's prompts are rendered with (issue 48).

The file's own template, rendered within its budget (chat_template.py) through
`GuardedChatFormatter`, a drop-in for llama-cpp-python's Jinja2ChatFormatter. When the model
loads, `choose_formatter` renders it once on messages like the ones Quizsmith sends; a
template that fails or breaks the budget then, or on a later conversation
(`LlamaCppProvider._chat_prompt`), is replaced by llama-cpp-python's built-in format for
the model's family ("chatml" for Qwen and SmolLM2, "gemma" for Gemma), with a note that says
why; a model whose family is unknown is then prompted as a base model.
`gguf_templates_guarded` keeps llama-cpp-python's own model loading from compiling the
file's template unguarded.
"""

from __future__ import annotations

import contextlib
import logging
import threading
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Any

import jinja2

from quizsmith.providers.chat_template import ChatTemplateError, compile_template, render_messages

log = logging.getLogger(__name__)


class GuardedChatFormatter:
    """A drop-in for llama-cpp-python's Jinja2ChatFormatter (same arguments, same answer)
    that compiles when first used and renders within the budget."""

    def __init__(
        self,
        template: str,
        eos_token: str,
        bos_token: str,
        add_generation_prompt: bool = True,
        stop_token_ids: list[int] | None = None,
    ) -> None:
        self.template = template
        self.eos_token = eos_token
        self.bos_token = bos_token
        self.add_generation_prompt = add_generation_prompt
        self.stop_token_ids = set(stop_token_ids) if stop_token_ids is not None else None
        self._compiled: jinja2.Template | None = None
        self._lock = threading.Lock()

    def compiled(self) -> jinja2.Template:
        with self._lock:
            if self._compiled is None:
                self._compiled = compile_template(self.template)
            return self._compiled

    def prompt(self, messages: list[dict[str, Any]], **extra: Any) -> str:
        return render_messages(
            self.compiled(),
            messages,
            eos_token=self.eos_token,
            bos_token=self.bos_token,
            add_generation_prompt=self.add_generation_prompt,
            **extra,
        )

    def __call__(self, *, messages: list[dict[str, Any]], **kwargs: Any) -> Any:
        from llama_cpp import llama
        from llama_cpp.llama_chat_format import ChatFormatterResponse

        prompt = self.prompt(messages, **kwargs)
        stopping_criteria = None
        stop_ids = self.stop_token_ids
        if stop_ids is not None:

            def stop_on_last_token(tokens: Any, logits: Any) -> bool:
                return bool(tokens[-1] in stop_ids)

            stopping_criteria = llama.StoppingCriteriaList([stop_on_last_token])
        return ChatFormatterResponse(
            prompt=prompt,
            stop=[self.eos_token],
            stopping_criteria=stopping_criteria,
            added_special=True,
        )

    def to_chat_handler(self) -> Any:
        from llama_cpp.llama_chat_format import chat_formatter_to_chat_completion_handler

        return chat_formatter_to_chat_completion_handler(self)  # type: ignore[arg-type]


@contextlib.contextmanager
def gguf_templates_guarded() -> Iterator[None]:
    """While a model loads, llama-cpp-python's Llama() compiles every template in the file's
    metadata with Jinja2ChatFormatter (folding constants as it compiles: the 4.18 GB).
    Within this block it builds GuardedChatFormatters instead, which compile when first
    used. Hold it only around Llama(...), under the lock that serialises model loads."""
    from llama_cpp import llama_chat_format

    original = llama_chat_format.Jinja2ChatFormatter
    llama_chat_format.Jinja2ChatFormatter = GuardedChatFormatter  # type: ignore[misc,assignment]
    try:
        yield
    finally:
        llama_chat_format.Jinja2ChatFormatter = original  # type: ignore[misc]


# -- the model family's own format, when the file's template cannot be used ---------------------

#: general.architecture -> llama-cpp-python's built-in chat format.
FAMILY_FORMATS = {
    "qwen2": "chatml",
    "qwen2moe": "chatml",
    "qwen3": "chatml",
    "qwen3moe": "chatml",
    "gemma": "gemma",
    "gemma2": "gemma",
    "gemma3": "gemma",
}
#: A control token the vocabulary holds -> the format that uses it (SmolLM2's architecture is
#: "llama", its turns ChatML's).
MARKER_FORMATS = (
    ("<|im_start|>", "chatml"),
    ("<start_of_turn>", "gemma"),
    ("<|start_header_id|>", "llama-3"),
)

#: Messages like Quizsmith's own (a system turn, then a user turn), rendered once at load.
PROBE_MESSAGES: tuple[tuple[dict[str, str], ...], ...] = (
    (
        {"role": "system", "content": "You write quiz questions about a passage."},
        {"role": "user", "content": "Passage: The library opened in 1963.\nWrite one question."},
    ),
    ({"role": "user", "content": "Passage: The library opened in 1963.\nWrite one question."},),
)


def family_format(architecture: str, has_token: Callable[[str], bool]) -> str | None:
    """llama-cpp-python's built-in format for this model, from its architecture, else from the
    control tokens its vocabulary holds; None when neither says."""
    known = FAMILY_FORMATS.get(architecture.lower())
    if known:
        return known
    for marker, name in MARKER_FORMATS:
        with contextlib.suppress(Exception):
            if has_token(marker):
                return name
    return None


def builtin_formatter(name: str) -> Callable[..., Any]:
    """llama-cpp-python's formatter for a built-in format. Gemma's drops a system message
    (Gemma has no system turn), so here it goes before the first user turn's text, as
    Gemma's own template puts it."""
    from llama_cpp import llama_chat_format

    if name == "gemma":

        def gemma(*, messages: list[dict[str, Any]], **kwargs: Any) -> Any:
            system = "\n\n".join(str(m["content"]) for m in messages if m["role"] == "system")
            turns = [dict(m) for m in messages if m["role"] != "system"]
            if system and turns and turns[0]["role"] == "user":
                turns[0]["content"] = f"{system}\n\n{turns[0]['content']}"
            elif system:
                turns.insert(0, {"role": "user", "content": system})
            return llama_chat_format.format_gemma(messages=turns, **kwargs)

        return gemma
    return {
        "chatml": llama_chat_format.format_chatml,
        "llama-3": llama_chat_format.format_llama3,
    }[name]


@dataclass
class TemplateChoice:
    """The formatter a loaded model's chat prompts are rendered with."""

    #: A GuardedChatFormatter, a built-in format's function, or None (no template at all).
    formatter: Any
    #: "gguf" (the file's own template), a built-in format's name, or "" (none).
    name: str
    #: Why the file's template is not used; "" when it is (or there is none).
    note: str = ""


def choose_formatter(
    template: str | None,
    *,
    eos_token: str,
    bos_token: str,
    stop_token_ids: list[int],
    architecture: str,
    has_token: Callable[[str], bool],
    file_name: str,
) -> TemplateChoice:
    """The file's template if it compiles and renders PROBE_MESSAGES within the budget, else
    the family's built-in format, else none (the model is then prompted as a base model)."""
    if not template:
        return TemplateChoice(None, "")
    guarded = GuardedChatFormatter(
        template, eos_token=eos_token, bos_token=bos_token, stop_token_ids=stop_token_ids
    )
    try:
        for messages in PROBE_MESSAGES:
            guarded.prompt([dict(m) for m in messages])
    except ChatTemplateError as exc:
        return fallback(file_name, exc.message, architecture, has_token)
    return TemplateChoice(guarded, "gguf")


def fallback(
    file_name: str, reason: str, architecture: str, has_token: Callable[[str], bool]
) -> TemplateChoice:
    """The family's built-in format in place of a template that failed, with the note."""
    name = family_format(architecture, has_token)
    if name is None:
        note = (
            f"The chat template in {file_name} cannot be used ({reason}), and no built-in "
            "format is known for this model: it is prompted as a base model."
        )
        log.warning("%s", note)
        return TemplateChoice(None, "", note)
    note = (
        f"The chat template in {file_name} cannot be used ({reason}); llama.cpp's "
        f"built-in {name!r} format for this model family is used instead."
    )
    log.warning("%s", note)
    return TemplateChoice(builtin_formatter(name), name, note)
