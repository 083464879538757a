from __future__ import annotations

import math

import pytest

from quizsmith.providers.nearest import cosine

pytestmark = pytest.mark.slow

PAIRS = [
    (
        "The cat sat on the mat.",
        "A cat was sitting on the rug.",
        "Stock markets fell sharply on Monday.",
    ),
    (
        "Photosynthesis turns light into chemical energy.",
        "Plants convert sunlight into chemical energy.",
        "The train leaves at seven.",
    ),
    (
        "Who wrote Romeo and Juliet?",
        "Which author wrote the play Romeo and Juliet?",
        "How many legs does a spider have?",
    ),
]


def test_paraphrases_are_closer_than_unrelated_sentences(minilm) -> None:
    for anchor, paraphrase, unrelated in PAIRS:
        a, p, u = minilm.embed([anchor, paraphrase, unrelated])
        assert cosine(a, p) > cosine(a, u) + 0.2


def test_vectors_are_normalised_384_dimensional_and_batch_independent(minilm) -> None:
    texts = [t for triple in PAIRS for t in triple] + [""]
    together = minilm.embed(texts)
    alone = minilm.embed([texts[4]])[0]
    assert len(together) == len(texts)
    assert all(len(v) == 384 for v in together)
    assert all(math.isclose(math.sqrt(sum(x * x for x in v)), 1.0, rel_tol=1e-4) for v in together)
    # Padding in a batch must not change a sentence's vector (mean pooling uses the mask).
    assert cosine(alone, together[4]) > 0.9999
