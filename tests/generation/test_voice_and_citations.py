"""Issue 47: true/false and fill-in-the-blank items copied passage sentences with their voice
("We'll then turn to ...", "The dialogue above is from ___") and blanked citation years
("(Weizenbaum, ___)"). The passage analysis marks such sentences (the parser's person
morphology), and nothing inside a cited source is an answer."""

from __future__ import annotations

from quizsmith.domain import Passage
from quizsmith.generation.analysis import analyse
from quizsmith.generation.api import GenerationRequest
from quizsmith.generation.pipeline import VERBATIM_TYPES, _voiced, generate_items
from quizsmith.generation.target import Target
from quizsmith.jobs import CancelToken
from quizsmith.settings import Settings

CHATBOTS = (
    "ELIZA was one of the first chatbots (Weizenbaum, 1966). "
    "We'll then turn to the history of dialogue systems. "
    "The dialogue above is from ELIZA, an early program. "
    "You can talk to such a program for hours. "
    "ELIZA imitated a psychotherapist in 1966. "
    "The war ended in 1945 (after six years)."
)


def test_sentences_in_a_voice_of_their_own_are_marked() -> None:
    analysis = analyse(CHATBOTS)
    texts = [s.text for s in analysis.sentences]
    voiced = dict(zip(texts, analysis.voiced, strict=True))
    assert voiced["We'll then turn to the history of dialogue systems."]
    assert voiced["The dialogue above is from ELIZA, an early program."]
    assert voiced["You can talk to such a program for hours."]
    assert not voiced["ELIZA imitated a psychotherapist in 1966."]
    assert not voiced["ELIZA was one of the first chatbots (Weizenbaum, 1966)."]


def test_nothing_inside_a_citation_is_an_answer() -> None:
    analysis = analyse(CHATBOTS)
    first = analysis.in_sentence(0)
    assert "chatbots" in {c.text for c in first} or "first chatbots" in {c.text for c in first}
    assert not [c for c in first if c.text in ("Weizenbaum", "1966")]
    # A year in the passage's own words stays one; parentheses without a name do not cite.
    later = {c.text for c in analysis.constituents if c.sentence_index > 0}
    assert "1966" in later
    assert "six years" in later or "1945" in later


def test_true_false_and_fill_in_items_skip_a_voiced_sentence() -> None:
    analysis = analyse(CHATBOTS)
    index = next(i for i, s in enumerate(analysis.sentences) if s.text.startswith("We'll"))
    sentence = analysis.sentences[index]
    target = Target(sentence.text, sentence.start, "dialogue systems", 0, "phrase", index, 0.5)
    assert _voiced(analysis, target)
    assert not _voiced(analysis, Target(sentence.text, 0, "x", 0, "pinned", index, 1.0))
    assert set(VERBATIM_TYPES) == {"tf", "cloze"}


def test_the_loading_steps_name_the_models_they_load() -> None:
    """Issue 47: the first run spent two minutes on "Finding facts" without saying that it
    loaded models. The steps before the first item name each (the light profile's here)."""
    request = GenerationRequest(n=1, types=("cloze",), rank=False, candidates_per_target=1)
    steps = generate_items(
        Passage(text=CHATBOTS), request, settings=Settings(n_threads=1), cancel=CancelToken()
    )
    messages = []
    for event in steps:
        messages.append(event.message)
        if event.message.startswith("Loading the models that check"):
            break
    steps.close()
    assert "Loading the question-writing model (SmolLM2-135M-Instruct)" in messages
    assert "Finding facts to ask about (SmolLM2-135M-Instruct reads the passage)" in messages
    assert messages[-1] == (
        "Loading the models that check the wrong answers (SmolLM2-135M-Instruct, all-MiniLM-L6-v2)"
    )
