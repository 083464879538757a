"""The passage's subject named in a question that speaks of it by its class
(`passage_subject`): "Where does the river enter Serbia?" on a passage about the Danube reads,
on its own, as any river's. Real spaCy parses of short passages written for these tests."""

from __future__ import annotations

import pytest

from quizsmith.generation.analysis import analyse
from quizsmith.generation.passage_subject import Subject, naming_the_subject, subject_of

RIVER = (
    "Danube\n\n"
    "The Danube (German: Donau) is a major river of central Europe. It flows through ten "
    "countries. At Belgrade the river is joined by the Sava."
)
CHARTER = "Magna Carta is a charter of liberties that King John accepted in 1215. It was annulled."
PROCESS = (
    "Photosynthesis is the process by which plants make sugar from light. In photosynthesis, "
    "water is split."
)


def test_the_subject_and_its_class_come_from_the_first_statement() -> None:
    subject = subject_of(analyse(RIVER))  # the heading is no statement; the gloss is left out
    assert subject == Subject("the Danube", frozenset({"river", "danube"}))
    charter = subject_of(analyse(CHARTER))
    assert charter is not None and charter.text == "Magna Carta" and "charter" in charter.nouns
    # A common-noun subject the passage writes in lower case mid-sentence.
    process = subject_of(analyse(PROCESS))
    assert process is not None and process.text == "photosynthesis"


@pytest.mark.parametrize(
    "passage",
    [
        "A sonnet is a poem of fourteen lines. It rhymes.",  # any sonnet, not one to name
        "Forces are pushes or pulls. They change motion.",  # several things
        "The outer shell of the Earth is not a single solid piece. It is broken.",  # negated
        "The river rises in the Black Forest and flows east.",  # no "is a ..."
        "This process is a chain of reactions. It needs light.",  # points back
        "Its capital is a port on the coast. Ships dock there.",
        "",
    ],
)
def test_a_passage_that_opens_otherwise_has_no_subject(passage: str) -> None:
    assert subject_of(analyse(passage)) is None


@pytest.mark.parametrize(
    ("question", "key", "named"),
    [
        ("Where does the river enter Serbia?", "Belgrade", "Where does the Danube enter Serbia?"),
        ("The river flows into which sea?", "the Black Sea", "The Danube flows into which sea?"),
        # Which river the question means is said by its words: left as written.
        ("Which river joins the longest river in Belgrade?", "Sava", None),
        ("Which river meets the river of Vienna?", "Wien", None),
        ("How many rivers feed the Danube?", "300", None),  # names it already
        ("What is the river called?", "the Danube", None),  # would name its answer
        ("Where do the rivers meet?", "Belgrade", None),  # plural: others
    ],
)
def test_a_bare_class_noun_becomes_the_subject(question: str, key: str, named: str | None) -> None:
    subject = subject_of(analyse(RIVER))
    assert naming_the_subject(question, key, subject) == (named or question)


def test_without_a_subject_the_question_stands() -> None:
    question = "Where does the river enter Serbia?"
    assert naming_the_subject(question, "Belgrade", None) == question


def test_the_builder_names_the_subject_in_its_question() -> None:
    """A scripted model writes "the river"; the built item's question says "the Danube"."""
    from tests.generation.test_kind_check_in_builder import (
        Script,
        ScriptedModel,
        _context,
        _target,
    )

    from quizsmith.generation.builder import build_candidates

    fact = "At Belgrade the river is joined by the Sava."
    script = Script(
        fact,
        ["Which river joins the river at Belgrade?"],
        ["Tisza", "Drava", "Morava", "Inn"],
        {},
    )
    model = ScriptedModel(script)
    ctx = _context(model, RIVER, qa=model)
    built = build_candidates(_target(fact, "Sava", "entity"), "mcq", 2, ctx)
    assert [c.stem for c in built.candidates] == ["Which river joins the Danube at Belgrade?"]
