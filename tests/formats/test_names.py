"""Question names in Moodle XML and GIFT (issue 19): the start of the stem, not "Q8"."""

from __future__ import annotations

import xml.etree.ElementTree as ET
from pathlib import Path

import pytest

from quizsmith.bank import ItemBank
from quizsmith.formats import ExportOptions, export_items, get
from quizsmith.formats.names import MAX_CHARS, QuestionNames, short_stem

from .helpers import SPECIAL, mcq, short, stored


@pytest.mark.parametrize(
    ("stem", "name"),
    [
        ("Into which sea does the Nile empty?", "Into which sea does the Nile empty?"),
        (
            "Which of these rivers, according to the passage, flows north into the sea?",
            "Which of these rivers, according to the passage…",
        ),
        ("Line one\nline  two?", "Line one line two?"),
        ("   ", ""),
    ],
)
def test_a_name_is_the_first_words_of_the_stem(stem: str, name: str) -> None:
    assert short_stem(stem) == name


def test_long_words_are_cut_at_a_word_boundary_within_the_limit() -> None:
    stem = "Photosynthesis transforms electromagnetic radiation into chemically stored energy"
    name = short_stem(stem)
    assert len(name) <= MAX_CHARS and name.endswith("…")
    assert stem.startswith(name[:-1]) and stem[len(name) - 1] == " "
    one_word = "x" * 100
    assert short_stem(one_word) == "x" * (MAX_CHARS - 1) + "…"


def test_names_are_unique_in_a_file_and_imported_names_are_kept() -> None:
    names = QuestionNames()
    same = [short("What is the capital?", "Paris"), short("what is the capital?", "Rome")]
    imported = short("Anything?", "x", provenance={"source_id": "teacher's own"})
    blank = short("", "x", id=42)
    assert [names.name(i, n) for n, i in enumerate([*same, imported, blank], 1)] == [
        "What is the capital?",
        "what is the capital? (2)",
        "teacher's own",
        "Q42",
    ]


@pytest.mark.parametrize("fmt", ["moodle", "gift"])
def test_exported_names_read_back_unique_with_special_characters(
    fmt: str, bank: ItemBank, tmp_path: Path
) -> None:
    stem = f"Which: {SPECIAL}"
    items = stored(
        bank,
        [
            mcq(stem, "yes", ["no", "maybe"]),
            mcq(stem, "no", ["yes", "maybe"]),
            short("Name the river that flows through Cairo?", "Nile"),
        ],
    )
    out = tmp_path / "quiz.out"
    export_items(items, fmt, out, ExportOptions(seed=4))
    back = get(fmt)().import_(out)
    assert [i.stem for i in back] == [i.stem for i in items]
    first = short_stem(stem)
    assert [i.provenance["source_id"] for i in back] == [
        first,
        f"{first} (2)",
        "Name the river that flows through Cairo?",
    ]
    if fmt == "moodle":
        questions = [q for q in ET.parse(out).getroot() if q.get("type") != "category"]
        assert [q.findtext("idnumber") for q in questions] == [str(i.id) for i in items]
