"""The printed Word files (issue 15, items 6, 11 and 13; issue 18): the passage before its
questions, the title from --title, the answer key as a table that survives page breaks,
options beyond Z, readable TeX, and a report that says what its numbers mean."""

from __future__ import annotations

from pathlib import Path

from docx import Document
from docx.oxml.ns import qn

from quizsmith.bank import ItemBank
from quizsmith.cli import main
from quizsmith.domain import Item, Passage, ScoreResult
from quizsmith.formats import ExportOptions, export_items
from quizsmith.formats.base import letter

from .helpers import mcq, short, stored

PASSAGE = Passage(
    title="The Nile",
    text="The Nile flows north.\nIt empties into the Mediterranean Sea.",
)


def reading_items() -> list[Item]:
    return [
        mcq("Which way does the Nile flow?", "north", ["south", "east"], passage=PASSAGE),
        short("Into which sea does it empty?", "the Mediterranean Sea", passage=PASSAGE),
    ]


def texts(path: Path) -> list[str]:
    return [p.text for p in Document(str(path)).paragraphs]


def test_the_student_sheet_prints_the_passage_before_its_questions(tmp_path: Path) -> None:
    out = tmp_path / "s.docx"
    export_items(reading_items(), "docx", out, ExportOptions(title="Reading 1"))
    lines = texts(out)
    heading = lines.index("The Nile (for questions 1-2):")
    assert lines[heading + 1 : heading + 3] == [
        "The Nile flows north.",
        "It empties into the Mediterranean Sea.",
    ]
    assert heading < lines.index("1. Which way does the Nile flow?")
    assert lines[0] == "Reading 1" and lines[1].startswith("Name: ")


def test_passages_can_be_left_out_or_asked_for(tmp_path: Path) -> None:
    out = tmp_path / "s.docx"
    export_items(reading_items(), "docx", out, ExportOptions(passages=False))
    assert "The Nile flows north." not in texts(out)
    mixed = [*reading_items(), short("Unrelated?", "yes")]
    export_items(mixed, "docx", out)  # two sources: not a reading sheet by default
    assert "The Nile flows north." not in texts(out)
    export_items(mixed, "docx", out, ExportOptions(passages=True))
    assert "The Nile flows north." in texts(out)


def test_the_title_comes_from_the_title_option_on_the_cli(tmp_path: Path) -> None:
    bank_path = tmp_path / "b.qbank"
    with ItemBank(bank_path) as bank:
        stored(bank, reading_items())
    out = tmp_path / "key.docx"
    args = ["export", "--bank", str(bank_path), "--format", "docx-key", "--out", str(out)]
    assert main([*args, "--title", "Unit 4: rivers"]) == 0
    doc = Document(str(out))
    assert doc.paragraphs[0].text == "Answer key: Unit 4: rivers"
    assert "Unit 4: rivers" in doc.sections[0].header.paragraphs[0].text
    sheet = tmp_path / "sheet.docx"
    args = ["export", "--bank", str(bank_path), "--format", "docx", "--out", str(sheet)]
    assert main([*args, "--title", "Unit 4", "--no-passages"]) == 0
    assert "The Nile flows north." not in texts(sheet)


def test_the_answer_key_table_repeats_its_header_and_never_splits_a_row(tmp_path: Path) -> None:
    items = [short(f"Question {n}?", f"answer {n}") for n in range(16)]
    out = tmp_path / "key.docx"
    export_items(items, "docx-key", out)
    table = Document(str(out)).tables[0]
    rows = table.rows
    assert len(rows) == 17
    assert rows[0]._tr.trPr.find(qn("w:tblHeader")) is not None
    assert all(r._tr.trPr.find(qn("w:cantSplit")) is not None for r in rows)
    widths = [c.width for c in rows[1].cells]
    assert widths[2] > 4 * widths[0]  # the answer gets the room, not a third of it


def test_a_question_is_kept_together_on_one_page(tmp_path: Path) -> None:
    out = tmp_path / "s.docx"
    export_items([mcq("Which?", "a", ["b", "c"])], "docx", out)
    paragraphs = Document(str(out)).paragraphs
    start = next(i for i, p in enumerate(paragraphs) if p.text.startswith("1. "))
    block = paragraphs[start : start + 4]
    assert [p.paragraph_format.keep_with_next for p in block] == [True, True, True, False]


def test_more_than_26_options_are_lettered_and_do_not_crash_the_report(tmp_path: Path) -> None:
    assert [letter(i) for i in (0, 25, 26, 27, 51, 52)] == ["A", "Z", "AA", "AB", "AZ", "BA"]
    item = mcq("Pick the first.", "option 0", [f"option {n}" for n in range(1, 30)])
    for fmt in ("docx", "docx-key", "docx-report"):
        export_items([item], fmt, tmp_path / f"{fmt}.docx", ExportOptions(seed=1))
    lines = texts(tmp_path / "docx.docx")
    assert any(t.startswith("AA. option") for t in lines)
    assert any(t.startswith("AD. option") for t in texts(tmp_path / "docx-report.docx"))


def test_tex_is_printed_readably(tmp_path: Path) -> None:
    out = tmp_path / "s.docx"
    export_items([short(r"Simplify \( x^2 \cdot x^3 \) and \(\frac{1}{2}\).", "x⁵")], "docx", out)
    assert "1. Simplify x² · x³ and 1/2." in texts(out)


def test_the_report_says_what_each_score_means(tmp_path: Path) -> None:
    item = mcq("Which?", "a", ["b"], scores={"kda": ScoreResult(metric="kda", value=0.357)})
    out = tmp_path / "r.docx"
    export_items([item], "docx-report", out)
    table = Document(str(out)).tables[0]
    assert [c.text for c in table.rows[0].cells] == ["Metric", "Score", "What it means"]
    row = [c.text for c in table.rows[1].cells]
    assert row[0] == "KDA" and row[1] == "0.357"
    assert "knowing the tested fact" in row[2] and "Flagged below 0.3" in row[2]


def test_sheet_and_key_letters_agree_beyond_z(tmp_path: Path) -> None:
    item = mcq("Pick.", "key", [f"d{n}" for n in range(40)])
    export_items([item], "docx", tmp_path / "s.docx", ExportOptions(seed=5))
    export_items([item], "docx-key", tmp_path / "k.docx", ExportOptions(seed=5))
    on_sheet = next(t for t in texts(tmp_path / "s.docx") if t.endswith(". key"))
    key_cell = Document(str(tmp_path / "k.docx")).tables[0].rows[1].cells[1].text
    assert on_sheet == f"{key_cell}. key"
