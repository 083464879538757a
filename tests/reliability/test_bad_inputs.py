"""Passage and file inputs a teacher may hand the app: empty, whitespace only, huge, binary,
UTF-16, every script, right-to-left, and corrupt .docx/.pdf/.xml/GIFT/Aiken files.

Each is either read correctly or refused with a QuizsmithError subclass that names the fix,
and an import that fails leaves the bank exactly as it was (same counts, integrity intact).
tests/formats/test_malformed.py checks where a malformed question file's error points; this
module checks the same promises across every entry point (passage loading, pasted text,
question import, the CLI), plus random bytes."""

from __future__ import annotations

import io
import zipfile
from collections.abc import Iterator
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from quizsmith.bank import ItemBank
from quizsmith.domain import Item, Passage
from quizsmith.errors import QuizsmithError
from quizsmith.formats import import_file
from quizsmith.generation.passages import load_passage, passage_from_text
from quizsmith.text import MAX_PASSAGE_CHARS

MIXED = "Photosynthesis (光合作用, фотосинтез, 광합성) makes O₂ 🌱🌞 — naïve café ﬁeld."
RTL = "التمثيل الضوئي هو عملية تحول الضوء إلى طاقة كيميائية. ‏הפוטוסינתזה מתרחשת בעלים."
FIVE_MB = ("The river carries silt to the delta. " * 140_000)[: 5 * 2**20]


def _docx_bytes(text: str) -> bytes:
    import docx

    document = docx.Document()
    document.add_paragraph(text)
    buffer = io.BytesIO()
    document.save(buffer)
    return buffer.getvalue()


def _zip_bytes(members: dict[str, bytes]) -> bytes:
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as z:
        for name, data in members.items():
            z.writestr(name, data)
    return buffer.getvalue()


# -- passages ---------------------------------------------------------------------------------
#: (file name, content) -> None when it must load, else a word the error must contain.
PASSAGE_FILES: dict[str, tuple[str, bytes, str | None]] = {
    "empty": ("empty.txt", b"", "empty"),
    "whitespace": ("blank.txt", " \n\t\r\n\u3000\u00a0\n\n".encode(), "empty"),
    "5 MB text": ("big.txt", FIVE_MB.encode(), "MB"),
    "binary": ("photo.txt", bytes(range(256)) * 40, "binary"),
    "PNG named .md": ("notes.md", b"\x89PNG\r\n\x1a\n" + bytes(200), "binary"),
    "utf-16 BOM": ("u16.txt", ("\ufeff" + MIXED).encode("utf-16-le"), None),
    "utf-16 BE BOM": ("u16be.txt", ("\ufeff" + RTL).encode("utf-16-be"), None),
    "mixed scripts and emoji": ("mixed.txt", MIXED.encode(), None),
    "RTL": ("rtl.md", ("# عنوان\n\n" + RTL).encode(), None),
    "corrupt docx": ("broken.docx", b"PK\x03\x04 not really a zip", "docx"),
    "docx without document.xml": (
        "hollow.docx",
        _zip_bytes({"[Content_Types].xml": b"<Types/>", "word/other.xml": b"<x/>"}),
        "docx",
    ),
    "docx truncated": ("cut.docx", _docx_bytes("A passage.")[:900], "docx"),
    "corrupt pdf": ("broken.pdf", b"%PDF-1.7\n1 0 obj << /Type /Catalog >>\ngarbage", "PDF"),
    "empty pdf": ("zero.pdf", b"", "PDF"),
    "unsupported .doc": ("old.doc", b"\xd0\xcf\x11\xe0 legacy word", ".docx"),
}


@pytest.mark.parametrize("case", list(PASSAGE_FILES))
def test_passage_files(case: str, tmp_path: Path) -> None:
    name, content, error_word = PASSAGE_FILES[case]
    path = tmp_path / name
    path.write_bytes(content)
    if error_word is None:
        passage = load_passage(path)
        assert passage.text.strip() and "\ufeff" not in passage.text
        assert len(passage.text) <= MAX_PASSAGE_CHARS
        if "mixed" in case:
            assert "光合作用" in passage.text and "🌱" in passage.text and "field" in passage.text
        if "RTL" in case or "BE" in case:
            assert "التمثيل الضوئي" in passage.text
        return
    with pytest.raises(QuizsmithError) as caught:
        load_passage(path)
    err = caught.value
    assert err.fix, f"{case}: no fix in {err}"
    assert error_word.lower() in str(err).lower(), str(err)
    assert name in str(err)  # the teacher sees which file


@pytest.mark.parametrize(
    ("text", "ok"),
    [("", False), ("   \n\t  ", False), ("\u200b\u00ad\ufeff", False), (FIVE_MB, False),
     (MIXED, True), (RTL, True), ("a" * MAX_PASSAGE_CHARS, True)],
    ids=["empty", "whitespace", "invisible only", "5 MB", "mixed", "rtl", "at the limit"],
)  # fmt: skip
def test_pasted_text(text: str, ok: bool) -> None:
    if ok:
        assert passage_from_text(text).text
    else:
        with pytest.raises(QuizsmithError) as caught:
            passage_from_text(text)
        assert caught.value.fix


@settings(max_examples=150, deadline=None, suppress_health_check=list(HealthCheck))
@given(content=st.binary(max_size=3000), suffix=st.sampled_from([".txt", ".md", ".docx", ".pdf"]))
def test_random_bytes_as_a_passage_file(content: bytes, suffix: str, tmp_path: Path) -> None:
    path = tmp_path / f"random{suffix}"
    path.write_bytes(content)
    try:
        passage = load_passage(path)
    except QuizsmithError as exc:
        assert exc.fix
    else:
        assert passage.text.strip()


# -- question files into a bank ---------------------------------------------------------------
@pytest.fixture
def bank(tmp_path: Path) -> Iterator[ItemBank]:
    with ItemBank(tmp_path / "b.qbank") as b:
        passage = Passage(text=MIXED + " " + RTL)
        passage.id = b.add_passage(passage)
        b.add_item(Item(type="short", stem="What makes O₂?", key="Photosynthesis",
                        passage_id=passage.id))  # fmt: skip
        b.add_item(Item(type="mcq", stem="Which gas?", key="O₂",
                        options=Item.make_options("O₂", ["CO₂", "N₂"])))  # fmt: skip
        yield b


def _state(bank: ItemBank) -> tuple[int, int, list[str]]:
    return len(bank.search(limit=None)), len(bank.passages()), bank.integrity_problems()


def _billion_laughs() -> bytes:
    entities = '<!ENTITY l0 "lollollollollol">' + "".join(
        f'<!ENTITY l{i} "{f"&l{i - 1};" * 10}">' for i in range(1, 10)
    )
    return (
        f'<?xml version="1.0"?><!DOCTYPE q [{entities}]><quiz><question type="shortanswer">'
        '<questiontext><text>&l9;?</text></questiontext><answer fraction="100"><text>x</text>'
        "</answer></question></quiz>"
    ).encode()


QUESTION_FILES: dict[str, tuple[str, bytes]] = {
    "empty xml": ("bank.xml", b""),
    "not xml": ("bank.xml", b"\x00\x01\x02 binary"),
    "xml cut half-way": (
        "bank.xml",
        b"<?xml version='1.0'?><quiz><question type='multichoice'><questiontext><text>Q?",
    ),
    # "billion laughs": expat's amplification limit refuses it at once (a FormatError).
    "xml bomb": ("bomb.xml", _billion_laughs()),
    "xml small entity": (
        "entity.xml",
        b'<?xml version="1.0"?><!DOCTYPE q [<!ENTITY a "aaaaaaaaaa">'
        b'<!ENTITY b "&a;&a;&a;&a;&a;&a;&a;&a;&a;&a;"><!ENTITY c "&b;&b;&b;&b;&b;&b;&b;&b;&b;">'
        b"]><quiz><question type='shortanswer'><questiontext><text>&c;?</text></questiontext>"
        b"<answer fraction='100'><text>x</text></answer></question></quiz>",
    ),
    "xml external entity": (
        "xxe.xml",
        b'<?xml version="1.0"?><!DOCTYPE q [<!ENTITY e SYSTEM "file:///etc/passwd">]>'
        b"<quiz><question type='shortanswer'><questiontext><text>&e;</text></questiontext>"
        b"<answer fraction='100'><text>x</text></answer></question></quiz>",
    ),
    "gift unclosed brace": ("bank.gift", "::q1::Où? {=Paris ~Lyon\n".encode()),
    "gift binary": ("bank.gift", bytes(range(256)) * 8),
    "gift utf-16 broken": ("bank.gift", b"\xff\xfe" + "::q::Q? {=a".encode("utf-16-le")),
    "aiken without answer": ("bank.aiken", "مرحبا؟\nA. نعم\nB. لا\n".encode()),
    "txt of nothing": ("bank.txt", "🌱🌞\n\n\n".encode()),
    "jsonl-like txt": ("bank.txt", b'{"stem": "x"}\n'),
}


@pytest.mark.parametrize("case", list(QUESTION_FILES))
def test_bad_question_files_change_nothing(case: str, bank: ItemBank, tmp_path: Path) -> None:
    name, content = QUESTION_FILES[case]
    source = tmp_path / name
    source.write_bytes(content)
    before = _state(bank)
    assert before[2] == []
    try:
        report = import_file(bank, source)
    except QuizsmithError as exc:
        assert exc.fix, str(exc)
        assert name in str(exc)
        assert _state(bank) == before
        assert "root:" not in str(exc)  # the file's contents (XXE) are not echoed
    else:
        # An importer may accept a file it can read; then nothing else may have changed and
        # no local file may have been pulled in through an entity.
        items = bank.get_items(report.item_ids)
        assert case == "xml small entity", f"{case} was imported"
        assert all("root:" not in i.stem for i in items)
        assert _state(bank)[0] == before[0] + report.count and _state(bank)[2] == []


@settings(max_examples=120, deadline=None, suppress_health_check=list(HealthCheck))
@given(
    content=st.one_of(
        st.binary(max_size=2000),
        st.text(
            alphabet=st.sampled_from(list("::{}=~#%\n\t ABCD.?ANSWER:<>/qtexn'\"\\é漢🙂")),
            max_size=400,
        ).map(str.encode),
    ),
    suffix=st.sampled_from([".gift", ".xml", ".aiken", ".txt"]),
)
def test_random_question_files_import_or_fail_cleanly(
    content: bytes, suffix: str, tmp_path: Path
) -> None:
    path = tmp_path / f"fuzz{suffix}"
    path.write_bytes(content)
    bank_path = tmp_path / "fuzz.qbank"
    bank_path.unlink(missing_ok=True)
    for extra in ("-wal", "-shm"):
        Path(str(bank_path) + extra).unlink(missing_ok=True)
    try:
        report = import_file(bank_path, path)
    except QuizsmithError as exc:
        assert exc.fix
        assert not bank_path.exists()  # a bad file creates no bank
        return
    with ItemBank(bank_path, create=False) as bank:
        assert len(bank.search(limit=None)) == report.count
        assert bank.integrity_problems() == []


def test_cli_import_of_a_corrupt_file_exits_2_with_the_fix(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from quizsmith.cli import main

    source = tmp_path / "broken.docx"
    source.write_bytes(b"PK\x03\x04junk")
    assert main(["generate", str(source), "--bank", str(tmp_path / "b.qbank")]) == 2
    err = capsys.readouterr().err
    assert "error:" in err and "fix:" in err and "Traceback" not in err
    assert not list((tmp_path / "logs").glob("crash-*.log"))
