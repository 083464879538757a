"""Sentence splitting: exact spans, abbreviations, decimals, paragraph boundaries."""

from __future__ import annotations

import itertools

from hypothesis import given, settings
from hypothesis import strategies as st

from quizsmith.generation.sentences import Sentence, sentence_at, split_sentences
from quizsmith.generation.web_marks import masked, unmarked


def texts(text: str) -> list[str]:
    return [s.text for s in split_sentences(text)]


def test_abbreviations_decimals_and_initials_do_not_end_sentences() -> None:
    text = (
        "Dr. Smith arrived at 3 p.m. in the U.S. on Monday.  Pi is about 3.14, e.g. in "
        "circles. J. R. R. Tolkien wrote it. Mr. Brown paid $4.50 for it."
    )
    assert texts(text) == [
        "Dr. Smith arrived at 3 p.m. in the U.S. on Monday.",
        "Pi is about 3.14, e.g. in circles.",
        "J. R. R. Tolkien wrote it.",
        "Mr. Brown paid $4.50 for it.",
    ]


def test_quotes_questions_and_exclamations() -> None:
    text = '"Stop!" she said. Did he stop? He did! Then he left.'
    assert texts(text) == ['"Stop!" she said.', "Did he stop?", "He did!", "Then he left."]


def test_sentences_never_cross_paragraphs_and_headings_stand_alone() -> None:
    text = (
        "Photosynthesis\n\nPlants make sugar from light\n\nIt happens in leaves. Chlorophyll helps"
    )
    sentences = split_sentences(text)
    assert [(s.text, s.paragraph, s.index) for s in sentences] == [
        ("Photosynthesis", 0, 0),
        ("Plants make sugar from light", 1, 1),
        ("It happens in leaves.", 2, 2),
        ("Chlorophyll helps", 2, 3),
    ]


def test_offsets_are_exact_and_whitespace_is_stripped() -> None:
    text = "  First one.   Second one.  \n \n\t Third one.  "
    sentences = split_sentences(text)
    assert sentences == [
        Sentence("First one.", 2, 12, 0, 0),
        Sentence("Second one.", 15, 26, 0, 1),
        Sentence("Third one.", 33, 43, 1, 2),
    ]
    assert all(text[s.start : s.end] == s.text for s in sentences)


def test_repeated_sentences_get_their_own_offsets() -> None:
    text = "It rains. It rains. It rains."
    assert [(s.start, s.end) for s in split_sentences(text)] == [(0, 9), (10, 19), (20, 29)]


def test_sentence_at_finds_the_sentence_holding_an_offset() -> None:
    sentences = split_sentences("One here. Two here.")
    found = sentence_at(sentences, 12)
    assert found is not None and found.text == "Two here."
    assert sentence_at(sentences, 9) is None  # the space between them


def test_a_citation_mark_after_a_stop_ends_the_sentence() -> None:
    # Pasted from a web page: pysbd read each mark as more of the sentence before it, so
    # "It ..." and the next sentence's subject came to the model as one fact.
    text = (
        "The bridge spans the gorge.[3] It opened in 1932.[4][5] The tunnel beside it is "
        'newer. She called it "the finest in Europe."[6] Critics agreed.[citation needed]'
    )
    sentences = split_sentences(text)
    assert [s.text for s in sentences] == [
        "The bridge spans the gorge.",
        "It opened in 1932.",
        "The tunnel beside it is newer.",
        'She called it "the finest in Europe."',
        "Critics agreed.",
    ]
    assert all(text[s.start : s.end] == s.text for s in sentences)


def test_a_mark_within_a_sentence_stays_in_it_and_a_mark_alone_is_no_sentence() -> None:
    text = "Bonn,[2] then a capital, lies on the Rhine.\n\n[edit]\n\nHistory[edit]"
    assert texts(text) == ["Bonn,[2] then a capital, lies on the Rhine.", "History"]


def test_unmarked_text_says_where_each_character_was() -> None:
    text = "It rose.[12] Then[a] it fell."
    read, where = unmarked(text)
    assert read == "It rose. Then it fell."
    assert len(where) == len(read) + 1 and where[-1] == len(text)
    assert "".join(text[i] for i in where[:-1]) == read
    assert unmarked("") == ("", [0])


def test_empty_and_blank_text_has_no_sentences() -> None:
    assert split_sentences("") == []
    assert split_sentences(" \n\n  ") == []


WORDS = [
    *("the", "cell", "Dr.", "U.S.", "3.14", "e.g.", "Paris", "divides", "(", ")", '"', "a"),
    *("[12]", "[citation needed]", ".[3]"),
]
ENDS = [".", "!", "?", "", "...", ".\n", "\n\n", " \n \n "]


@settings(max_examples=150, deadline=None)
@given(
    st.lists(
        st.tuples(st.lists(st.sampled_from(WORDS), min_size=1, max_size=8), st.sampled_from(ENDS)),
        min_size=1,
        max_size=8,
    ),
    st.sampled_from(["", " ", "  ", "\n"]),
)
def test_every_sentence_is_an_exact_stripped_span(
    pieces: list[tuple[list[str], str]], lead: str
) -> None:
    text = lead + " ".join(" ".join(words) + end for words, end in pieces)
    sentences = split_sentences(text)
    if not masked(text).strip():
        assert sentences == []  # web marks only: nothing to ask about
        return
    assert sentences, "text with words has at least one sentence"
    previous_end = 0
    for i, s in enumerate(sentences):
        assert text[s.start : s.end] == s.text
        assert s.text == s.text.strip() and s.text
        assert s.index == i
        assert s.start >= previous_end
        assert "\n\n" not in s.text.replace(" ", "")  # never across a paragraph break
        previous_end = s.end
    # Nothing but whitespace and web marks is lost between sentences.
    between = "".join(text[a.end : b.start] for a, b in itertools.pairwise(sentences))
    assert masked(between).strip() == ""
    outside = text[: sentences[0].start] + text[sentences[-1].end :]
    assert masked(outside).strip() == ""
    assert [s.paragraph for s in sentences] == sorted(s.paragraph for s in sentences)
