"""Question files written to the published format specifications (fixtures/real/): what a
teacher's or Moodle's files hold must arrive whole, or be skipped or simplified with a reason
that names the question; and what the bank holds must leave in every format that can carry
it (issue 15)."""

from __future__ import annotations

import xml.etree.ElementTree as ET
import zipfile
from pathlib import Path

import pytest
from docx import Document

from quizsmith.bank import ItemBank
from quizsmith.cli import main
from quizsmith.domain import Accepted, Item, NumericKey, Option
from quizsmith.formats import ExportOptions, FormatError, export_items, get, import_file

from .helpers import mcq, short

REAL = Path(__file__).parent / "fixtures" / "real"


def read(name: str) -> list[Item]:
    fmt = {".gift": "gift", ".xml": "moodle", ".txt": "aiken"}[Path(name).suffix]
    return get(fmt)().read(REAL / name).items


def by_name(items: list[Item]) -> dict[str, Item]:
    return {str(i.provenance.get("source_id")): i for i in items}


# --- (1) GIFT answer format markers ------------------------------------------------------


def test_gift_answer_format_markers_are_not_kept_as_text() -> None:
    items = by_name(read("gift_markers.gift"))
    assert items["colour"].key == "blue"
    assert sorted(o.text for o in items["colour"].options) == ["blue", "green", "red"]
    assert items["capital"].key == "Paris"
    assert "Marseille & Nice" in [o.text for o in items["capital"].options]
    assert items["river"].stem == "Which river flows through Vienna?"
    assert sorted(o.text for o in items["river"].options) == ["Danube", "Elbe", "Rhine"]
    assert not any("[" in o.text for i in items.values() for o in i.options)


def test_nested_categories_keep_their_path_and_go_out_nested(tmp_path: Path) -> None:
    items = read("gift_markers.gift")
    assert {i.subject for i in items} == {"Europe"}
    assert items[0].provenance["category_path"] == ["Geography", "Europe"]
    for fmt, marker in (("gift", "$CATEGORY: $course$/top/Geography/Europe"),
                        ("moodle", "<text>$course$/top/Geography/Europe</text>")):  # fmt: skip
        out = tmp_path / f"out.{fmt}"
        export_items(items, fmt, out)
        assert marker in out.read_text(encoding="utf-8")


# --- (2) numerical answers -----------------------------------------------------------------


def test_gift_numerical_keeps_value_and_tolerance_or_range() -> None:
    items = by_name(read("gift_numerical.gift"))
    assert items["range"].numeric == NumericKey(3.0, 2.0)
    assert items["pi"].numeric == NumericKey(3.14159, 0.0005) and items["pi"].key == "3.14159"
    assert items["born"].numeric == NumericKey(1822.0, 0.0) and items["born"].key == "1822"


def test_extra_numerical_answers_are_listed_as_simplified() -> None:
    parsed = get("gift")().read(REAL / "gift_numerical.gift")
    (note,) = parsed.simplified
    assert "'born'" in note.reason and "1822:2" in note.reason and "50%" in note.reason


def test_numerical_keys_survive_the_bank_and_every_format(bank: ItemBank, tmp_path: Path) -> None:
    ids = bank.add_items(read("gift_numerical.gift"))
    pi = bank.get_item(ids[1])
    assert pi.numeric == NumericKey(3.14159, 0.0005)
    gift = tmp_path / "n.gift"
    export_items([pi], "gift", gift)
    assert "{#3.14159:0.0005}" in gift.read_text(encoding="utf-8")
    moodle = tmp_path / "n.xml"
    export_items([pi], "moodle", moodle)
    question = ET.parse(moodle).getroot().find("question[@type='numerical']")
    assert question is not None
    assert question.findtext("answer/text") == "3.14159"
    assert question.findtext("answer/tolerance") == "0.0005"
    (back,) = get("moodle")().read(moodle).items
    assert back.numeric == NumericKey(3.14159, 0.0005)
    qti = tmp_path / "n.zip"
    export_items([pi], "qti", qti)
    with zipfile.ZipFile(qti) as archive:
        body = next(archive.read(n) for n in archive.namelist() if n != "imsmanifest.xml")
    text = body.decode("utf-8")
    assert "numerical_question" in text
    assert ">3.14109<" in text and ">3.14209<" in text
    key = tmp_path / "k.docx"
    export_items([pi], "docx-key", key)
    assert "3.14159 (± 0.0005)" in Document(str(key)).tables[0].rows[1].cells[2].text


def test_moodle_numerical_keeps_tolerance_and_unit() -> None:
    item = by_name(read("moodle_mixed.xml"))["num-g"]
    assert item.numeric == NumericKey(9.81, 0.05, "m/s^2")


def test_a_numerical_key_that_is_not_a_number_is_refused() -> None:
    item = short("How far?", "far", numeric=NumericKey(1.0))
    assert any("not a number" in p for p in item.problems())


# --- (3) alternatives and (8) partial credit -----------------------------------------------


def test_alternatives_and_partial_credit_are_imported() -> None:
    parsed = get("gift")().read(REAL / "gift_credit.gift")
    items = by_name(parsed.items)
    assert items["grant"].key == "Ulysses S. Grant"
    assert items["grant"].accepted == [Accepted("Ulysses Grant"), Accepted("Grant", 50.0)]
    half = items["half"]
    assert half.type == "mcq" and half.key == "Mars"
    credits = {o.text: o.credit for o in half.options if not o.is_key}
    assert credits == {"The fourth planet from the Sun": 50.0, "Venus": -25.0, "Jupiter": 0.0}
    (skipped,) = parsed.skipped
    assert "'multi'" in skipped.reason and "multiple-answer" in skipped.reason
    moodle = by_name(read("moodle_mixed.xml"))
    assert moodle["sa-grant"].accepted == [Accepted("Ulysses Grant"), Accepted("Grant", 50.0)]
    assert {o.text: o.credit for o in moodle["mc-3"].options}["kilowatt-hour"] == 50.0


@pytest.mark.parametrize("fmt", ["gift", "moodle"])
def test_alternatives_and_credit_round_trip(fmt: str, bank: ItemBank, tmp_path: Path) -> None:
    ids = bank.add_items(read("gift_credit.gift"))
    stored = bank.get_items(ids)
    assert stored[0].accepted == [Accepted("Ulysses Grant"), Accepted("Grant", 50.0)]
    out = tmp_path / f"c.{fmt}"
    export_items(stored, fmt, out)
    back = get(fmt)().read(out).items
    assert back[0].accepted == stored[0].accepted
    assert sorted((o.text, o.credit) for o in back[1].options) == sorted(
        (o.text, o.credit) for o in stored[1].options
    )


def test_alternatives_in_qti_and_the_word_key(bank: ItemBank, tmp_path: Path) -> None:
    grant = read("gift_credit.gift")[0]
    qti = tmp_path / "g.zip"
    result = export_items([grant], "qti", qti)
    with zipfile.ZipFile(qti) as archive:
        body = next(archive.read(n) for n in archive.namelist() if n != "imsmanifest.xml")
    root = ET.fromstring(body)
    values = [v.text for v in root.iter("{http://www.imsglobal.org/xsd/ims_qtiasiv1p2}varequal")]
    assert values == ["Ulysses S. Grant", "Ulysses Grant"]
    assert "'Grant' (50%) left out" in result.simplified[0].reason
    key = tmp_path / "g.docx"
    export_items([grant], "docx-key", key)
    cell = Document(str(key)).tables[0].rows[1].cells[2].text
    assert cell == "Ulysses S. Grant; also accepted: Ulysses Grant; Grant (50%)"


def test_an_old_bank_keeps_its_imported_alternatives(tmp_path: Path) -> None:
    import sqlite3

    from sqlite_utils import Database

    from quizsmith.bank import schema

    path = tmp_path / "old.qbank"
    conn = sqlite3.connect(path)
    schema.migrate(Database(conn), stop_before="0006_answer_rules")
    conn.execute(
        "INSERT INTO items (type, stem, key, provenance, created, updated) VALUES "
        "('short', 'Who?', 'no one', '{\"alternative_answers\": [\"nobody\"]}', 'x', 'x')"
    )
    conn.commit()
    conn.close()
    with ItemBank(path) as bank:
        (item,) = bank.search(status="draft", limit=None)
        assert item.accepted == [Accepted("nobody")]
        assert "alternative_answers" not in item.provenance


# --- (4) partial files ------------------------------------------------------------------------


def test_moodle_file_with_a_picture_only_question_imports_the_others(bank: ItemBank) -> None:
    report = import_file(bank, REAL / "moodle_mixed.xml")
    assert report.count == 7 and report.partial
    reasons = [s.reason for s in report.skipped]
    assert reasons[0].startswith("<question> #3 ('mc-flags'): answer 1 is a picture only")
    assert "'cloze-1'" in reasons[1] and "several sub-questions" in reasons[1]


def test_aiken_errors_are_listed_and_the_good_questions_imported(bank: ItemBank) -> None:
    report = import_file(bank, REAL / "aiken_errors.txt")
    stems = [i.stem for i in bank.get_items(report.item_ids)]
    assert stems == [
        "Which is the largest ocean?",
        "What is the chemical symbol for gold?",
        "Which continent is Egypt in?",
        "How many legs does a spider have?",
    ]
    assert len(report.skipped) == 6
    lines = [s.reason.split(":")[0] for s in report.skipped]
    assert lines == [
        "question at line 7 (line 10)",
        "question at line 16 (line 19)",
        "question at line 21 (line 23)",
        "question at line 26 (line 26)",
        "question at line 33 (line 36)",
        "question at line 38 (line 41)",
    ]


def test_the_cli_says_partial_with_exit_status_4(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    target = tmp_path / "b.qbank"
    assert main(["import", str(REAL / "aiken_errors.txt"), "--bank", str(target)]) == 4
    out = capsys.readouterr().out
    assert "Imported 4 items" in out and "Skipped 6 question(s)" in out
    assert (
        "(line 19): ANSWER: D is not one of the options" in out
        and "Partial import (exit status 4)" in out
    )
    assert main(["import", str(REAL / "aiken_nospace.txt"), "--bank", str(target)]) == 0


def test_a_file_without_questions_is_refused_and_creates_no_bank(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    target = tmp_path / "new.qbank"
    assert main(["import", str(REAL / "gift_empty.gift"), "--bank", str(target)]) == 2
    assert "no GIFT question" in capsys.readouterr().err
    assert not target.exists()


def test_importing_the_same_file_twice_adds_nothing_twice(bank: ItemBank) -> None:
    first = import_file(bank, REAL / "gift_markers.gift")
    assert first.count == 3
    with pytest.raises(FormatError, match="already in the bank as item"):
        import_file(bank, REAL / "gift_markers.gift")
    assert len(bank.search(status="needs-review", limit=None)) == 3


# --- (5) media ------------------------------------------------------------------------------


def test_embedded_images_are_kept_and_exported_and_sounds_are_named(
    bank: ItemBank, tmp_path: Path
) -> None:
    report = import_file(bank, REAL / "moodle_mixed.xml")
    notes = " ".join(s.reason for s in report.simplified)
    assert "'sa-sound'" in notes and "'tune.mp3' dropped" in notes
    flag = next(i for i in bank.get_items(report.item_ids) if i.stem.startswith("Which flag"))
    assert [(m.name, m.mime) for m in flag.media] == [("flag.png", "image/png")]
    out = tmp_path / "m.xml"
    export_items([flag], "moodle", out)
    text_el = ET.parse(out).getroot().find("question[@type='multichoice']/questiontext")
    assert text_el is not None
    assert "@@PLUGINFILE@@/flag.png" in (text_el.findtext("text") or "")
    assert text_el.find("file[@name='flag.png']") is not None
    (back,) = get("moodle")().read(out).items
    assert back.media == flag.media
    sheet = tmp_path / "m.docx"
    export_items([flag], "docx", sheet)
    assert len(Document(str(sheet)).inline_shapes) == 1
    gift = export_items([flag], "gift", tmp_path / "m.gift")
    assert "flag.png not written" in gift.simplified[0].reason


# --- (7) "->" and (9) Aiken without a space ------------------------------------------------


@pytest.mark.parametrize(
    "item",
    [
        mcq("Which arrow is right?", "a -> b", ["b <- a", "a => b"]),
        short("Write the arrow from a to b.", "a->b"),
    ],
)
def test_an_arrow_in_an_answer_never_makes_a_matching_question(item: Item, tmp_path: Path) -> None:
    out = tmp_path / "a.gift"
    export_items([item], "gift", out)
    block = out.read_text(encoding="utf-8").split("{", 1)[1]
    assert "->" not in block and "[html]" in out.read_text(encoding="utf-8")
    (back,) = get("gift")().read(out).items
    assert (back.type, back.key) == (item.type, item.key)
    assert sorted(o.text for o in back.options) == sorted(o.text for o in item.options)


def test_aiken_options_without_a_space_are_read() -> None:
    items = read("aiken_nospace.txt")
    assert [(i.key, [o.text for o in i.options]) for i in items] == [
        ("Carbon dioxide", ["Oxygen", "Carbon dioxide", "Nitrogen"]),
        ("4", ["3", "4"]),
    ]


# --- (13) smaller --------------------------------------------------------------------------


def test_short_answers_get_moodles_default_penalty(tmp_path: Path) -> None:
    out = tmp_path / "p.xml"
    export_items([short("Capital of Peru?", "Lima")], "moodle", out)
    assert ET.parse(out).getroot().findtext("question[@type='shortanswer']/penalty") == "0.3333333"


def test_partial_credit_is_named_where_a_format_drops_it(tmp_path: Path) -> None:
    item = Item(
        type="mcq",
        stem="Which is red?",
        key="Mars",
        options=[Option("Mars", True, 0), Option("Venus", False, 1, 50.0)],
    )
    result = export_items([item], "aiken", tmp_path / "a.txt")
    assert "partial credit" in result.simplified[0].reason


def test_exports_are_readable_by_colleagues_under_the_umask(bank: ItemBank, tmp_path: Path) -> None:
    import os

    ids = bank.add_items([mcq("Which?", "this", ["that"], status="accepted")])
    old = os.umask(0o022)
    try:
        for fmt in ["docx", "docx-key", "docx-report", "moodle", "gift", "aiken", "qti", "csv"]:
            out = tmp_path / f"x.{fmt}"
            export_items(bank.get_items(ids), fmt, out)
            assert out.stat().st_mode & 0o777 == 0o644, fmt
        jsonl = tmp_path / "x.jsonl"
        bank.export_jsonl(jsonl)
        assert jsonl.stat().st_mode & 0o777 == 0o644
    finally:
        os.umask(old)


def test_cloze_from_moodle_says_what_differs() -> None:
    skipped = get("moodle")().read(REAL / "moodle_mixed.xml").skipped
    reason = next(s.reason for s in skipped if "cloze-1" in s.reason)
    assert "one blank" in reason and "no cloze questions" not in reason


def test_export_items_options_passes_the_title(tmp_path: Path) -> None:
    out = tmp_path / "key.docx"
    export_items([short("Q?", "A")], "docx-key", out, ExportOptions(title="Week 3 quiz"))
    assert "Answer key: Week 3 quiz" in [p.text for p in Document(str(out)).paragraphs]


def test_jsonl_carries_answers_credit_numeric_and_media(bank: ItemBank, tmp_path: Path) -> None:
    import_file(bank, REAL / "moodle_mixed.xml")
    import_file(bank, REAL / "gift_credit.gift")
    before = bank.search(status="needs-review", sort_by="id", descending=False, limit=None)
    out = tmp_path / "all.jsonl"
    bank.export_jsonl(out)
    with ItemBank(tmp_path / "copy.qbank") as copy:
        copy.import_jsonl(out)
        after = copy.search(status="needs-review", sort_by="id", descending=False, limit=None)
    assert [(i.accepted, i.numeric, i.media, [o.credit for o in i.options]) for i in after] == [
        (i.accepted, i.numeric, i.media, [o.credit for o in i.options]) for i in before
    ]
    assert any(i.media for i in after) and any(i.numeric for i in after)


def test_csv_lists_accepted_answers_tolerance_and_credit(tmp_path: Path) -> None:
    import csv

    items = [*read("gift_credit.gift"), read("gift_numerical.gift")[1]]
    out = tmp_path / "c.csv"
    export_items(items, "csv", out)
    with out.open(encoding="utf-8-sig", newline="") as f:
        cells = [row["accepted"] for row in csv.DictReader(f)]
    assert cells == [
        "also accepted: Ulysses Grant; Grant (50%)",
        "partial credit: The fourth planet from the Sun (50%); Venus (-25%)",
        "numerical: 3.14159 (± 0.0005)",
    ]


def test_qti_packs_an_items_images_into_the_zip(bank: ItemBank, tmp_path: Path) -> None:
    report = import_file(bank, REAL / "moodle_mixed.xml")
    flag = next(i for i in bank.get_items(report.item_ids) if i.media)
    out = tmp_path / "q.zip"
    result = export_items([flag], "qti", out)
    assert not result.simplified
    with zipfile.ZipFile(out) as archive:
        names = archive.namelist()
        (picture,) = [n for n in names if n.startswith("web_resources/")]
        assert picture.endswith("/flag.png")
        assert archive.read(picture) == flag.media[0].data
        manifest = archive.read("imsmanifest.xml").decode("utf-8")
        body = next(archive.read(n) for n in names if n.endswith(".xml") and "/" in n)
    assert f'href="{picture}"' in manifest and 'type="webcontent"' in manifest
    src = "$IMS-CC-FILEBASE$/" + picture.removeprefix("web_resources/")
    assert f'src="{src}"' in ET.fromstring(body).findtext(".//{*}mattext", "")


def test_an_answer_that_looks_like_a_format_marker_keeps_it(tmp_path: Path) -> None:
    item = mcq("Which tag marks plain text in GIFT?", "[plain] text", ["[html]", "[moodle]x"])
    out = tmp_path / "m.gift"
    export_items([item], "gift", out)
    (back,) = get("gift")().read(out).items
    assert sorted(o.text for o in back.options) == sorted(o.text for o in item.options)
