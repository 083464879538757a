"""Option order in exports (issue 19): numeric options ascending, key letters balanced over a
quiz, and the key still pointing at the right text in every format that writes letters."""

from __future__ import annotations

import xml.etree.ElementTree as ET
import zipfile
from collections import Counter
from pathlib import Path

import pytest
from docx import Document

from quizsmith.bank import ItemBank
from quizsmith.domain import Item
from quizsmith.formats import ExportOptions, export_items, get
from quizsmith.formats.base import letter
from quizsmith.formats.option_order import numeric_order, numeric_value, option_orders

from .helpers import mcq, short, stored, tf

Q = "{http://www.imsglobal.org/xsd/ims_qtiasiv1p2}"


def _quiz(count: int = 8, options: int = 4) -> list[Item]:
    return [
        mcq(
            f"Which capital is number {n}?",
            f"key {n}",
            [f"wrong {n}.{d}" for d in range(1, options)],
        )
        for n in range(1, count + 1)
    ]


def _years() -> Item:
    return mcq("In which year did the Titanic sail?", "1911", ["1903", "1921", "1898"])


def _key_letters(items: list[Item], seed: int) -> list[str]:
    orders = option_orders(items, seed)
    return [letter([o.is_key for o in orders.of(i)].index(True)) for i in items]


# --- numbers ------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("1911", (1911.0, "")),
        ("-2", (-2.0, "")),
        ("\u22124 °C", (-4.0, "°C")),
        ("3.5", (3.5, "")),
        ("3,5", (3.5, "")),
        ("12 000 km", (12000.0, "km")),
        ("1,200", (1200.0, "")),
        ("5 kg", (5.0, "kg")),
        ("25%", (25.0, "%")),
        ("$1,200", (1200.0, "$")),
        ("5 m²", (5.0, "m²")),
    ],
)
def test_numbers_as_teachers_write_them_are_read(text: str, expected: tuple[float, str]) -> None:
    assert numeric_value(text) == expected


@pytest.mark.parametrize("text", ["five", "3 to 5", "1/2", "about 5", "1e5", "1_000", "inf", ""])
def test_phrases_ranges_and_fractions_are_not_plain_numbers(text: str) -> None:
    assert numeric_value(text) is None


@pytest.mark.parametrize(
    ("texts", "ascending"),
    [
        (["1911", "1903", "1921", "1898"], ["1898", "1903", "1911", "1921"]),
        (["3.5", "12", "-2", "0.25"], ["-2", "0.25", "3.5", "12"]),
        (["5 kg", "12 kg", "-2 kg"], ["-2 kg", "5 kg", "12 kg"]),
        (["5 kg", "500 g", "2 kg"], None),  # units differ: not comparable by the number
        (["1911", "1903", "never"], None),
    ],
)
def test_options_that_are_all_numbers_sort_ascending(
    texts: list[str], ascending: list[str] | None
) -> None:
    item = mcq("How many?", texts[0], texts[1:])
    ordered = numeric_order(item.options)
    assert (None if ordered is None else [o.text for o in ordered]) == ascending


@pytest.mark.parametrize("seed", [0, 1, 7, 123456])
def test_numeric_options_export_ascending_whatever_the_seed(seed: int, tmp_path: Path) -> None:
    items = [_years(), *_quiz(3)]
    orders = option_orders(items, seed)
    assert [o.text for o in orders.of(items[0])] == ["1898", "1903", "1911", "1921"]
    assert orders.is_numeric(items[0]) and not orders.is_numeric(items[1])
    out = tmp_path / "quiz.txt"
    export_items(items, "aiken", out, ExportOptions(seed=seed))
    first = out.read_text(encoding="utf-8").split("\n\n")[0]
    assert "A. 1898\nB. 1903\nC. 1911\nD. 1921\nANSWER: C" in first


def test_moodle_keeps_numeric_options_unshuffled(tmp_path: Path) -> None:
    items = [_years(), *_quiz(1)]
    out = tmp_path / "quiz.xml"
    export_items(items, "moodle", out, ExportOptions(seed=3))
    years, other = [q for q in ET.parse(out).getroot() if q.get("type") == "multichoice"]
    # Moodle reshuffles per attempt unless told not to, which would undo the ascending order.
    assert years.findtext("shuffleanswers") == "false"
    assert other.findtext("shuffleanswers") == "true"
    assert [a.findtext("text") for a in years.iter("answer")] == ["1898", "1903", "1911", "1921"]


# --- key balance --------------------------------------------------------------------------


@pytest.mark.parametrize("seed", range(12))
def test_eight_four_option_items_get_each_letter_exactly_twice(seed: int) -> None:
    assert Counter(_key_letters(_quiz(8), seed)) == {"A": 2, "B": 2, "C": 2, "D": 2}


@pytest.mark.parametrize("seed", range(6))
def test_mixed_option_counts_spread_keys_within_one(seed: int) -> None:
    items = _quiz(3, options=3) + _quiz(4, options=5) + _quiz(2, options=2)
    for n, item in enumerate(items):
        item.stem += f" ({n})"  # distinct identities for items without a bank id
    counts = Counter(_key_letters(items, seed))
    assert sum(counts.values()) == len(items)
    everywhere = [counts.get(letter(p), 0) for p in range(5)]
    assert max(everywhere) - min(everywhere) <= 1


def test_the_same_seed_gives_the_same_order_and_the_list_order_does_not_matter() -> None:
    items = _quiz(8)
    first = option_orders(items, 5)
    again = option_orders(list(reversed(items)), 5)
    for item in items:
        assert [o.text for o in first.of(item)] == [o.text for o in again.of(item)]
    other = option_orders(items, 6)
    assert any([o.text for o in first.of(i)] != [o.text for o in other.of(i)] for i in items)


def test_numeric_and_true_false_items_are_left_out_of_the_balance() -> None:
    items = [*_quiz(8), _years(), tf("Is the Nile long?", "True"), short("Capital?", "Paris")]
    orders = option_orders(items, 9)
    assert Counter(_key_letters(items[:8], 9)) == {"A": 2, "B": 2, "C": 2, "D": 2}
    assert [o.text for o in orders.of(items[9])] == ["True", "False"]
    assert orders.of(items[10]) == []
    # The distractors around the key are all still there, each once.
    for item in items[:8]:
        assert sorted(o.text for o in orders.of(item)) == sorted(o.text for o in item.options)


# --- every format that writes letters -----------------------------------------------------


def _imported_keys(fmt: str, out: Path) -> list[tuple[list[str], str]]:
    """(options in file order, key text) of each question, read back by our importer."""
    back = get(fmt)().import_(out)
    return [([o.text for o in i.options], i.key) for i in back]


def _qti_keys(out: Path) -> list[tuple[list[str], str]]:
    found = []
    with zipfile.ZipFile(out) as archive:
        name = next(n for n in archive.namelist() if n != "imsmanifest.xml")
        root = ET.fromstring(archive.read(name))
    for element in root.iter(f"{Q}item"):
        labels = list(element.iter(f"{Q}response_label"))
        texts = [lab.findtext(f"{Q}material/{Q}mattext") or "" for lab in labels]
        right = element.findtext(f"{Q}resprocessing/{Q}respcondition/{Q}conditionvar/{Q}varequal")
        idents = [lab.get("ident") for lab in labels]
        found.append((texts, texts[idents.index(right)]))
    return found


def _docx_keys(sheet: Path, key: Path) -> list[tuple[list[str], str]]:
    """Options on the student sheet, and the option printed under the key's letter."""
    questions: list[list[str]] = []
    for paragraph in Document(str(sheet)).paragraphs:
        if paragraph.style.name == "Quiz Question":
            questions.append([])
        elif paragraph.style.name == "Quiz Option":
            questions[-1].append(paragraph.text)
    rows = [[c.text for c in r.cells] for r in Document(str(key)).tables[0].rows[1:]]
    found = []
    for options, (_, mark, _) in zip(questions, rows, strict=True):
        texts = [o.split(". ", 1)[1] for o in options]
        labels = [o.split(". ", 1)[0] for o in options]
        found.append((texts, texts[labels.index(mark)]))
    return found


@pytest.mark.parametrize("fmt", ["gift", "moodle", "aiken", "qti", "docx"])
def test_every_lettered_format_balances_keys_and_keeps_them_right(
    fmt: str, bank: ItemBank, tmp_path: Path
) -> None:
    items = stored(bank, _quiz(8))
    out = tmp_path / f"quiz.{fmt}"
    export_items(items, fmt, out, ExportOptions(seed=31))
    if fmt == "docx":
        key = tmp_path / "key.docx"
        export_items(items, "docx-key", key, ExportOptions(seed=31))
        written = _docx_keys(out, key)
    elif fmt == "qti":
        written = _qti_keys(out)
    else:
        written = _imported_keys(fmt, out)
    assert len(written) == len(items)
    positions = []
    for (texts, key_text), item in zip(written, items, strict=True):
        assert key_text == item.key
        assert sorted(texts) == sorted(o.text for o in item.options)
        positions.append(letter(texts.index(item.key)))
    assert Counter(positions) == {"A": 2, "B": 2, "C": 2, "D": 2}
    assert positions == _key_letters(items, 31)
