"""A prompt as llama.cpp evaluates it: text to tokens, and a chat rendered with its template.

The chat's messages are tokenized as plain text and only the template's own pieces with
control tokens, so control-token text in a passage (<|im_start|>system ...) never becomes a
real turn (prompt_pieces.py). With the tokens come those of each reusable head of the last
message (providers.base.Reusable), which say where the kept prefix states are cut
(llamacpp_state.py).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, NamedTuple

from quizsmith.providers import chat_formats, chat_template
from quizsmith.providers.base import Reusable, reusable_heads
from quizsmith.providers.llamacpp_models import LoadedModel, leave_template, token_probe
from quizsmith.providers.llamacpp_state import common_prefix
from quizsmith.providers.prompt_pieces import Piece, split_prompt


class ChatPrompt(NamedTuple):
    """A chat prompt as `LlamaCppProvider.chat` evaluates it (`chat_prompt`)."""

    rendered: Any  # llama-cpp-python's ChatFormatterResponse: stop words, stopping criteria
    tokens: list[int]
    texts: list[str]  # the reusable heads of the last message
    heads: list[list[int]]  # their tokens, template pieces before the message included


def tokenize(loaded: LoadedModel, text: str, *, add_bos: bool, special: bool) -> list[int]:
    return list(loaded.llm.tokenize(text.encode("utf-8"), add_bos=add_bos, special=special))


def prefix_length(
    loaded: LoadedModel, tokens: Sequence[int], prefix: str, *, add_bos: bool, special: bool
) -> int:
    """How many leading tokens of `tokens` the text `prefix` accounts for (a token merged
    across the seam belongs to the rest), leaving at least one token to evaluate after it
    (its logits are what the next token is sampled from)."""
    prefix_tokens = tokenize(loaded, prefix, add_bos=add_bos, special=special)
    return max(0, min(common_prefix(prefix_tokens, tokens), len(tokens) - 1))


def chat_prompt(
    loaded: LoadedModel,
    formatter: Any,
    msgs: list[dict[str, str]],
    reuse_prefix: Reusable,
    file_name: str,
) -> ChatPrompt:
    """The prompt for `msgs` (`_render`). The file's template passed its render at load, but
    a template can fail or overspend on other messages: then the family's built-in format
    takes its place for good, and the prompt is rendered with it (a ChatTemplateError only
    when there is none). `file_name` names the model in the note that says so."""
    try:
        return _render(loaded, formatter, msgs, reuse_prefix)
    except chat_template.ChatTemplateError as exc:
        if not isinstance(formatter, chat_formats.GuardedChatFormatter):
            raise
        replacement = _template_failed(loaded, exc, file_name)
        return _render(loaded, replacement, msgs, reuse_prefix)


def _template_failed(
    loaded: LoadedModel, exc: chat_template.ChatTemplateError, file_name: str
) -> Any:
    llm = loaded.llm
    choice = chat_formats.fallback(
        file_name,
        exc.message,
        str(llm.metadata.get("general.architecture", "")),
        token_probe(llm),
    )
    loaded.formatter, loaded.template_note = choice.formatter, choice.note
    leave_template(llm, choice)
    if choice.formatter is None:
        loaded.has_chat_template = False
        raise exc
    return choice.formatter


def _render(
    loaded: LoadedModel, formatter: Any, msgs: list[dict[str, str]], reuse_prefix: Reusable
) -> ChatPrompt:
    """What llama-cpp-python's template handler does, with the tokens in our hands, but
    the messages' text tokenized as plain text: control-token text in a passage
    (<|im_start|>system ...) must not become a real turn (prompt_pieces). With it, the
    tokens of each reusable head of the last message: the template's pieces before that
    message, then the head as message text."""
    rendered = formatter(messages=msgs)
    add_bos = not rendered.added_special
    pieces, last_at = split_prompt(lambda m: str(formatter(messages=m).prompt), msgs)
    tokens = _piece_tokens(loaded, pieces, add_bos=add_bos)
    last = msgs[-1]["content"] if msgs else ""
    texts = reusable_heads(last, reuse_prefix) if last_at >= 0 else []
    heads = [_piece_tokens(loaded, [*pieces[:last_at], (h, True)], add_bos=add_bos) for h in texts]
    return ChatPrompt(rendered, tokens, texts, heads)


def _piece_tokens(loaded: LoadedModel, pieces: Sequence[Piece], *, add_bos: bool) -> list[int]:
    """Template pieces with control tokens, message text as plain text."""
    tokens: list[int] = []
    for text, is_message in pieces:
        if text:
            bos = add_bos and not tokens
            tokens += tokenize(loaded, text, add_bos=bos, special=not is_message)
    return tokens
