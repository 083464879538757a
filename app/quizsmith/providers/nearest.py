"""Sentence vectors and the sentences nearest a question (MiniLM cosine), shared by the
quality signals, NACo's likelihood answer, MIRROR's context and distractor filtering. Kept
with the providers, below every metric, so any of them may use it."""

from __future__ import annotations

import math
from collections.abc import Sequence

from quizsmith.providers.base import Provider


def cosine(a: Sequence[float], b: Sequence[float]) -> float:
    dot = sum(x * y for x, y in zip(a, b, strict=True))
    na = math.sqrt(sum(x * x for x in a))
    nb = math.sqrt(sum(y * y for y in b))
    return dot / (na * nb) if na and nb else 0.0


_VECTORS: dict[tuple[int, tuple[str, ...]], list[list[float]]] = {}
#: Texts whose vectors are kept: the live editor re-scores the same passage and stem (NACo's
#: answer and the signals both look for the sentence nearest the question), and an
#: evaluation meets each passage's questions together.
_VECTORS_KEPT = 32


def sentence_vectors(embedder: Provider, texts: tuple[str, ...]) -> list[list[float]]:
    key = (id(embedder), texts)
    if key in _VECTORS:
        _VECTORS[key] = _VECTORS.pop(key)  # most recently used last
    else:
        if len(_VECTORS) >= _VECTORS_KEPT:
            del _VECTORS[next(iter(_VECTORS))]
        _VECTORS[key] = embedder.embed(list(texts))
    return _VECTORS[key]


def nearest_sentences(
    embedder: Provider | None, stem: str, sentences: Sequence[str], count: int
) -> tuple[list[str], list[float]]:
    """The `count` sentences most similar to the stem (MiniLM cosine), with every
    sentence's similarity; without an embedder, the first `count` and no similarities."""
    if embedder is None:
        return list(sentences[:count]), []
    question = sentence_vectors(embedder, (stem,))[0]
    sims = [cosine(question, vec) for vec in sentence_vectors(embedder, tuple(sentences))]
    order = sorted(range(len(sentences)), key=lambda i: -sims[i])
    return [sentences[i] for i in order[:count]], sims
