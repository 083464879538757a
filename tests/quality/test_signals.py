"""The cheap quality signals: hand-checked pure parts, then the real bundled models on items
whose quality is known (a good question, the same question with a wrong key, a statement)."""

from __future__ import annotations

import math

import pytest

from quizsmith.domain import Item, Option, Passage
from quizsmith.providers.nearest import cosine
from quizsmith.quality.signals import (
    SIGNALS,
    candidate_answers,
    compute_signals,
    is_question,
    key_cosines,
    key_in_stem,
    masked_key_sentence,
    overlap,
    softmax_share,
    wh_match,
)

PASSAGE = (
    "Plants make their food by photosynthesis. In the leaves, chlorophyll captures light "
    "energy, which turns carbon dioxide and water into glucose. Oxygen is released as a "
    "by-product of photosynthesis. The glucose is stored as starch in the roots."
)


def test_is_question() -> None:
    assert is_question("Which gas do plants release?") == 1.0
    assert is_question("Name the gas that plants release") == 1.0  # imperative quiz stem
    assert is_question("Oxygen is released by plants.") == 0.0
    assert is_question("   ") == 0.0


def test_wh_match_by_hand() -> None:
    assert wh_match("How many moons does Mars have?", "two") == 1.0
    assert wh_match("How many moons does Mars have?", "Phobos") == 0.0
    assert wh_match("When did the war end?", "1945") == 1.0
    assert wh_match("When did the war end?", "the treaty") == 0.0
    assert wh_match("Who wrote Hamlet?", "William Shakespeare") == 1.0
    assert wh_match("Who wrote Hamlet?", "a play") == 0.0
    assert wh_match("What is released?", "oxygen") == 0.5


def test_key_in_stem_and_overlap_by_hand() -> None:
    # Key words {"carbon", "dioxide"}; the stem holds "dioxide" only: 1/2.
    assert key_in_stem("What gas, like dioxide, do plants take in?", "carbon dioxide") == 0.5
    assert key_in_stem("What do plants release?", "oxygen") == 0.0
    # Content words of the stem: plants, release, moon -> 2 of 3 are in the passage? "release"
    # is not ("released" is a different word), "plants" is: 1/3.
    assert overlap("Do plants release moon?", PASSAGE) == pytest.approx(1 / 3)
    assert overlap("the of and?", PASSAGE) == 0.0


def test_softmax_share_and_cosine_by_hand() -> None:
    # exp(0) / (exp(0) + exp(-ln 3)) = 1 / (1 + 1/3) = 0.75
    assert softmax_share([0.0, -math.log(3)], 0) == pytest.approx(0.75)
    assert cosine([1.0, 0.0], [1.0, 1.0]) == pytest.approx(1 / math.sqrt(2))
    assert cosine([0.0, 0.0], [1.0, 1.0]) == 0.0


def test_masked_key_sentence_blanks_the_first_sentence_holding_the_key() -> None:
    sentences = ["Plants make food.", "Oxygen is released; oxygen is a gas.", "Oxygen again."]
    assert masked_key_sentence(sentences, "oxygen") == "___ is released; ___ is a gas."
    assert masked_key_sentence(sentences, "helium") is None
    assert masked_key_sentence(sentences, "  ") is None
    # Regex characters in a key are matched literally.
    assert masked_key_sentence(["It costs $5 (about)."], "$5 (about)") == "It costs ___."


class _Embedder:
    """Vectors by hand: each text maps to a fixed 2-d vector."""

    def __init__(self, table: dict[str, list[float]]) -> None:
        self.table = table
        self.calls: list[list[str]] = []

    def embed(self, texts: list[str]) -> list[list[float]]:
        self.calls.append(texts)
        return [self.table[t] for t in texts]


def test_key_cosines_by_hand() -> None:
    embedder = _Embedder({"Q?": [1.0, 0.0], "oxygen": [0.0, 1.0], "___ is released.": [1.0, 1.0]})
    to_key, to_masked = key_cosines(embedder, "Q?", "oxygen", ["Oxygen is released."])  # type: ignore[arg-type]
    assert to_key == pytest.approx(0.0)
    assert to_masked == pytest.approx(1 / math.sqrt(2))
    # No sentence holds the key: only the cosine with the key.
    to_key, to_masked = key_cosines(embedder, "Q?", "oxygen", ["Plants grow."])  # type: ignore[arg-type]
    assert to_key == pytest.approx(0.0) and to_masked is None


def test_candidates_key_first_then_distractors_then_spans() -> None:
    sentence = "Oxygen is released as a by-product of photosynthesis."
    found = candidate_answers(PASSAGE, [sentence], "oxygen", ["nitrogen", "Oxygen", "helium"])
    assert found[0] == "oxygen"
    assert found[1:3] == ["nitrogen", "helium"]  # the repeated key is dropped
    assert "photosynthesis" in " ".join(found[3:])
    assert len(found) == len({f.lower() for f in found})


def _item(stem: str, key: str, distractors: list[str] | None = None) -> Item:
    options = [Option(key, True, 0)] + [
        Option(d, False, i + 1) for i, d in enumerate(distractors or [])
    ]
    return Item(
        type="mcq" if distractors else "short",
        stem=stem,
        key=key,
        options=options if distractors else [],
        passage=Passage(text=PASSAGE),
    )


@pytest.mark.slow
def test_signals_on_the_bundled_models_rank_the_right_key(gemma, smollm, minilm) -> None:
    good = compute_signals(
        _item("Which gas do plants release as a by-product of photosynthesis?", "Oxygen"),
        gemma,
        smollm,
        minilm,
    )
    assert set(good.values) == set(SIGNALS)
    assert all(v is None or math.isfinite(v) for v in good.values.values())
    wrong = compute_signals(
        _item("Which gas do plants release as a by-product of photosynthesis?", "starch"),
        gemma,
        smollm,
        minilm,
    )
    # The question points at oxygen: the right key gains more from the question than a
    # wrong one and takes a larger share of the candidates; with the right key it is also
    # the likeliest candidate. (With the wrong key among the candidates, the 270M model can
    # still prefer it: a single pick is a weak signal, which is why it is one feature of
    # several.)
    assert good.values["key_gain_question"] > wrong.values["key_gain_question"]
    assert good.values["key_share"] > wrong.values["key_share"]
    assert good.values["pick_f1"] == 1.0
    assert good.evidence["picked"].lower() == "oxygen"
    assert 0.0 <= good.values["key_share"] <= 1.0
    assert good.values["is_question"] == 1.0 and good.values["overlap"] > 0.5
    # A statement is no question; a question about another text shares few words.
    statement = compute_signals(
        _item("Oxygen is released as a by-product of photosynthesis.", "Oxygen"),
        gemma,
        None,
        None,
    )
    assert statement.values["is_question"] == 0.0
    assert statement.values["q_fluency"] is None and statement.values["sim"] is None
    assert statement.values["cos_q_key"] is None and statement.values["cos_q_masked"] is None
    # The key's sentence without the key reads like the question about it.
    assert good.values["cos_q_masked"] is not None and good.values["cos_q_masked"] > 0.4
    other = compute_signals(
        _item("Who painted the ceiling of the Sistine Chapel?", "Oxygen"), gemma, None, None
    )
    assert other.values["overlap"] < good.values["overlap"]


@pytest.mark.slow
def test_distractors_are_candidates(gemma) -> None:
    item = _item("Which gas do plants release?", "Oxygen", ["Nitrogen", "Helium", "Argon"])
    found = compute_signals(item, gemma, None, None)
    answers = [c["answer"] for c in found.evidence["candidates"]]
    assert answers[:4] == ["Oxygen", "Nitrogen", "Helium", "Argon"]
