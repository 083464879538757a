"""The rule-made question read from the parse (generation/rule_questions.py): the question
phrase moved to the front with the clause inverted where English asks it, else in place;
no question where none is grammatical. The facts are written for these tests (the study
`studies/rule_questions.py` measures the rule on SQuAD passages)."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from quizsmith.generation import writer
from quizsmith.generation.rule_questions import wh_question


def _asked(fact: str, answer: str) -> str | None:
    return wh_question(fact, answer, fact.index(answer))


@pytest.mark.parametrize(
    ("fact", "answer", "question"),
    [
        # No auxiliary: "did" carries the tense and the verb goes back to its base form.
        (
            "In 1859 Charles Darwin published a book on evolution.",
            "1859",
            "In what year did Charles Darwin publish a book on evolution?",
        ),
        # An auxiliary inverts: "was ... completed"; the clause joined by "and" is left out.
        (
            "The bridge was completed in 1937 and is still the city's emblem.",
            "1937",
            "In what year was the bridge completed?",
        ),
        # A day is asked "on what date", whatever preposition the sentence had.
        (
            "The treaty was signed in 4 March 1801.",
            "4 March 1801",
            "On what date was the treaty signed?",
        ),
        # A copula inverts itself.
        ("The capital of Peru is Lima.", "Lima", "What is the capital of Peru?"),
        # Present tense: "does".
        (
            "A hummingbird's heart beats about 1,200 times a minute.",
            "1,200",
            "How many times does a hummingbird's heart beat a minute?",
        ),
    ],
)
def test_the_question_phrase_goes_to_the_front_and_the_clause_inverts(
    fact: str, answer: str, question: str
) -> None:
    made = _asked(fact, answer)
    assert made == question
    assert writer.stem_problem(made, answer, fact, may_quote_fact=True) == ""


@pytest.mark.parametrize(
    ("fact", "answer", "question"),
    [
        # What a number counts, and what that is of, not "what number".
        (
            "The orchard produces 40 tonnes of apples every autumn.",
            "40",
            "How many tonnes of apples does the orchard produce every autumn?",
        ),
        # The counted noun's other phrases stay in the clause.
        (
            "Haydn wrote 104 symphonies in Esterháza.",
            "104 symphonies",
            "How many symphonies did Haydn write in Esterháza?",
        ),
        # A name described before it: "which Italian painter", not "the Italian painter what".
        (
            "The ceiling was painted by the Italian painter Michelangelo Buonarroti in 1512.",
            "Michelangelo Buonarroti",
            "By which Italian painter was the ceiling painted in 1512?",
        ),
        # A name with an appositive after it.
        (
            "Rachel Carson, a marine biologist, wrote about pesticides.",
            "Rachel Carson",
            "Which marine biologist wrote about pesticides?",
        ),
        # A possessor: "whose", not "what 's".
        (
            "The sun warms the Moon's surface to over 100 degrees.",
            "Moon",
            "Whose surface does the sun warm to over 100 degrees?",
        ),
        # An ordinal asks which period.
        (
            "In the 18th century, the steam engine changed how mines were drained.",
            "the 18th century",
            "In which century did the steam engine change how mines were drained?",
        ),
        # "There are" with a number: the number's noun and "there" inverted.
        ("There are eight planets.", "eight", "How many planets are there?"),
    ],
)
def test_the_question_phrase_says_what_it_asks_for(fact: str, answer: str, question: str) -> None:
    assert _asked(fact, answer) == question


@pytest.mark.parametrize(
    ("fact", "answer", "question"),
    [
        # In a clause joined by "and": no fronting across it; the phrase stays in place.
        (
            "Mozart was born in Salzburg and moved to Vienna in 1781.",
            "1781",
            "Mozart was born in Salzburg and moved to Vienna in what year?",
        ),
        # A phrase with a clause after it reads only in place.
        (
            "Digestion begins in the mouth, which holds saliva.",
            "the mouth",
            "Digestion begins in what, which holds saliva?",
        ),
        # A subject is asked in place, without inversion.
        ("The Romans built the aqueduct.", "The Romans", "What built the aqueduct?"),
    ],
)
def test_a_phrase_that_cannot_move_is_asked_in_place(fact: str, answer: str, question: str) -> None:
    assert _asked(fact, answer) == question


@pytest.mark.parametrize(
    ("fact", "answer"),
    [
        # The answer only modifies a larger phrase: "the what fastest", "the how many story".
        ("The falcon is the fastest bird.", "fastest"),
        ("The 30-storey tower opened in 1931.", "30"),
        # The answer cuts a word.
        ("The falcon is the fastest bird.", "alco"),
    ],
)
def test_no_question_where_none_is_grammatical(fact: str, answer: str) -> None:
    assert _asked(fact, answer) is None


def test_a_name_that_opens_the_sentence_keeps_its_capital() -> None:
    # Only a determiner or a pronoun loses its capital when it moves behind "did".
    fact = "Marie Curie discovered polonium in 1898."
    assert _asked(fact, "1898") == "In what year did Marie Curie discover polonium?"


def test_an_answer_not_at_its_offset_makes_no_question() -> None:
    fact = "The bridge was completed in 1937."
    assert wh_question(fact, "1937", fact.index("1937") + 1) is None
    assert wh_question(fact, "1938", 0) is None


def test_quotation_marks_around_the_answer_go_with_it() -> None:
    fact = 'She sang "Blue Horizon" at the festival.'
    assert _asked(fact, "Blue Horizon") == "What did she sing at the festival?"


def test_a_name_in_apposition_is_asked_by_the_noun_before_it() -> None:
    fact = 'The album "Blue Horizon" was released in 1970.'
    assert _asked(fact, "Blue Horizon") == "Which album was released in 1970?"


def test_a_phrase_before_the_subject_that_cannot_move_makes_no_question() -> None:
    # The small parser reads "astronomer" as no part of the subject, so the clause cannot be
    # inverted; "In what year the astronomer ... published ...?" would be no question.
    fact = "In 1543 the Polish astronomer Nicolaus Copernicus published his model."
    assert _asked(fact, "1543") is None
    # Here the year is read as a number before the name ("1543 Nicolaus Copernicus").
    assert _asked("In 1543 Nicolaus Copernicus published his model.", "1543") is None


@pytest.mark.parametrize(
    ("fact", "answer", "question"),
    [
        # A percentage is asked as one; what it is a share of stays after it.
        (
            "Wheat accounts for 40% of the farm's output.",
            "40%",
            "Wheat accounts for what percentage of the farm's output?",
        ),
        # A name that says which of a kind is asked by the kind.
        (
            "The Maori people settled New Zealand.",
            "Maori",
            "What people settled New Zealand?",
        ),
    ],
)
def test_a_share_or_a_kind_is_asked_as_such(fact: str, answer: str, question: str) -> None:
    assert _asked(fact, answer) == question


def test_a_word_within_a_title_is_not_asked() -> None:
    # "how many" for the "One" of a song's title asks nothing the student could answer.
    fact = 'The band released a single, "Only One", in 2014.'
    assert _asked(fact, "One") is None


def test_a_gloss_in_brackets_is_asked_in_place() -> None:
    # "this suffering (dukkha)": the bracketed word is the thing's other name, not one of a
    # kind, so no "which suffering".
    fact = "Monks free themselves from this suffering (dukkha) by meditation."
    assert (
        _asked(fact, "dukkha") == "Monks free themselves from this suffering (what) by meditation?"
    )


def test_who_asks_for_a_person_the_phrase_itself_names() -> None:
    # "Shakespeare's Globe" holds a person's name but is a theatre ("named who" on the light
    # profile's bench).
    fact = "The modern reconstruction, named Shakespeare's Globe, opened to the public in 1997."
    made = _asked(fact, "Shakespeare's Globe")
    assert made is not None and "who" not in made.lower().replace("?", "").split()
    assert "what" in made.lower()
    fact = "They make sugars from carbon dioxide in a process known as the Calvin cycle."
    assert _asked(fact, "Calvin cycle") == (
        "They make sugars from carbon dioxide in a process known as what?"
    )


def test_a_bound_stays_only_where_it_is_a_preposition() -> None:
    fact = "Villages in the hills receive more than 9,000 millimetres of rain a year."
    made = _asked(fact, "9,000 millimetres")
    assert made == "How many millimetres of rain do villages in the hills receive a year?"


def test_the_pronoun_one_is_no_count() -> None:
    fact = "The change was from an economy based on farming to one based on industry."
    assert _asked(fact, "one") is None


@settings(max_examples=60, deadline=None)
@given(
    words=st.lists(
        st.sampled_from(
            [
                "The",
                "river",
                "was",
                "built",
                "in",
                "1900",
                "by",
                "Anna",
                "Berg",
                ",",
                "and",
                '"',
                "(",
                ")",
                "three",
                "ships",
                "of",
                "'s",
                "50%",
                "it",
                "not",
                "which",
                ".",
            ]
        ),
        min_size=1,
        max_size=14,
    ),
    pick=st.integers(min_value=0, max_value=13),
)
def test_any_sentence_gives_a_question_or_none_and_never_fails(words: list[str], pick: int) -> None:
    fact = " ".join(words)
    answer = words[pick % len(words)]
    made = wh_question(fact, answer, fact.index(answer))
    assert made is None or (made.endswith("?") and len(made) > 1)
