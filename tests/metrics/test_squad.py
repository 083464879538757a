"""metrics/squad.py behaves as the official SQuAD v1.1 evaluation script.

The expected values are computed by hand from that script's definition: lower case, drop every
character of string.punctuation (without inserting a space), replace the whole words a/an/the
by a space, collapse white space; F1 over the token multisets, 0 when nothing is shared (also
when both sides are empty: v1.1 has no special case for empty answers).
"""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from quizsmith.metrics.squad import exact_match, f1_score, normalize_answer


@pytest.mark.parametrize(
    ("text", "normalised"),
    [
        ("The Eiffel Tower", "eiffel tower"),
        ("  an   apple, a pear  ", "apple pear"),
        ("U.S.A.", "usa"),  # punctuation is dropped, not replaced by a space
        ("well-known", "wellknown"),
        ("Theater at the Anthem", "theater at anthem"),  # articles only as whole words
        ("A", ""),
        ("it's 5:30!", "its 530"),
        ("\u201cParis\u201d", "\u201cparis\u201d"),  # curly quotes are not string.punctuation
    ],
)
def test_normalisation_matches_the_official_script(text: str, normalised: str) -> None:
    assert normalize_answer(text) == normalised


@pytest.mark.parametrize(
    ("prediction", "truth", "expected"),
    [
        ("the Eiffel Tower", "Eiffel Tower", 1.0),
        ("Eiffel Tower.", "eiffel tower", 1.0),
        # "gustave eiffels company" vs "gustave eiffel": 1 shared; P = 1/3, R = 1/2 -> 0.4
        ("Gustave Eiffel's company", "Gustave Eiffel", 0.4),
        # [in, 1889, paris] vs [paris, 1889]: 2 shared; P = 2/3, R = 1 -> 0.8
        ("in 1889 Paris", "Paris 1889", 0.8),
        # multiset overlap: min(2, 1) = 1 shared; P = 1/2, R = 1 -> 2/3
        ("paris paris", "Paris", 2 / 3),
        # [1867] vs [warsaw, 1867]... P = 1, R = 1/2 -> 2/3
        ("1867", "Warsaw, 1867", 2 / 3),
        ("London", "Paris", 0.0),
        ("", "Paris", 0.0),
        ("", "", 0.0),  # v1.1: no shared token -> 0, even for two empty answers
        ("the", "a", 0.0),  # both normalise to nothing
    ],
)
def test_f1_on_hand_computed_pairs(prediction: str, truth: str, expected: float) -> None:
    assert f1_score(prediction, truth) == pytest.approx(expected)


def test_exact_match_ignores_case_articles_and_punctuation() -> None:
    assert exact_match("The U.S.A.", "usa") == 1.0
    assert exact_match("an apple", "Apple!") == 1.0
    assert exact_match("apples", "apple") == 0.0
    assert exact_match("\u201cParis\u201d", "Paris") == 0.0


_text = st.lists(
    st.sampled_from(["a", "b", "c", " ", "t", "T", "he", "An", ".", ",", "!", "'", "-", "the "]),
    max_size=12,
).map("".join)


@given(_text, _text)
def test_f1_is_symmetric_and_in_range(prediction: str, truth: str) -> None:
    value = f1_score(prediction, truth)
    assert 0.0 <= value <= 1.0
    assert value == pytest.approx(f1_score(truth, prediction))


@given(_text)
def test_f1_is_one_exactly_when_normalised_texts_match(text: str) -> None:
    expected = 1.0 if normalize_answer(text) else 0.0
    assert f1_score(text, text.upper() + "!") == expected
    assert exact_match(text, f" {text.upper()} ") == 1.0
