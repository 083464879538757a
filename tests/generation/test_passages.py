"""Importing passages from files and pasted text, and refusing bad input with the fix."""

from __future__ import annotations

import os
import zipfile
from pathlib import Path

import pytest

from quizsmith.errors import QuizsmithError
from quizsmith.generation.passages import SUPPORTED_SUFFIXES, load_passage, passage_from_text
from quizsmith.text import MAX_PASSAGE_CHARS, PassageError

TEXT = (
    "The cell is the basic unit of life.\n\nCells divide by mitosis. Each daughter cell is alike."
)


def make_pdf(pages: list[list[str]], title: str | None = None) -> bytes:
    """A minimal valid PDF: one Helvetica text object per page, one line per string (an
    empty string leaves a blank line), with a correct cross-reference table."""
    objects: dict[int, bytes] = {
        1: b"<< /Type /Catalog /Pages 2 0 R >>",
        3: b"<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica /Encoding /WinAnsiEncoding >>",
    }
    page_ids = []
    next_id = 4
    for lines in pages:
        ops = ["BT", "/F1 11 Tf", "14 TL", "72 720 Td"]
        for line in lines:
            escaped = line.replace("\\", "\\\\").replace("(", "\\(").replace(")", "\\)")
            ops.append(f"({escaped}) Tj T*" if line else "T*")
        ops.append("ET")
        stream = "\n".join(ops).encode("cp1252")
        objects[next_id] = b"<< /Length %d >>\nstream\n%s\nendstream" % (len(stream), stream)
        objects[next_id + 1] = (
            "<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] "
            f"/Resources << /Font << /F1 3 0 R >> >> /Contents {next_id} 0 R >>"
        ).encode()
        page_ids.append(next_id + 1)
        next_id += 2
    kids = " ".join(f"{i} 0 R" for i in page_ids)
    objects[2] = f"<< /Type /Pages /Kids [{kids}] /Count {len(page_ids)} >>".encode()
    info = ""
    if title is not None:
        objects[next_id] = f"<< /Title ({title}) >>".encode("cp1252")
        info = f" /Info {next_id} 0 R"
    data = bytearray(b"%PDF-1.4\n")
    offsets = {}
    for number in sorted(objects):
        offsets[number] = len(data)
        data += b"%d 0 obj\n%s\nendobj\n" % (number, objects[number])
    xref_at = len(data)
    size = max(objects) + 1
    data += b"xref\n0 %d\n0000000000 65535 f \n" % size
    for number in range(1, size):
        data += b"%010d 00000 n \n" % offsets[number]
    data += f"trailer\n<< /Size {size} /Root 1 0 R{info} >>\n".encode()
    data += b"startxref\n%d\n%%%%EOF\n" % xref_at
    return bytes(data)


def error_for(path: Path) -> PassageError:
    with pytest.raises(PassageError) as caught:
        load_passage(path)
    assert isinstance(caught.value, QuizsmithError)
    assert caught.value.fix, "every passage error must say how to fix it"
    return caught.value


# -- plain text --------------------------------------------------------------------------------


def test_txt_keeps_paragraphs_and_takes_the_file_stem_as_title(tmp_path: Path) -> None:
    path = tmp_path / "cell_biology.txt"
    path.write_text("  The cell is the   basic unit\nof life.\r\n\r\n\n Cells divide by mitosis. ")
    passage = load_passage(path, subject="biology")
    assert passage.text == "The cell is the basic unit of life.\n\nCells divide by mitosis."
    assert passage.title == "cell_biology"
    assert passage.subject == "biology"
    assert passage.source_file == str(path)


@pytest.mark.parametrize("encoding", ["utf-8", "utf-8-sig", "utf-16"])
def test_unicode_encodings_with_or_without_bom_decode_to_the_same_text(
    tmp_path: Path, encoding: str
) -> None:
    path = tmp_path / "p.txt"
    path.write_bytes("Café au lait – naïve Ærø.\n\nSecond.".encode(encoding))
    assert load_passage(path).text == "Café au lait – naïve Ærø.\n\nSecond."


def test_legacy_windows_1252_text_is_read(tmp_path: Path) -> None:
    path = tmp_path / "old.txt"
    path.write_bytes("“Café” costs 5 € – naïve.".encode("cp1252"))
    assert load_passage(path).text == "“Café” costs 5 € – naïve."


def test_unicode_is_nfc_and_invisible_characters_are_dropped() -> None:
    decomposed = "Cafe\u0301 has a soft\u00adhyphen and a zero\u200bwidth space."
    passage = passage_from_text(decomposed)
    assert passage.text == "Café has a softhyphen and a zerowidth space."


def test_binary_file_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "photo.txt"
    path.write_bytes(b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR" + bytes(range(256)))
    assert "binary" in error_for(path).message


def test_undecodable_bytes_without_nul_say_how_to_resave_as_utf8(tmp_path: Path) -> None:
    path = tmp_path / "weird.txt"
    path.write_bytes(bytes(b for b in range(1, 256) if b not in (9, 10, 13)) * 20)
    error = error_for(path)
    assert "encoding" in error.message and "UTF-8" in error.fix


@pytest.mark.parametrize("content", ["", "   \n\n\t  \n"])
def test_empty_or_blank_file_is_refused(tmp_path: Path, content: str) -> None:
    path = tmp_path / "empty.txt"
    path.write_text(content)
    assert "empty" in error_for(path).message


def test_over_the_size_limit_says_to_split(tmp_path: Path) -> None:
    path = tmp_path / "book.txt"
    sentence = "Photosynthesis turns light into chemical energy. "
    path.write_text(sentence * (MAX_PASSAGE_CHARS // len(sentence) + 10))
    error = error_for(path)
    assert f"{MAX_PASSAGE_CHARS:,}" in error.message and "Split" in error.fix


def test_exactly_at_the_limit_is_accepted() -> None:
    text = ("a" * 99 + " ") * (MAX_PASSAGE_CHARS // 100 - 1) + "b" * 99 + "."
    assert len(text) == MAX_PASSAGE_CHARS
    assert len(passage_from_text(text).text) == MAX_PASSAGE_CHARS


@pytest.mark.parametrize(
    ("name", "fix_mentions"), [("data.xlsx", ".docx"), ("notes.doc", "save it as .docx")]
)
def test_unsupported_extension_names_the_supported_ones(
    tmp_path: Path, name: str, fix_mentions: str
) -> None:
    path = tmp_path / name
    path.write_bytes(b"whatever")
    error = error_for(path)
    assert fix_mentions in error.fix
    assert set(SUPPORTED_SUFFIXES) >= {".txt", ".md", ".docx", ".pdf"}


def test_missing_file_and_folder_are_refused(tmp_path: Path) -> None:
    assert "does not exist" in error_for(tmp_path / "nope.txt").message
    folder = tmp_path / "folder.txt"
    folder.mkdir()
    assert "folder" in error_for(folder).message


@pytest.mark.skipif(os.name != "posix" or os.geteuid() == 0, reason="root can read any file")
def test_unreadable_file_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "locked.txt"
    path.write_text("Some text.")
    path.chmod(0)
    try:
        assert "cannot be read" in error_for(path).message
    finally:
        path.chmod(0o600)


def test_markdown_headings_lists_and_markup(tmp_path: Path) -> None:
    path = tmp_path / "notes.md"
    path.write_text(
        "# The Water Cycle\n\nWater **evaporates** from the [oceans](http://x.org).\n"
        "Clouds form.\n\n## Stages\n- evaporation\n- condensation\n\n"
        "```\ncode = 1\n```\nRain falls.\n"
    )
    passage = load_passage(path)
    assert passage.title == "The Water Cycle"
    assert passage.text == (
        "The Water Cycle\n\nWater evaporates from the oceans. Clouds form.\n\nStages\n\n"
        "evaporation\n\ncondensation\n\nRain falls."
    )


def test_pasted_text_keeps_the_title_given_and_refuses_empty_text() -> None:
    passage = passage_from_text(TEXT, title="  Cells ", subject="biology")
    assert (passage.text, passage.title, passage.subject) == (TEXT, "Cells", "biology")
    with pytest.raises(PassageError, match="empty"):
        passage_from_text(" \n ")


# -- Word ----------------------------------------------------------------------------------------


def test_docx_paragraphs_headings_and_tables_in_document_order(tmp_path: Path) -> None:
    import docx

    document = docx.Document()
    document.add_heading("The French Revolution", level=1)
    document.add_paragraph("The Bastille fell on 14 July 1789.")
    table = document.add_table(rows=2, cols=2)
    table.cell(0, 0).text = "Year"
    table.cell(0, 1).text = "Event"
    table.cell(1, 0).merge(table.cell(1, 1)).text = "Merged cell text."
    document.add_paragraph("")
    document.add_paragraph("Louis XVI was executed in 1793.")
    path = tmp_path / "revolution.docx"
    document.save(str(path))

    passage = load_passage(path)
    assert passage.title == "The French Revolution"  # no core title: the first heading
    assert passage.text == (
        "The French Revolution\n\nThe Bastille fell on 14 July 1789.\n\nYear\n\nEvent\n\n"
        "Merged cell text.\n\nLouis XVI was executed in 1793."
    )


def test_docx_core_title_wins_and_explicit_title_wins_over_all(tmp_path: Path) -> None:
    import docx

    document = docx.Document()
    document.core_properties.title = "Unit 3: Revolutions"
    document.add_heading("A heading", level=2)
    document.add_paragraph("Text.")
    path = tmp_path / "u3.docx"
    document.save(str(path))
    assert load_passage(path).title == "Unit 3: Revolutions"
    assert load_passage(path, title="Mine").title == "Mine"


def test_docx_with_no_text_is_empty(tmp_path: Path) -> None:
    import docx

    path = tmp_path / "blank.docx"
    docx.Document().save(str(path))
    assert "empty" in error_for(path).message


def test_corrupt_docx_is_refused(tmp_path: Path) -> None:
    not_zip = tmp_path / "fake.docx"
    not_zip.write_bytes(b"This is plain text renamed to .docx")
    assert "not a readable Word document" in error_for(not_zip).message

    no_document = tmp_path / "hollow.docx"
    with zipfile.ZipFile(no_document, "w") as archive:
        archive.writestr("[Content_Types].xml", "<Types/>")
    assert "not a readable Word document" in error_for(no_document).message


# -- PDF -----------------------------------------------------------------------------------------


def test_pdf_text_joins_hyphenation_and_line_breaks_and_keeps_paragraphs(tmp_path: Path) -> None:
    path = tmp_path / "revolution.pdf"
    path.write_bytes(
        make_pdf(
            [
                [
                    "The French Revolution began in 1789 and transformed the political exam-",
                    "ple of Europe for decades after the fall of the old regime in France.",
                    "It ended the monarchy.",
                    "Napoleon rose to power later and crowned himself emperor of the French",
                    "in 1804 in Paris.",
                ],
                ["This sentence runs over the page break and keeps going on the next", "page."],
            ],
            title="Revolution (notes)",
        )
    )
    passage = load_passage(path)
    assert passage.title == "Revolution (notes)"
    assert passage.text == (
        "The French Revolution began in 1789 and transformed the political example of Europe "
        "for decades after the fall of the old regime in France. It ended the monarchy.\n\n"
        "Napoleon rose to power later and crowned himself emperor of the French in 1804 in "
        "Paris.\n\nThis sentence runs over the page break and keeps going on the next page."
    )


def test_pdf_without_metadata_title_uses_the_file_stem(tmp_path: Path) -> None:
    path = tmp_path / "chapter-2.pdf"
    path.write_bytes(make_pdf([["Mitochondria make ATP."]]))
    passage = load_passage(path)
    assert (passage.title, passage.text) == ("chapter-2", "Mitochondria make ATP.")


def test_pdf_with_no_text_may_be_scanned(tmp_path: Path) -> None:
    from pypdf import PdfWriter

    writer = PdfWriter()
    writer.add_blank_page(width=612, height=792)
    path = tmp_path / "scan.pdf"
    with path.open("wb") as handle:
        writer.write(handle)
    error = error_for(path)
    assert "scanned" in error.message and "OCR" in error.fix


def test_password_protected_pdf_is_refused_but_empty_password_opens(tmp_path: Path) -> None:
    from pypdf import PdfReader, PdfWriter

    source = tmp_path / "plain.pdf"
    source.write_bytes(make_pdf([["Secret facts about the moon."]]))
    for user_password, name in (("s3cret", "locked.pdf"), ("", "owner-only.pdf")):
        writer = PdfWriter(clone_from=PdfReader(source))
        writer.encrypt(user_password=user_password, owner_password="owner")
        with (tmp_path / name).open("wb") as handle:
            writer.write(handle)
    assert "password" in error_for(tmp_path / "locked.pdf").message
    assert load_passage(tmp_path / "owner-only.pdf").text == "Secret facts about the moon."


def test_corrupt_pdf_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "broken.pdf"
    path.write_bytes(b"%PDF-1.4\n" + bytes(range(256)) * 4)
    assert "not a readable PDF" in error_for(path).message
    renamed = tmp_path / "renamed.pdf"
    renamed.write_text("just some text")
    assert "not a readable PDF" in error_for(renamed).message
