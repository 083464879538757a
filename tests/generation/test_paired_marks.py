"""A constituent's quotation marks and brackets come in pairs (generation/paired_marks.py):
the parser's spans sometimes hold one mark of a pair, and an answer shown with half a pair
reads as garbled."""

from __future__ import annotations

import pytest

from quizsmith.generation.analysis import analyse
from quizsmith.generation.paired_marks import paired, unpaired
from quizsmith.generation.parser import parse


@pytest.mark.parametrize(
    ("text", "lone"),
    [
        ('"Operation Aqueduct', True),
        ('"Operation Aqueduct"', False),
        ("University Ranking by Academic Performance (URAP", True),
        ("[TAR's] conclusion", False),
        ("\u201chumors", True),
        ("Auckland\u2019s CBD", False),  # an apostrophe, not a closing quote
    ],
)
def test_unpaired_marks_are_found(text: str, lone: bool) -> None:
    assert unpaired(text) is lone


def _span(text: str, first: str, last: str):
    """The tokens of `text` from the one reading `first` to the one reading `last`."""
    doc = parse(text)
    words = [t.text for t in doc]
    start = words.index(first)
    end = len(words) - words[::-1].index(last)
    return doc[start:end]


def test_a_span_takes_the_partner_beside_it() -> None:
    text = 'These tests followed the "Operation Aqueduct" series and preceded the others.'
    assert paired(_span(text, '"', "Aqueduct")).text == '"Operation Aqueduct"'
    assert paired(_span(text, "Operation", '"')).text == '"Operation Aqueduct"'


def test_a_lone_mark_at_the_edge_is_left_out() -> None:
    text = "He was the Commander, Submarine Forces, Pacific ( and later of the fleet."
    span = _span(text, "Submarine", "(")
    assert span.text == "Submarine Forces, Pacific ("
    assert paired(span).text == "Submarine Forces, Pacific"


def test_a_paired_span_is_kept_and_a_mark_with_no_partner_near_drops_it() -> None:
    text = 'He said the word " twice before the plan failed.'
    assert paired(_span(text, "plan", "failed")).text == "plan failed"
    assert paired(_span(text, "word", "twice")) is None


@pytest.mark.parametrize(
    ("text", "wanted"),
    [
        (
            "In 2014, Harvard topped the University Ranking by Academic Performance (URAP). "
            "It was ranked 8th on the 2013-2014 PayScale College Salary Report.",
            "University Ranking by Academic Performance (URAP)",
        ),
        (
            "Nuclear tests were conducted in 1990-1991.  These tests followed the "
            '"Operation Aqueduct" series and preceded the "Operation Julin" series.',
            '"Operation Julin"',
        ),
    ],
)
def test_the_analysis_gives_no_answer_with_half_a_pair(text: str, wanted: str) -> None:
    # Passages (QGEval's) whose parse took one mark of a pair into a name.
    texts = [c.text for c in analyse(text).constituents]
    assert wanted in texts
    assert not any(unpaired(t) for t in texts)
