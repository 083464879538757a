"""Word exports read back with python-docx; the student sheet is rendered by LibreOffice."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest
from docx import Document

from quizsmith.domain import Item
from quizsmith.formats import ExportOptions, FormatError, export_items
from quizsmith.formats.base import LETTERS
from quizsmith.formats.docx_export import PAPER_BLANK
from quizsmith.formats.make_template import build, template_path
from quizsmith.formats.option_order import option_orders

W = "{http://schemas.openxmlformats.org/wordprocessingml/2006/main}"


def _questions(path: Path) -> list[tuple[str, list[str]]]:
    """(question paragraph, its option paragraphs) in document order."""
    found: list[tuple[str, list[str]]] = []
    for paragraph in Document(str(path)).paragraphs:
        if paragraph.style.name == "Quiz Question":
            found.append((paragraph.text, []))
        elif paragraph.style.name == "Quiz Option" and found:
            found[-1][1].append(paragraph.text)
    return found


def test_the_shipped_template_has_the_quiz_styles() -> None:
    doc = Document(str(template_path()))
    names = {s.name for s in doc.styles}
    assert {"Quiz Title", "Quiz Question", "Quiz Option", "Quiz Answer Line"} <= names
    assert not any(p.text.strip() for p in doc.paragraphs)


def test_student_sheet_numbers_questions_and_letters_shuffled_options(
    items: list[Item], tmp_path: Path
) -> None:
    out = tmp_path / "quiz.docx"
    result = export_items(items, "docx", out, ExportOptions(title="Rivers", seed=42))
    assert result.count == len(items) and result.seed == 42 and not result.skipped
    questions = _questions(out)
    assert len(questions) == len(items)
    for number, (item, (question, options)) in enumerate(zip(items, questions, strict=True), 1):
        assert question.startswith(f"{number}. ")
        if item.type == "cloze":
            assert PAPER_BLANK in question
        else:
            assert question == f"{number}. {item.stem}"
        expected = (
            [o.text for o in option_orders(items, 42).of(item)]
            if item.type in ("mcq", "tf")
            else []
        )
        assert options == [f"{LETTERS[i]}. {t}" for i, t in enumerate(expected)]
    doc = Document(str(out))
    header = doc.sections[0].header.paragraphs[0].text
    assert "Rivers" in header and "42" in header
    footer_xml = doc.sections[0].footer._element.xml
    assert "PAGE" in footer_xml and "NUMPAGES" in footer_xml


def test_answer_key_letters_match_the_student_sheet_for_the_same_seed(
    items: list[Item], tmp_path: Path
) -> None:
    sheet, key = tmp_path / "sheet.docx", tmp_path / "key.docx"
    export_items(items, "docx", sheet, ExportOptions(seed=2024))
    export_items(items, "docx-key", key, ExportOptions(seed=2024))
    rows = [[c.text for c in row.cells] for row in Document(str(key)).tables[0].rows[1:]]
    assert len(rows) == len(items)
    for (number, letter, answer), item, (_, options) in zip(
        rows, items, _questions(sheet), strict=True
    ):
        assert answer == item.key
        if item.type in ("mcq", "tf"):
            # The option printed under the key's letter on the sheet is the bank's key.
            assert f"{letter}. {item.key}" in options
        else:
            assert letter == "—"
        assert number.isdigit()


def test_the_same_seed_gives_the_same_order_and_a_new_seed_is_recorded(
    items: list[Item], tmp_path: Path
) -> None:
    a = export_items(items, "docx", tmp_path / "a.docx", ExportOptions(seed=5))
    b = export_items(items, "docx", tmp_path / "b.docx", ExportOptions(seed=5))
    assert _questions(a.path) == _questions(b.path)
    picked = export_items(items, "docx", tmp_path / "c.docx")
    assert isinstance(picked.seed, int)
    again = export_items(items, "docx", tmp_path / "d.docx", ExportOptions(seed=picked.seed))
    assert _questions(picked.path) == _questions(again.path)


def test_sheet_and_key_exported_separately_without_a_seed_agree(
    items: list[Item], tmp_path: Path
) -> None:
    # A teacher exports the student sheet, then the answer key, of the same items.
    sheet = export_items(items, "docx", tmp_path / "sheet.docx")
    key = export_items(items, "docx-key", tmp_path / "key.docx")
    reordered = export_items(list(reversed(items)), "csv", tmp_path / "items.csv")
    assert sheet.seed == key.seed == reordered.seed  # fixed by which items, not their order
    other_form = export_items(items, "docx", tmp_path / "other.docx", ExportOptions(seed=1))
    assert other_form.seed != sheet.seed
    rows = [[c.text for c in row.cells] for row in Document(str(key.path)).tables[0].rows[1:]]
    for (_, letter, _), item, (_, options) in zip(rows, items, _questions(sheet.path), strict=True):
        if item.type in ("mcq", "tf"):
            assert f"{letter}. {item.key}" in options


def test_teacher_report_shows_scores_flags_and_review(items: list[Item], tmp_path: Path) -> None:
    from quizsmith.domain import Review

    review = Review(item_id=items[0].id or 0, decision="accept", reason="clear", note="keep")
    out = tmp_path / "report.docx"
    export_items(items, "docx-report", out, ExportOptions(reviews={items[0].id or 0: review}))
    doc = Document(str(out))
    text = "\n".join(p.text for p in doc.paragraphs)
    cells = [c.text for t in doc.tables for row in t.rows for c in row.cells]
    assert "0.812" in cells  # naco's value
    assert "not scored: answerable without the fact" in cells
    assert "Distractor 'Lake Victoria' is never chosen. (kda)" in text
    assert "Latest review: accept: clear (keep)" in text
    assert text.count("No review yet") == len(items) - 1
    assert sum(p.style.name == "Quiz Question" for p in doc.paragraphs) == len(items)


def test_right_to_left_text_is_marked_for_word(items: list[Item], tmp_path: Path) -> None:
    out = tmp_path / "quiz.docx"
    export_items(items, "docx", out, ExportOptions(seed=1))
    arabic = next(p for p in Document(str(out)).paragraphs if "عاصمة" in p.text)
    assert arabic._p.pPr.find(f"{W}bidi") is not None


def test_a_school_template_keeps_its_header_and_styles(items: list[Item], tmp_path: Path) -> None:
    template = build(tmp_path / "school.docx")
    doc = Document(str(template))
    doc.sections[0].header.paragraphs[0].text = "Lycée Jean Moulin"
    doc.add_paragraph("sample body text that the export replaces")
    doc.save(str(template))
    out = tmp_path / "quiz.docx"
    export_items(items, "docx", out, ExportOptions(title="Quiz 1", seed=3, template=template))
    result = Document(str(out))
    header = [p.text for p in result.sections[0].header.paragraphs]
    assert "Lycée Jean Moulin" in header and any("Quiz 1" in h for h in header)
    assert not any("sample body text" in p.text for p in result.paragraphs)


def test_a_template_without_quiz_styles_falls_back_to_built_in_ones(
    items: list[Item], tmp_path: Path
) -> None:
    plain = tmp_path / "plain.docx"
    Document().save(str(plain))
    out = tmp_path / "quiz.docx"
    result = export_items(items, "docx", out, ExportOptions(template=plain, seed=1))
    assert result.count == len(items)
    assert any(p.text.startswith("1. ") for p in Document(str(out)).paragraphs)


def test_a_bad_template_is_a_format_error_and_writes_nothing(
    items: list[Item], tmp_path: Path
) -> None:
    bad = tmp_path / "template.docx"
    bad.write_text("not a zip")
    out = tmp_path / "quiz.docx"
    with pytest.raises(FormatError, match=r"template\.docx"):
        export_items(items, "docx", out, ExportOptions(template=bad))
    with pytest.raises(FormatError, match="does not exist"):
        export_items(items, "docx", out, ExportOptions(template=tmp_path / "missing.docx"))
    assert not out.exists()
    assert not any(p.name.endswith(".tmp") for p in tmp_path.iterdir())


@pytest.mark.skipif(
    shutil.which("soffice") is None,
    reason="LibreOffice (soffice) is not installed; install libreoffice-writer to render .docx",
)
def test_libreoffice_renders_the_student_sheet_to_pdf(items: list[Item], tmp_path: Path) -> None:
    from pypdf import PdfReader

    out = tmp_path / "quiz.docx"
    export_items(items, "docx", out, ExportOptions(title="Rendered", seed=9))
    profile = tmp_path / "lo-profile"  # a private profile: parallel runs do not collide
    subprocess.run(
        ["soffice", f"-env:UserInstallation=file://{profile}", "--headless",
         "--convert-to", "pdf", "--outdir", str(tmp_path), str(out)],
        check=True, capture_output=True, timeout=180,
    )  # fmt: skip
    reader = PdfReader(str(tmp_path / "quiz.pdf"))
    assert len(reader.pages) >= 1
    text = "".join(page.extract_text() for page in reader.pages)
    assert "Rendered" in text and "Mediterranean" in text
