"""The passage's own words as wrong answers: the lists it names (`list_siblings`) and the
terms it defines (`defined_terms`), on sentences of bench/generation.py's passages."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from quizsmith.generation.passage_vocabulary import passage_lists
from quizsmith.generation.passage_vocabulary import sentence_siblings as list_siblings
from quizsmith.generation.sentences import split_sentences
from quizsmith.generation.targets import defined_terms

JOBS = (
    "Geographers describe these three jobs as erosion, transportation and deposition, and "
    "together they explain why valleys, waterfalls, meanders and deltas look the way they do."
)


@pytest.mark.parametrize(
    ("passage", "key", "siblings"),
    [
        (JOBS, "erosion", ["transportation", "deposition"]),
        (JOBS, "deposition", ["erosion", "transportation"]),
        # The last member is cut to the others' length: "deltas", not "deltas look".
        (JOBS, "meanders", ["valleys", "waterfalls", "deltas"]),
        # Articles are no part of a member, of the key or of its siblings.
        (
            "The Mississippi, the Ganges and the Nile all end in deltas.",
            "the Nile",
            ["Mississippi", "Ganges"],
        ),
        # An Oxford comma, a two-word member.
        (
            "Mortgage bankers, accountants, and cost engineers are likely participants.",
            "cost engineers",
            ["Mortgage bankers", "accountants"],
        ),
        # Two members joined by a bare "and"; the clause before the comma is no member.
        ("On the inside the water is slow, so sand and gravel are dropped.", "gravel", ["sand"]),
        # The lead-in before the first comma is no member, its last word is; a last member
        # cut inside its phrase ("melting" of "melting glacier high in") is left out.
        (
            "A river begins at its source, which is often a spring, a lake or a melting "
            "glacier high in the hills.",
            "spring",
            ["lake"],
        ),
        # A name stays whole, whatever the others' length.
        (
            "Others are Saint Kentigern in Auckland, Scots College and Queen Margaret College.",
            "Auckland",
            ["Scots College", "Queen Margaret College"],
        ),
    ],
)
def test_a_key_in_a_list_gets_the_lists_other_members(
    passage: str, key: str, siblings: list[str]
) -> None:
    assert list_siblings(passage, key) == siblings


@pytest.mark.parametrize(
    ("passage", "key"),
    [
        # Clauses, not things: the middle part is longer than a member.
        (
            "Moving water wears away rock, carries the broken pieces downstream and drops them.",
            "rock",
        ),
        # Two parts after a comma are a second clause, not a list.
        ("Tributaries have joined, so it carries more water, and the channel is wider.", "channel"),
        # Two members where the second runs on are a clause, not a list.
        ("Cost engineers and estimators apply expertise to relate the work.", "Cost engineers"),
        # A name and a phrase are no list of two.
        (
            "The capture of Kimathi signified the defeat of the Mau Mau and essentially ended "
            "the offensive.",
            "Mau Mau",
        ),
        # Not in any list, or not in the passage at all.
        (JOBS, "geographers"),
        (JOBS, "photosynthesis"),
        (JOBS, ""),
    ],
)
def test_no_siblings_where_the_key_is_in_no_list(passage: str, key: str) -> None:
    assert list_siblings(passage, key) == []


def test_a_list_ends_at_a_sentence_and_each_sibling_comes_once() -> None:
    passage = (
        "Rivers carry sand. Deltas, estuaries and mouths are landforms. "
        "Estuaries, deltas and mouths differ."
    )
    # "sand" ends its sentence: "Deltas" of the next one is no sibling of it.
    assert list_siblings(passage, "sand") == []
    assert list_siblings(passage, "deltas") == ["estuaries", "mouths", "Estuaries"]
    assert ["Deltas", "estuaries", "mouths"] in passage_lists(passage)


def test_defined_terms_keep_the_noun_the_passage_calls_them() -> None:
    text = (
        "Stones grind against the bed in a process called abrasion. The river swings in "
        "large bends known as meanders. The largest boulders are rolled along the bed, which "
        "is called traction. Later the channel is deepened by a process called abrasion."
    )
    terms = defined_terms(split_sentences(text))
    assert terms == {"abrasion": "process", "meanders": "bend", "traction": None}


@pytest.mark.parametrize(
    "sentence",
    [
        # Nothing before the "and" reads as a member: these raised IndexError (QGEval, 29 of
        # its 200 passages), so a teacher's passage like them stopped generation.
        "From a poll done by The Princeton Review, Harvard is the second most commonly named "
        '"dream college", both for students and parents in 2013, and was the first nominated.',
        'Minami-Tori-shima (南鳥島 , "Southern Bird Island") , also known as Marcus Island, is '
        "an isolated atoll, located some 1848 km southeast of Tokyo and 1267 km east of Iwo Jima.",
        "The band recorded two albums, the first in 1988 and the second in 1990, though "
        "Orbison died before the second was recorded.",
    ],
)
def test_sentences_with_nothing_before_the_and_name_no_broken_list(sentence: str) -> None:
    lists = passage_lists(sentence)
    assert all(member for members in lists for member in members)


@settings(max_examples=300, deadline=None)
@given(
    st.lists(
        st.sampled_from(
            [
                "a",
                "the",
                "and",
                "or",
                ",",
                ", and",
                "Harvard",
                "stones",
                "both",
                "(",
                ")",
                '"',
                "melting",
                "1988",
                ".",
            ]
        ),
        max_size=25,
    )
)
def test_any_word_salad_gives_lists_not_errors(words: list[str]) -> None:
    lists = passage_lists(" ".join(words))
    assert all(len(members) >= 2 and all(members) for members in lists)


def test_a_name_ends_where_lower_case_words_begin() -> None:
    # The pair's second name runs on into its verb: it is still a member, not a clause.
    sentence = (
        "Michael Faraday and James Clerk Maxwell demonstrated that electric and magnetic "
        "forces were unified."
    )
    assert list_siblings(sentence, "James Clerk Maxwell") == ["Michael Faraday"]
    # ... but a lower-case run past the limit is still a clause ("estimators apply").
    assert (
        list_siblings("Cost engineers and estimators apply expertise to work.", "estimators") == []
    )


def test_a_longer_name_ends_a_list_where_its_capitals_end() -> None:
    sentence = (
        "Private schools are often Presbyterian, such as St Andrew's College and Rangi Ruru "
        "Girls' School in Christchurch."
    )
    assert list_siblings(sentence, "Rangi Ruru Girls' School") == ["St Andrew's College"]
