"""`quizsmith export` and `quizsmith import` for the formats, through `cli.main`."""

from __future__ import annotations

import zipfile
from pathlib import Path

import pytest
from docx import Document

from quizsmith.bank import ItemBank
from quizsmith.cli import main

from .helpers import mcq, sample_items, short, stored


@pytest.fixture
def bank_file(tmp_path: Path) -> Path:
    path = tmp_path / "b.qbank"
    with ItemBank(path) as bank:
        accepted = stored(bank, sample_items())
        stored(bank, [mcq("A draft question?", "yes", ["no"])], status="draft")
        bank.create_quiz("Week 1", [accepted[2].id or 0, accepted[0].id or 0])
    return path


@pytest.mark.parametrize(
    "fmt", ["docx", "docx-key", "docx-report", "moodle", "gift", "aiken", "qti", "csv"]
)
def test_export_each_format_takes_accepted_items_by_default(
    fmt: str, bank_file: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / f"out.{fmt}"
    code = main(["export", "--bank", str(bank_file), "--format", fmt, "--out", str(out),
                 "--seed", "77"])  # fmt: skip
    printed = capsys.readouterr()
    assert code == 0, printed.err
    expected = 4 if fmt == "aiken" else 7  # the draft item stays out
    assert f"Exported {expected} items" in printed.out and "seed 77" in printed.out
    if fmt == "aiken":
        assert (
            "Skipped 3 item(s)" in printed.out and "multiple-choice questions only" in printed.out
        )
    assert out.is_file() and out.stat().st_size > 0
    assert not [p for p in tmp_path.iterdir() if p.name.endswith(".tmp")]


def test_export_a_quiz_in_its_order_with_a_template(
    bank_file: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from quizsmith.formats.make_template import build

    template = build(tmp_path / "school.docx")
    out = tmp_path / "week1.docx"
    code = main(["export", "--bank", str(bank_file), "--format", "docx", "--quiz", "Week 1",
                 "--out", str(out), "--template", str(template)])  # fmt: skip
    assert code == 0, capsys.readouterr().err
    questions = [p.text for p in Document(str(out)).paragraphs if p.style.name == "Quiz Question"]
    assert [q.split(". ", 1)[1] for q in questions] == [
        "Le Nil coule vers le nord — n'est-ce pas ? 🙂",
        "Into which sea does the Nile empty?",
    ]
    assert "Week 1" in Document(str(out)).sections[0].header.paragraphs[0].text


@pytest.mark.parametrize(
    "fmt", ["docx", "docx-key", "docx-report", "moodle", "gift", "aiken", "qti", "csv"]
)
def test_every_format_exports_a_quiz_in_the_quiz_order(
    fmt: str, bank_file: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # Issue 19: "quiz export order comes out reversed". The quiz lists item 3 before item 1.
    out = tmp_path / f"week1.{fmt}"
    code = main(["export", "--bank", str(bank_file), "--format", fmt, "--quiz", "Week 1",
                 "--out", str(out)])  # fmt: skip
    assert code == 0, capsys.readouterr().err
    if fmt.startswith("docx"):
        doc = Document(str(out))
        cells = [c.text for t in doc.tables for r in t.rows for c in r.cells]
        text = "\n".join([p.text for p in doc.paragraphs] + cells)
    elif fmt == "qti":
        with zipfile.ZipFile(out) as archive:
            text = "".join(archive.read(n).decode("utf-8") for n in archive.namelist())
    else:
        text = out.read_text(encoding="utf-8")
    # The answer key shows answers, not stems.
    first, second = ("True", "Mediterranean") if fmt == "docx-key" else ("Le Nil", "Into which")
    assert -1 < text.index(first) < text.index(second)


def test_export_errors_are_messages(
    bank_file: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = str(tmp_path / "x.out")
    assert main(["export", "--bank", str(bank_file), "--format", "pdf", "--out", out]) == 2
    assert "Unknown format 'pdf'" in capsys.readouterr().err
    assert main(["export", "--bank", str(bank_file), "--format", "gift", "--out", out,
                 "--quiz", "Nope"]) == 2  # fmt: skip
    assert "Week 1" in capsys.readouterr().err
    assert main(["export", "--bank", str(bank_file), "--format", "gift", "--out", out,
                 "--status", "rejected"]) == 2  # fmt: skip
    assert "No items to export" in capsys.readouterr().err
    assert not Path(out).exists()


def test_jsonl_export_still_writes_the_whole_bank(
    bank_file: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "all.jsonl"
    assert main(["export", "--bank", str(bank_file), "--out", str(out)]) == 0
    assert "Exported 8 items" in capsys.readouterr().out


@pytest.mark.parametrize(("fmt", "name"), [("moodle", "q.xml"), ("gift", "q.txt"),
                                           ("aiken", "q.txt"), ("gift", "q.gift")])  # fmt: skip
def test_import_picks_the_format_and_marks_items_for_review(
    fmt: str, name: str, bank_file: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    exported = tmp_path / f"export.{fmt}"
    assert main(["export", "--bank", str(bank_file), "--format", fmt, "--out", str(exported)]) == 0
    source = tmp_path / name
    source.write_bytes(exported.read_bytes())
    target = tmp_path / "new.qbank"
    capsys.readouterr()
    assert main(["import", str(source), "--bank", str(target)]) == 0
    printed = capsys.readouterr().out
    expected = 4 if fmt == "aiken" else 7
    assert f"Imported {expected} items from {name} ({fmt})" in printed
    with ItemBank(target) as bank:
        assert bank.status_counts() == {"needs-review": expected}


def test_import_with_an_explicit_format_and_a_skipped_question(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    source = tmp_path / "questions.dat"
    source.write_text("::a::Q one?{=yes}\n\n::b::Describe it.{}\n", encoding="utf-8")
    target = tmp_path / "b.qbank"
    assert main(["import", str(source), "--bank", str(target)]) == 2
    assert "--format" in capsys.readouterr().err
    assert not target.exists()
    assert main(["import", str(source), "--bank", str(target), "--format", "gift"]) == 4
    printed = capsys.readouterr().out
    assert "Imported 1 items" in printed and "Skipped 1 question(s)" in printed
    assert "Partial import (exit status 4)" in printed
    assert "essay" in printed


def test_a_malformed_import_leaves_the_bank_unchanged(
    bank_file: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    source = tmp_path / "bad.txt"
    source.write_text("Q?\nA. x\nB. y\nANSWER: Z\n", encoding="utf-8")
    with ItemBank(bank_file) as bank:
        before = bank.status_counts()
    assert main(["import", str(source), "--bank", str(bank_file)]) == 2
    err = capsys.readouterr().err
    assert "bad.txt: No question could be imported" in err and "(line 4)" in err
    assert "fix:" in err
    with ItemBank(bank_file) as bank:
        assert bank.status_counts() == before


def test_short_items_are_kept_out_of_aiken_but_not_lost(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "s.qbank"
    with ItemBank(path) as bank:
        stored(bank, [short("Only free text?", "yes")])
    # Nothing Aiken can carry: an error, not an empty file with rc 0 (issue 28).
    assert main(["export", "--bank", str(path), "--format", "aiken",
                 "--out", str(tmp_path / "a.txt")]) == 2  # fmt: skip
    assert "every item was left out" in capsys.readouterr().err
    assert not (tmp_path / "a.txt").exists()
    with ItemBank(path) as bank:
        assert bank.count() == 1


def test_import_warns_per_item_about_an_mcq_with_one_distractor(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from quizsmith.domain import ONE_DISTRACTOR_MESSAGE

    gift = tmp_path / "q.gift"
    gift.write_text(
        "::a::Which gas do plants release?{=Oxygen ~Nitrogen}\n\n"
        "::b::Which gas do plants take in?{=Carbon dioxide ~Nitrogen ~Helium ~Argon}\n",
        encoding="utf-8",
    )
    target = tmp_path / "b.qbank"
    assert main(["import", str(gift), "--bank", str(target)]) == 0  # imported, not refused
    printed = capsys.readouterr().out
    assert "Imported 2 items" in printed
    assert "Warnings on 1 imported item(s) (imported all the same):" in printed
    assert f"  - item 1: {ONE_DISTRACTOR_MESSAGE}" in printed

    jsonl = tmp_path / "items.jsonl"
    jsonl.write_text(
        '{"type": "mcq", "question": "Which planet is red?", "answer": "Mars", '
        '"distractors": ["Venus", "Jupiter", "Saturn"]}\n'
        '{"type": "mcq", "question": "Which planet is largest?", "answer": "Jupiter", '
        '"distractors": ["Mars"]}\n',
        encoding="utf-8",
    )
    assert main(["import", str(jsonl), "--bank", str(target)]) == 0
    printed = capsys.readouterr().out
    assert "Imported 2 items" in printed
    assert f"  - item 4 (line 2): {ONE_DISTRACTOR_MESSAGE}" in printed
    with ItemBank(target) as bank:
        assert bank.get_item(4).stem == "Which planet is largest?"
