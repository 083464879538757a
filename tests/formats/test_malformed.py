"""Broken and oddly encoded files: a file of which nothing can be imported is a FormatError
that names the line or element, with the bank left exactly as it was; a file with some bad
questions imports the others and lists the bad ones."""

from __future__ import annotations

from pathlib import Path

import pytest

from quizsmith.bank import ItemBank
from quizsmith.formats import FormatError, import_file, importer_for

GOOD_GIFT = "::a::First?{=one}\n\n::b::Second?{~x =y}\n"


@pytest.mark.parametrize(
    ("name", "content", "where"),
    [
        ("broken.gift", "::c::Third?{=a ~b\n\n", "line 1"),
        ("broken.gift", "// comment\n\n::d:: Fourth? {\n  hello =x\n}\n", "line 3"),
        ("empty.gift", "// only a comment\n\n$CATEGORY: $course$/top/X\n", "no GIFT question"),
        ("name.gift", "::open name without end {=x}\n", "line 1"),
        ("aiken.txt", "Q?\nA. one\nB. two\nANSWER: C\n", "line 4"),
        ("aiken.txt", "Q?\nA. one\nC. two\nANSWER: A\n", "line 3"),
        ("aiken.txt", "Q?\nA. one\nB. two\n", "line 1"),
        ("bad.xml", "<quiz><question type='shortanswer'>\n<oops></quiz>", "line 2"),
        ("bad.xml", "<quiz><question type='multichoice'><name><text>m1</text></name>"
         "<questiontext><text>Q?</text></questiontext>"
         "<answer fraction='abc'><text>x</text></answer></question></quiz>",
         "<question> #1 ('m1')"),
        ("bad.xml", "<quiz><question type='truefalse'><questiontext><text>Q?</text>"
         "</questiontext><answer fraction='100'><text>maybe</text></answer></question></quiz>",
         "<question> #1"),
        ("bad.xml", "<questions/>", "<questions>"),
        ("dup.xml", "<quiz><question type='multichoice'><questiontext><text>Q?</text>"
         "</questiontext><answer fraction='100'><text>Same</text></answer>"
         "<answer fraction='0'><text>same</text></answer></question></quiz>", "<question> #1"),
    ],
)  # fmt: skip
def test_malformed_files_name_the_place_and_import_nothing(
    bank: ItemBank, tmp_path: Path, name: str, content: str, where: str
) -> None:
    before = len(bank.search(limit=None))
    source = tmp_path / name
    source.write_text(content, encoding="utf-8")
    with pytest.raises(FormatError) as caught:
        import_file(bank, source)
    assert where in str(caught.value) and name in str(caught.value)
    assert caught.value.fix
    assert len(bank.search(limit=None)) == before


@pytest.mark.parametrize(
    ("bad", "where"),
    [
        ("::c::Third?{=a ~b\n", "question 4 (line 12, 'c')"),
        ("::d:: Fourth? {\n  hello =x\n}\n", "question 4 (line 12, 'd')"),
    ],
)
def test_a_bad_question_after_good_ones_is_skipped_and_the_others_imported(
    items: list, bank: ItemBank, tmp_path: Path, bad: str, where: str
) -> None:
    before = len(bank.search(limit=None))
    source = tmp_path / "late.gift"
    good = "::a::First?{=one}\n\n::b::Second?{~x =y}\n\n::e::Third?{=three}\n"
    source.write_text(good + "\n\n\n\n\n\n" + bad, encoding="utf-8")
    report = import_file(bank, source)
    assert report.count == 3 and report.partial
    assert len(bank.search(limit=None)) == before + 3
    (skipped,) = report.skipped
    assert skipped.reason.startswith(where)


def test_importing_through_a_bank_path_creates_no_bank_for_a_bad_file(tmp_path: Path) -> None:
    source = tmp_path / "bad.gift"
    source.write_text("::x::Q?{=a\n", encoding="utf-8")
    with pytest.raises(FormatError):
        import_file(tmp_path / "new.qbank", source)
    assert not (tmp_path / "new.qbank").exists()


@pytest.mark.parametrize(
    ("encoding", "bom"),
    [("utf-8", b""), ("utf-8", b"\xef\xbb\xbf"), ("utf-16-le", b"\xff\xfe"),
     ("utf-16-be", b"\xfe\xff")],
)  # fmt: skip
@pytest.mark.parametrize("fmt", ["gift", "aiken", "moodle"])
def test_utf8_and_utf16_files_import(
    bank: ItemBank, tmp_path: Path, fmt: str, encoding: str, bom: bytes
) -> None:
    texts = {
        "gift": "::é::Où est Zürich ? 北京? {=en Suisse ~en Autriche}\n",
        "aiken": "Où est Zürich ? 北京?\nA. en Suisse\nB. en Autriche\nANSWER: A\n",
        "moodle": "<?xml version='1.0' encoding='{enc}'?>\n<quiz><question type='multichoice'>"
        "<questiontext><text>Où est Zürich ? 北京?</text></questiontext>"
        "<answer fraction='100'><text>en Suisse</text></answer>"
        "<answer fraction='0'><text>en Autriche</text></answer></question></quiz>",
    }
    declared = "UTF-16" if encoding.startswith("utf-16") else "UTF-8"
    text = texts[fmt].replace("{enc}", declared).replace("\n", "\r\n")
    source = tmp_path / f"bank.{'xml' if fmt == 'moodle' else 'txt'}"
    source.write_bytes(bom + text.encode(encoding))
    report = import_file(bank, source)
    assert report.format == fmt and report.count == 1
    (item,) = bank.get_items(report.item_ids)
    assert (item.stem, item.key, item.status) == (
        "Où est Zürich ? 北京?",
        "en Suisse",
        "needs-review",
    )


@pytest.mark.parametrize(
    ("content", "says"),
    [
        (b"PK\x03\x04rest-of-a-zip", "zip archive"),
        (b"%PDF-1.7 ...", "PDF"),
        (b"\x00\x01\x02binary\x00", "not a text file"),
        (b"Caf\xe9?\nA. oui\nB. non\nANSWER: A\n", "not UTF-8"),
    ],
)
def test_files_that_are_not_text_are_named_as_such(
    bank: ItemBank, tmp_path: Path, content: bytes, says: str
) -> None:
    source = tmp_path / "bank.txt"
    source.write_bytes(content)
    with pytest.raises(FormatError, match=says):
        import_file(bank, source, "aiken")
    assert bank.search(limit=None) == []


def test_an_unclear_text_file_asks_for_the_format(tmp_path: Path) -> None:
    source = tmp_path / "notes.txt"
    source.write_text("Just some notes.\nNothing to import.\n")
    with pytest.raises(FormatError, match="--format"):
        importer_for(source)
    with pytest.raises(FormatError, match=r"Cannot import \.pdf"):
        importer_for(tmp_path / "scan.pdf")
    (tmp_path / "g.txt").write_text("::n::Q?{=a}\n")
    (tmp_path / "a.txt").write_text("Q?\nA. x\nB. y\nANSWER: B\n")
    assert importer_for(tmp_path / "g.txt").name == "gift"
    assert importer_for(tmp_path / "a.txt").name == "aiken"
