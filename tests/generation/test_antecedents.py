"""Which sentences point back to something they do not name (the parser's morphology), and
the lines before them that the question writer is shown."""

from __future__ import annotations

import pytest

from quizsmith.generation.analysis import analyse
from quizsmith.generation.antecedents import MOST_SENTENCES_BACK, antecedent_text, refers_back
from quizsmith.generation.parser import parse


@pytest.mark.parametrize(
    "sentence",
    [
        "It was closed in 1642.",
        "They crossed the river at dawn.",
        "She sang at the court for ten years.",
        "His father taught him the violin.",
        "This method needs no electricity.",
        "These were all measured by hand.",
        "In 1985 it was added to the list.",
        "Estimates of its capacity range up to 3,000 people.",
    ],
)
def test_a_sentence_that_points_back_is_recognised(sentence: str) -> None:
    assert refers_back(parse(sentence))


@pytest.mark.parametrize(
    "sentence",
    [
        "The bridge was closed in 1642.",
        "There are three bridges over the river.",
        "We measured the river at dawn.",
        "Paris lies on the Seine, and it floods in spring.",
        "Marie Curie studied in Paris.",
    ],
)
def test_a_sentence_that_names_its_subject_does_not_point_back(sentence: str) -> None:
    assert not refers_back(parse(sentence))


def test_the_context_goes_back_to_the_sentence_that_names_it() -> None:
    text = (
        "Rome had many aqueducts. The Pont du Gard crosses the Gardon in France. "
        "It has three tiers of arches. It was listed in 1985.\n\n"
        "It is still visited today."
    )
    analysis = analyse(text)
    contexts = [antecedent_text(analysis, s.index) for s in analysis.sentences]
    assert contexts[0] == contexts[1] == ""
    assert contexts[2] == "The Pont du Gard crosses the Gardon in France."
    assert contexts[3] == (
        "The Pont du Gard crosses the Gardon in France. It has three tiers of arches."
    )
    assert contexts[4] == ""  # a new paragraph: nothing before it to read


def test_the_context_is_bounded_and_leaves_web_marks_out() -> None:
    text = "The tower stands on a hill.[1] " + "It is tall.[2] " * (MOST_SENTENCES_BACK + 2)
    analysis = analyse(text)
    last = antecedent_text(analysis, len(analysis.sentences) - 1)
    assert last == " ".join(["It is tall."] * MOST_SENTENCES_BACK)
    assert "[" not in antecedent_text(analysis, 1)
    assert antecedent_text(analysis, 99) == antecedent_text(analysis, -1) == ""


def _order_asked(profile: str) -> list[str]:
    """The order the pipeline asks three facts in (`pipeline._passes`) once the first one's
    key, "Ada Lovelace", is made; each fact is its target's answer."""
    from tests.support.build_contexts import build_context

    from quizsmith.generation.pipeline import _passes
    from quizsmith.generation.target import Target

    text = (
        "Ada Lovelace wrote the first published program in 1843. "
        "She described a machine that could compose music. "
        "The Analytical Engine was never built."
    )
    ctx = build_context(text, None, profile=profile)  # the order needs no model
    targets = []
    for index, (fact, answer) in enumerate(
        [
            (ctx.analysis.sentences[0].text, "Ada Lovelace"),
            (ctx.analysis.sentences[1].text, "music"),
            (ctx.analysis.sentences[2].text, "The Analytical Engine"),
        ]
    ):
        at = text.index(fact)
        targets.append(Target(fact, at, answer, at + fact.index(answer), "np", index, 1.0))
    made: list[str] = []
    for target in _passes(targets, [], ctx, lambda: made):
        made.append(target.answer)
    return made


def test_a_fact_whose_earlier_lines_name_an_earlier_key_waits_for_a_chat_model() -> None:
    # "She ..." is asked with the sentence naming Ada Lovelace before it, and the model's
    # question then names her (13 of 17 such questions in studies/pronoun_context.py): it
    # would give the first item's key away, so the fact waits for the others.
    assert _order_asked("chat") == ["Ada Lovelace", "The Analytical Engine", "music"]


def test_a_few_shot_model_is_not_shown_the_earlier_lines_so_the_fact_does_not_wait() -> None:
    assert _order_asked("fewshot") == ["Ada Lovelace", "music", "The Analytical Engine"]


def test_a_few_shot_model_asks_the_facts_that_point_back_after_the_others() -> None:
    # Its prompt shows the fact alone, so its question cannot say who "She" is.
    from quizsmith.generation.pipeline import _context_ones_behind
    from quizsmith.generation.target import Target

    text = "Ada Lovelace wrote a program in 1843. She described a machine that could compose music."
    analysis = analyse(text)
    first, second = (s.text for s in analysis.sentences)
    targets = [
        Target(first, 0, "1843", text.index("1843"), "date", 0, 0.9),
        Target(second, text.index(second), "music", text.index("music"), "np", 1, 0.9),
    ]
    scores = [t.score for t in _context_ones_behind(analysis, targets)]
    assert scores[0] == 0.9 and scores[1] < 0.5
