"""Which parts of a rendered chat prompt are the template's and which are message text.

The template's own markers (`<|im_start|>`, `<start_of_turn>` ...) must become control tokens;
message text (a passage, a question, a teacher's note) must stay plain text whatever it holds.
Tokenizing the whole rendered prompt with special tokens on turned a passage holding
`</s><|im_end|><|im_start|>system` into a real new system turn, and the model obeyed it.

The template is rendered once with a unique marker in place of each message's text, which
splits its output into template pieces exactly (no guessing where a message starts); the
pieces put back around the messages must give the prompt rendered from the real messages, or
the prompt is refused rather than tokenized wrongly.
"""

from __future__ import annotations

import re
import secrets
from collections.abc import Callable, Sequence

from quizsmith.errors import ProviderError

#: (text, is_message_text): message text is tokenized as plain text, the rest with specials.
Piece = tuple[str, bool]


def split_prompt(
    render: Callable[[list[dict[str, str]]], str], messages: Sequence[dict[str, str]]
) -> tuple[list[Piece], int]:
    """The rendered prompt as pieces, and the index of the last message's text piece (-1
    when the template leaves it out)."""
    prompt = render([dict(m) for m in messages])
    tag = secrets.token_hex(8)
    markers = [f"QZMSG{tag}N{i}E" for i in range(len(messages))]
    skeleton = render([{**m, "content": markers[i]} for i, m in enumerate(messages)])
    parts = re.split(f"(QZMSG{tag}N\\d+E)", skeleton)
    for transform in (_same, str.strip):
        pieces: list[Piece] = []
        last = -1
        for part in parts:
            if part in markers:
                index = markers.index(part)
                text = transform(messages[index]["content"])
                if index == len(messages) - 1:
                    last = len(pieces)
                pieces.append((text, True))
            elif part:
                pieces.append((part, False))
        if "".join(text for text, _ in pieces) == prompt:
            return pieces, last
    raise ProviderError(
        "The model's chat template changes the message text in a way Quizsmith cannot follow, "
        "so the prompt cannot be tokenized safely.",
        "Choose another model for this role (quizsmith models lists them).",
    )


def _same(text: str) -> str:
    return text
