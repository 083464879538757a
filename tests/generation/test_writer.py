"""Checks on model-written stems and the parsing of model output (no model)."""

from __future__ import annotations

import json

import pytest
from hypothesis import given
from hypothesis import strategies as st

from quizsmith.generation import prompts, writer
from quizsmith.providers.base import ChatResult, Fixed

FACT = "The front of the library is adorned with the Word of Life mural designed by Millard Sheets."


def test_stem_problems() -> None:
    assert writer.stem_problem("Who designed the Word of Life mural?", "Millard Sheets", FACT) == ""
    assert "gives away" in writer.stem_problem(
        "Did Millard Sheets design the mural?", "Millard Sheets", FACT
    )
    assert "not a question" in writer.stem_problem("Name the designer.", "Millard Sheets", FACT)
    assert "too short" in writer.stem_problem("Who?", "Millard Sheets", FACT)
    assert "copies" in writer.stem_problem(
        "The front of the library is adorned with the Word of Life mural designed by?",
        "Millard Sheets",
        FACT,
    )


def test_contains_answer_uses_squad_normalisation() -> None:
    assert writer.contains_answer("Was it THE Atlantic ocean?", "the Atlantic Ocean")
    assert not writer.contains_answer("Which ocean is east of Brazil?", "the Atlantic Ocean")
    assert not writer.contains_answer("In 19634?", "1963")


@pytest.mark.parametrize(
    ("stem", "answer"),
    [
        # Generation bench items (standard and light profile): the key named in the question.
        ("Why does a river flood?", "river floods"),
        ("What is the name of the person who is Antigone's mother?", "Antigone"),
        ("Which Mau Mau leader was captured in Nyeri?", "Mau Mau"),
    ],
)
def test_a_question_naming_its_key_inflected_gives_it_away(stem: str, answer: str) -> None:
    assert writer.names_its_answer(stem, answer)
    assert "gives away" in writer.stem_problem(stem, answer, "A fact about something else.")


@pytest.mark.parametrize(
    ("stem", "answer"),
    [
        # One of the key's words in the question is the kind asked for, not the answer.
        ("Which river has a wide, funnel-shaped mouth called an estuary?", "River Thames"),
        ("What type of schools are run by Academic Colleges Group?", "private schools"),
        ("In which century did quantum mechanics explain three forces?", "the 20th century"),
        ("Who designed the mural?", "the"),  # no content word: nothing to give away
    ],
)
def test_a_key_word_shared_with_the_question_is_not_a_giveaway(stem: str, answer: str) -> None:
    assert not writer.names_its_answer(stem, answer)


def test_clean_option_strips_labels_and_quotes() -> None:
    assert writer.clean_option(' "B) Pablo Picasso." ') == "Pablo Picasso"
    assert writer.clean_line("Question: What is it?") == "What is it?"


@given(st.text(max_size=300))
def test_cleaning_never_crashes(raw: str) -> None:
    cleaned = writer.clean_option(raw)
    assert "\n" not in cleaned
    writer.stem_problem(writer.clean_line(raw), "answer", FACT)


def test_wh_word_must_fit_the_key() -> None:
    fact = "The library was designed by Alvar Aalto, completed in 1963 and holds 3 million books."
    problem = writer.stem_problem
    assert "asks for someone" in problem("Who completed the main library building?", "1963", fact)
    assert "asks for a time" in problem("When was the library designed?", "Alvar Aalto", fact)
    assert "asks for an amount" in problem("How many architects were there?", "Alvar Aalto", fact)
    assert problem("How many books does the library hold?", "3 million", fact) == ""
    # The question's own wh-word counts, not a clause's ("when it opened" is no "When ...?").
    asked = "How many books did the library hold when it opened?"
    assert problem(asked, "3 million", fact) == ""


def test_a_question_for_a_name_needs_a_name_as_its_key() -> None:
    fact = "In 1628 the English physician William Harvey described how the heart pumps blood."
    problem = writer.stem_problem
    for asked in (
        "What is the name of the English physician who described how the heart pumps blood?",
        "What was the full name of the physician who described the heart's pumping?",
        "What name is given to the physician who described the heart's pumping?",
    ):
        assert "asks for a name, but the key is a date" in problem(asked, "1628", fact)
        assert problem(asked, "William Harvey", fact) == ""
    # No name asked for (a phrase as the key), or a time asked for (a year as the key).
    assert problem("What is the heart said to do in the account?", "pumps blood", fact) == ""
    assert problem("In which year did William Harvey describe the heart?", "1628", fact) == ""


def test_a_year_question_needs_a_year_as_its_key() -> None:
    # "October 1999" would be right too: the key names a month within the year asked for.
    fact = "In August 1999, ABC premiered Who Wants to Be a Millionaire."
    asked = "In which year was Who Wants to Be a Millionaire first aired on ABC?"
    assert "a date within one" in writer.stem_problem(asked, "August 1999", fact)
    assert writer.stem_problem(asked, "1999", fact) == ""
    assert writer.stem_problem("When did ABC premiere the show?", "August 1999", fact) == ""
    in_month = "In which month and year did ABC premiere the show?"
    assert writer.stem_problem(in_month, "August 1999", fact) == ""


@pytest.mark.parametrize(
    "stem",
    [
        "What do geographers group these jobs together to explain?",
        "What approach is the most popular answer to Einstein's failed attempt at this endeavor?",
        "In this way, what shapes the valley?",
        "What is this process called?",
    ],
)
def test_a_question_must_name_what_it_points_at(stem: str) -> None:
    assert "without naming it" in writer.stem_problem(stem, "erosion", FACT)
    # A rule-made question quotes its fact, but a dangling "this" is no better there.
    assert "without naming it" in writer.stem_problem(stem, "erosion", FACT, may_quote_fact=True)


@pytest.mark.parametrize(
    "stem",
    [
        "In what city was 10 Years, an American metal band, formed, and who founded this band?",
        "What happened to those who refused the king's order?",
        "Which radio show did Sarah Vowell join, other than This American Life?",
    ],
)
def test_a_demonstrative_that_refers_within_the_question_stays(stem: str) -> None:
    assert writer.unnamed_referent(stem) == ""


@pytest.mark.parametrize(
    ("stem", "pointer"),
    [
        ("What is the name of her second novel?", "her"),
        ("What did she study at university?", "she"),
        ("What is the suspected cause of his illness?", "his"),
        ("Who defeated them in the final?", "them"),
        ("What is its largest city?", "its"),
        ("In which year did the chemist show that leaves only do this in sunlight?", "this"),
    ],
)
def test_a_pronoun_with_no_one_in_the_question_to_mean_is_unnamed(stem: str, pointer: str) -> None:
    assert f"\u201c{pointer}\u201d without naming it" in writer.unnamed_referent(stem)


@pytest.mark.parametrize(
    "stem",
    [
        "In what year did Charles Darwin publish his book on evolution?",
        "Who wrote his first novel in 1925?",
        "What did the sailor send to the court to recover his ship?",
        "How many people finish their studies in the city?",
        "Which singer recorded the album Through His Eyes?",
        "What kind of ships sailed faster than those built by the Dutch?",
    ],
)
def test_a_pronoun_that_can_mean_someone_in_the_question_stays(stem: str) -> None:
    assert writer.unnamed_referent(stem) == ""


@pytest.mark.parametrize(
    ("stem", "answer", "several"),
    [
        ("What are the three jobs described by geographers?", "erosion", True),
        ("Which two rivers meet at Khartoum?", "the White Nile", True),
        ("What three jobs do geographers describe?", "erosion", True),
        # One of several is one thing; a key that lists fits a question for several.
        ("Which of the three jobs moves rocks downstream?", "transportation", False),
        ("Which two rivers meet at Khartoum?", "the White Nile and the Blue Nile", False),
        ("What two planets lie closer to the Sun than Earth?", "Mercury, Venus", False),
        ("What are the jobs of a river called?", "erosion", False),
    ],
)
def test_a_question_for_several_things_needs_a_key_that_lists(
    stem: str, answer: str, several: bool
) -> None:
    problem = writer.stem_problem(stem, answer, "A fact about something else.")
    assert ("but the key is one" in problem) is several


JOBS_FACT = (
    "Geographers describe these three jobs as erosion, transportation and deposition, and "
    "together they explain why valleys, waterfalls, meanders and deltas look the way they do."
)
PLANTS_FACT = "Gymnosperms do not require light to form chloroplasts."


@pytest.mark.parametrize(
    ("stem", "fact", "negated"),
    [
        ("Which process does not describe how valleys look?", JOBS_FACT, True),
        ("What military force didn't form part of the strategy?", JOBS_FACT, True),
        # The sentence negates: the key is the exception it names.
        ("What type of plants do not require light to form chloroplasts?", PLANTS_FACT, False),
        # Not a "which one is not" question.
        ("Why is 1 not considered a prime number?", JOBS_FACT, False),
        ("What is not only a process but a job of rivers?", JOBS_FACT, False),
        ("Which process describes how valleys look?", JOBS_FACT, False),
    ],
)
def test_a_which_is_not_question_needs_a_sentence_that_negates(
    stem: str, fact: str, negated: bool
) -> None:
    problem = writer.stem_problem(stem, "erosion", fact)
    assert ("states the key positively" in problem) is negated


SALTATION_FACT = (
    "Smaller pebbles bounce along the bed in a series of short jumps, which is called saltation."
)
LIKE_FACT = "Saltation is like a ball bouncing down a flight of stairs."


@pytest.mark.parametrize(
    ("stem", "fact", "compares"),
    [
        # A standard bench item (4082bbf, 402a529): the sentence names the key.
        (
            "Pebbles in a series of short jumps move in a way that is similar to what?",
            SALTATION_FACT,
            True,
        ),
        ("The movement of the pebbles resembles what?", SALTATION_FACT, True),
        # The sentence compares: the question asks what it says.
        ("The movement of the pebbles is like what?", LIKE_FACT, False),
        # Not a question about likeness.
        ("What is the bouncing movement of pebbles called?", SALTATION_FACT, False),
        ("What do pebbles that look like sand do?", SALTATION_FACT, False),
    ],
)
def test_a_question_for_a_likeness_needs_a_sentence_that_compares(
    stem: str, fact: str, compares: bool
) -> None:
    problem = writer.stem_problem(stem, "saltation", fact)
    assert ("compares nothing" in problem) is compares


@pytest.mark.parametrize(
    ("stem", "key", "fits"),
    [
        ("How many moons of the planet were known by 1900?", "eleven", True),
        ("How many operas did the composer finish?", "three comic operas", True),
        ("How long did the siege of the town last?", "seven months", True),
        ("When did the sonnet reach England?", "the early sixteenth century", True),
        ("Who brought the sonnet form to England?", "the early sixteenth century", False),
        ("Where did the siege take place?", "seven months", False),
    ],
)
def test_a_number_or_time_written_in_words_is_read_as_one(stem: str, key: str, fits: bool) -> None:
    """Keys in words are numbers and times too: "How many ...? eleven" asks for its key, and
    "Who ...?" with a century does not (a bench item asked who wrote a sonnet form, key
    "fourteenth-century")."""
    assert (writer.asks_for_other_kind(stem, key) == "") is fits


class _WrongAnswerRecorder:
    """A chat model that records each request and replies with five wrong answers."""

    def __init__(self) -> None:
        self.asked: list[str] = []
        self.heads: list[object] = []

    def chat(self, messages, *, json_schema=None, reuse_prefix="", **_: object) -> ChatResult:
        self.asked.append(messages[-1]["content"])
        self.heads.append(reuse_prefix)
        data = {"wrong_answers": ["1889", "1901", "1875", "1910", "1925"]}
        return ChatResult(text=json.dumps(data), model="recorder", data=data)


def test_the_chat_wrong_answer_prompt_shows_worked_examples_in_a_head_kept_for_every_item() -> None:
    recorder = _WrongAnswerRecorder()
    for question, answer, kind in (
        ("When was the library completed?", "1963", None),
        ("Who painted the mural?", "Millard Sheets", "painter"),
    ):
        options, note = writer.propose_distractors(
            recorder, "chat", question, answer, FACT, seed=0, kind=kind
        )
        assert options == ["1889", "1901", "1875", "1910", "1925"] and not note
    first, second = recorder.asked
    # Worked examples: a question, its key and five wrong answers of its kind, as JSON.
    assert "Correct answer: Alexander Graham Bell" in first
    assert '"Thomas Edison"' in first and first.count('{"wrong_answers": [') == 4
    # The head (rules and examples) is the same for every item and kept on disk (`Fixed`);
    # the item's own source, question, key and asked kind come after it.
    head_one, head_two = recorder.heads
    assert isinstance(head_one, Fixed) and head_one == head_two
    assert head_one.endswith(prompts.WRONG_ANSWERS_HEAD_END)
    assert first.startswith(head_one) and second.startswith(head_two)
    assert "When was the library completed?" in first[len(head_one) :]
    assert "The question asks for a painter" in second[len(head_two) :]
    assert FACT in second[len(head_two) :] and "Millard Sheets" not in head_two
