"""Shared test helpers: item builders and a deterministic stand-in for the embedding model.

The fake embedder is a bag of hashed words: texts sharing most words get cosine close to 1,
texts sharing none get 0. It exists so unit tests of the dedupe logic run in milliseconds;
test_dedupe.py also checks the real MiniLM model.
"""

from __future__ import annotations

import hashlib
import math
import re
from collections.abc import Sequence

from quizsmith.domain import Item, Passage

DIM = 64


def fake_embed(texts: Sequence[str]) -> list[list[float]]:
    vectors = []
    for text in texts:
        vec = [0.0] * DIM
        for word in re.findall(r"\w+", text.lower()):
            vec[int(hashlib.md5(word.encode()).hexdigest(), 16) % DIM] += 1.0
        norm = math.sqrt(sum(v * v for v in vec)) or 1.0
        vectors.append([v / norm for v in vec] if any(vec) else [1.0] + [0.0] * (DIM - 1))
    return vectors


def mcq(
    stem: str = "What is the capital of France?",
    key: str = "Paris",
    distractors: Sequence[str] = ("Lyon", "Marseille", "Nice"),
    **fields: object,
) -> Item:
    return Item(
        type="mcq",
        stem=stem,
        key=key,
        options=Item.make_options(key, list(distractors)),
        **fields,  # type: ignore[arg-type]
    )


def passage(
    text: str = "Paris is the capital and largest city of France.", **fields: object
) -> Passage:
    return Passage(text=text, **fields)  # type: ignore[arg-type]
