"""Overlap measures on hand-computed inputs, against sacrebleu/NLTK where they can run offline."""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence

import numpy as np
import pytest

from quizsmith.metrics import overlap
from quizsmith.metrics.overlap import bertscore_f1, bleu4, meteor, meteor_single, rouge_l

CAND = "the cat sat on the mat"
REF = "the cat is on the mat"


def test_bleu4_by_hand() -> None:
    # Precisions: 1-gram 5/6, 2-gram 3/5 (the cat, on the, the mat), 3-gram 1/4 (on the mat),
    # 4-gram 0/3 -> "exp" smoothing replaces the first zero by 1/(2 * 3). Same length: BP = 1.
    expected = (5 / 6 * 3 / 5 * 1 / 4 * 1 / 6) ** 0.25
    assert bleu4(CAND, [REF]) == pytest.approx(expected, abs=1e-9)


def test_bleu4_matches_sacrebleu_sentence_scores() -> None:
    import sacrebleu

    # The sentences of sacrebleu's README example (its corpus is three sentence pairs).
    systems = ["The dog bit the man.", "It wasn't surprising.", "The man had just bitten him."]
    refs = [
        ["The dog bit the man.", "The dog had bit the man."],
        ["It was not unexpected.", "No one was surprised."],
        ["The man bit him first.", "The man had bitten the dog."],
    ]
    for cand, pair in zip(systems, refs, strict=True):
        singles = [sacrebleu.sentence_bleu(cand, [r]).score / 100 for r in pair]
        assert bleu4(cand, pair) == pytest.approx(max(singles))
    assert bleu4(systems[0], refs[0]) == pytest.approx(1.0)


def test_rouge_l_by_hand() -> None:
    # LCS "the cat on the mat" = 5 of 6 tokens on both sides: P = R = F = 5/6.
    assert rouge_l(CAND, [REF]) == pytest.approx(5 / 6)


def test_meteor_by_hand() -> None:
    # Exact matches the, cat, on, the, mat (m = 5; "sat"/"is" do not match even by stem).
    # Alignment (0,0) (1,1) | (3,3) (4,4) (5,5): 2 chunks. P = R = 5/6, Fmean = 5/6,
    # penalty = 0.5 * (2/5)^3 = 0.032 -> METEOR = 0.968 * 5/6 = 0.80667.
    assert meteor(CAND, [REF]) == pytest.approx(0.968 * 5 / 6)
    # Stem stage: "cats" ~ "cat". m = 3 in one chunk: penalty 0.5 / 27.
    assert meteor("the cats sat", ["the cat sat"]) == pytest.approx(1 - 0.5 / 27)


def test_meteor_of_identical_text_is_one_minus_the_one_chunk_penalty() -> None:
    # METEOR's fragmentation penalty is never 0: one chunk of n words costs 0.5 / n^3.
    # 4 tokens: who, wrote, hamlet, ?
    assert meteor("Who wrote Hamlet?", ["Who wrote Hamlet?"]) == pytest.approx(1 - 0.5 / 64)


class _NoWordNet:
    """NLTK's meteor_score takes the WordNet module as a parameter; an empty one makes it
    exact + stem only, which is what ours implements."""

    def synsets(self, word: str) -> list[object]:
        return []


@pytest.mark.parametrize(
    ("cand", "ref"),
    [
        (CAND, REF),
        (
            "What is the definition of sustainable energy?",
            "What does it mean if energy is sustainable?",
        ),
        (
            "Who defies Creon in the play?",
            "Sophocles demonstrated civil disobedience in a play that was called?",
        ),
        ("the cats were sitting on the mats", "the cat sat on the mat"),
        ("Which river runs through Paris?", "Through which city does the Seine run?"),
    ],
)
def test_meteor_equals_nltk_without_wordnet(cand: str, ref: str) -> None:
    from nltk.translate.meteor_score import single_meteor_score

    theirs = single_meteor_score(
        overlap.meteor_tokens(ref), overlap.meteor_tokens(cand), wordnet=_NoWordNet()
    )
    assert meteor_single(cand, ref) == pytest.approx(theirs)


def test_identical_and_disjoint() -> None:
    q = "When did the Yuan dynasty adopt the new calendar?"
    assert bleu4(q, [q]) == pytest.approx(1.0)
    assert rouge_l(q, [q]) == pytest.approx(1.0)
    assert meteor(q, [q]) == pytest.approx(1 - 0.5 / len(overlap.meteor_tokens(q)) ** 3)
    other = "Zebras graze quietly"
    assert bleu4(q, [other]) == 0.0
    assert rouge_l(q, [other]) == 0.0
    assert meteor(q, [other]) == 0.0


def test_empty_inputs_score_zero() -> None:
    for fn in (bleu4, rouge_l, meteor):
        assert fn("", [REF]) == 0.0
        assert fn(CAND, []) == 0.0
        assert fn(CAND, ["  "]) == 0.0


@pytest.mark.parametrize("fn", [bleu4, rouge_l, meteor])
def test_multi_reference_is_max_of_singles(fn: Callable[[str, Sequence[str]], float]) -> None:
    refs = [REF, "a cat was sitting on a mat", "the dog sat on the log", CAND]
    singles = [fn(CAND, [r]) for r in refs]
    assert fn(CAND, refs) == pytest.approx(max(singles))
    assert fn(CAND, refs[:3]) == pytest.approx(max(singles[:3]))


# -- BERTScore-style F1 with a hand-made embedder ------------------------------------------
_VECS = {
    "a": np.array([1.0, 0.0, 0.0]),
    "b": np.array([1.0, 1.0, 0.0]),  # cos(a, b) = 1/sqrt(2)
    "c": np.array([0.0, 0.0, 1.0]),
    "d": np.array([0.0, 1.0, 0.0]),
}


def _words(texts: Sequence[str]) -> list[np.ndarray]:
    return [np.stack([_VECS[w] for w in t.split()]) for t in texts]


def test_bertscore_by_hand() -> None:
    # P: a -> 1, d -> 0 => 0.5; R: a -> 1, c -> 0 => 0.5; F1 = 0.5.
    assert bertscore_f1("a d", ["a c"], _words) == pytest.approx(0.5)
    # P: a -> 1, b -> 1/sqrt2 => (1 + 0.70711)/2; R: a -> 1, c -> 0 => 0.5.
    p, r = (1 + 1 / math.sqrt(2)) / 2, 0.5
    assert bertscore_f1("a b", ["a c"], _words) == pytest.approx(2 * p * r / (p + r))
    assert bertscore_f1("a b", ["a b"], _words) == pytest.approx(1.0)
    assert bertscore_f1("c", ["d"], _words) == 0.0
    singles = [bertscore_f1("a b", [r], _words) for r in ("a c", "d", "b")]
    assert bertscore_f1("a b", ["a c", "d", "b"], _words) == pytest.approx(max(singles))


@pytest.mark.slow
def test_bertscore_with_minilm_tokens() -> None:
    embed = overlap.minilm_token_embedder()
    q = "What was the Chinese name of the calendar?"
    para = "What was the calendar called in Chinese?"
    unrelated = "How many legs does a spider have?"
    vecs = embed([q, "Hi"])
    assert vecs[0].shape[1] == 384 and vecs[1].shape[0] == 1  # [CLS]/[SEP] removed
    same = bertscore_f1(q, [q], embed)
    close = bertscore_f1(q, [para], embed)
    far = bertscore_f1(q, [unrelated], embed)
    assert same == pytest.approx(1.0, abs=1e-5)
    assert 0.0 <= far < close < same
    assert bertscore_f1(q, [unrelated, para], embed) == pytest.approx(close)
