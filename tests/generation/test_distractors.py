"""Distractor filters and candidate sources, on hand-made inputs (no model)."""

from __future__ import annotations

import random

import pytest

from quizsmith.generation import distractors as dis


@pytest.mark.parametrize(
    ("text", "kind"),
    [
        ("1963", "year"),
        ("the 1990s", "year"),
        ("14 July 1789", "date"),
        ("3.5 million", "number"),
        ("42%", "number"),
        ("Millard Sheets", "name"),
        ("University of Notre Dame", "name"),
        ("her conscience", "phrase"),
    ],
)
def test_kind_of(text: str, kind: str) -> None:
    assert dis.kind_of(text) == kind


def test_numeric_variants_keep_format_and_differ() -> None:
    rng = random.Random(1)
    years = dis.numeric_variants("1963", rng)
    assert len(years) == 4 and "1963" not in years
    assert all(len(y) == 4 and y.isdigit() and 1000 <= int(y) <= 2100 for y in years)
    money = dis.numeric_variants("3.5 million", random.Random(2))
    assert money and all(m.endswith(" million") and "." in m for m in money)
    commas = dis.numeric_variants("1,200 km", random.Random(3))
    assert commas and all(c.endswith(" km") for c in commas)
    assert dis.numeric_variants("Millard Sheets", rng) == []


def test_text_filters_give_reasons() -> None:
    out = dis.filter_distractors(
        "Millard Sheets",
        [
            "Millard Sheets",
            "Sheets",
            "Millard Sheets Jr",
            "Andy Warhol",
            "andy warhol",
            "1963",
            "Pablo Picasso",
            "Diego Rivera",
            "Frida Kahlo",
        ],
        embed=None,
        also_true=None,
    )
    reasons = dict(out.dropped)
    assert reasons["Millard Sheets"] == "the same as the key"
    assert reasons["Sheets"] == "part of the key"
    assert reasons["Millard Sheets Jr"] == "contains the key"
    assert reasons["andy warhol"] == "a duplicate of another candidate"
    assert reasons["1963"].startswith("not the same kind")
    assert out.kept == ["Andy Warhol", "Pablo Picasso", "Diego Rivera"]
    assert reasons["Frida Kahlo"].startswith("not needed")


def _fake_embed(table: dict[str, list[float]]):  # a fixed vector per text
    def embed(texts):
        return [table[t] for t in texts]

    return embed


def test_similarity_band_and_also_true() -> None:
    table = {
        "car": [1.0, 0.0, 0.0],
        "automobile": [0.99, 0.1, 0.0],  # a synonym: too close
        "banana": [0.0, 0.0, 1.0],  # unrelated: cosine 0
        "bicycle": [0.6, 0.8, 0.0],
        "bike": [0.6, 0.79, 0.01],  # nearly the same as bicycle
        "truck": [0.7, 0.0, 0.71],
        "train": [0.5, -0.5, 0.7],
    }
    seen: list[list[str]] = []

    def also_true(texts: list[str]) -> list[bool]:
        seen.append(texts)
        return [t == "truck" for t in texts]

    out = dis.filter_distractors(
        "car", list(table)[1:], embed=_fake_embed(table), also_true=also_true
    )
    reasons = dict(out.dropped)
    assert reasons["automobile"].startswith("too close to the key")
    assert reasons["banana"].startswith("unrelated to the key")
    assert reasons["bike"] == "nearly the same as another distractor"
    assert reasons["truck"].startswith("the QA model")
    assert out.kept == ["bicycle", "train"]
    # The QA check runs once over the survivors of the cheaper filters.
    assert seen == [["bicycle", "truck", "train"]]


def test_numbers_are_exempt_from_the_upper_bound() -> None:
    table = {"14": [1.0, 0.0], "15": [0.99, 0.14], "16": [0.98, 0.2], "13": [0.97, 0.24]}
    out = dis.filter_distractors(
        "14",
        ["15", "16", "13"],
        embed=_fake_embed(table),
        also_true=None,
        config=dis.FilterConfig(max_between_distractors=1.0),
    )
    assert out.kept == ["15", "16", "13"]
