"""`quizsmith import` of a file that yields no question: refused (exit 2) with the reason
and a fix, and no new bank left behind; a bank that was there before is never removed."""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

import pytest

from quizsmith.bank import ItemBank
from quizsmith.cli import main
from quizsmith.domain import Item, Option, Passage

EMPTY_FILES = {
    "empty.jsonl": "",
    "blank-lines.jsonl": "\n  \n\n",
    "empty.gift": "",
    "comments-only.gift": "// exported by hand\n// nothing here yet\n\n$CATEGORY: biology\n",
    "essays-only.gift": "Write about photosynthesis. {}\n\nDescribe the sun. {}\n",
    "categories-only.xml": '<?xml version="1.0"?>\n<quiz>\n<question type="category">'
    "<category><text>$course$/Biology</text></category></question>\n</quiz>\n",
    "empty.txt": "",
}


def _bank_files(bank: Path) -> list[Path]:
    return [p for p in bank.parent.iterdir() if p.name.startswith(bank.name)]


def _existing_bank(path: Path) -> Path:
    with ItemBank(path) as bank:
        passage = Passage(text="Leaves are green because of chlorophyll.", title="Leaves")
        passage.id = bank.add_passage(passage)
        bank.add_items(
            [
                Item(
                    type="mcq",
                    stem="What makes leaves green?",
                    key="chlorophyll",
                    options=[Option("chlorophyll", True, 0), Option("water", False, 1)],
                    passage_id=passage.id,
                )
            ]
        )
    return path


def _digest(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


@pytest.mark.parametrize("name", sorted(EMPTY_FILES))
def test_a_file_without_questions_is_refused_and_creates_no_bank(
    name: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    source = tmp_path / name
    source.write_text(EMPTY_FILES[name], encoding="utf-8")
    bank = tmp_path / "new.qbank"

    assert main(["import", str(source), "--bank", str(bank)]) == 2

    err = capsys.readouterr().err
    assert name in err
    assert "no question" in err.lower() or "holds no" in err, err
    assert "fix:" in err
    assert "Imported 0" not in err
    assert _bank_files(bank) == []


@pytest.mark.parametrize("name", sorted(EMPTY_FILES))
def test_a_file_without_questions_leaves_an_existing_bank_as_it_was(
    name: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    source = tmp_path / name
    source.write_text(EMPTY_FILES[name], encoding="utf-8")
    bank = _existing_bank(tmp_path / "school.qbank")
    before = _digest(bank)

    assert main(["import", str(source), "--bank", str(bank)]) == 2

    assert "fix:" in capsys.readouterr().err
    assert _digest(bank) == before
    with ItemBank(bank, read_only=True) as opened:
        assert opened.count() == 1


def _quiz_of_a_missing_item(tmp_path: Path) -> Path:
    """A JSONL file whose every line parses, but whose quiz names an item the file lacks:
    the import fails after the bank is opened (and rolls back)."""
    source = tmp_path / "broken-quiz.jsonl"
    item = {"type": "short", "question": "What do leaves hold?", "answer": "chlorophyll", "id": 1}
    quiz = {"record": "quiz", "name": "Week 1", "items": [1, 99]}
    source.write_text(f"{json.dumps(item)}\n{json.dumps(quiz)}\n", encoding="utf-8")
    return source


def test_an_import_failing_after_the_bank_opened_removes_the_bank_it_created(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    bank = tmp_path / "new.qbank"

    assert main(["import", str(_quiz_of_a_missing_item(tmp_path)), "--bank", str(bank)]) == 2

    assert "not in the file" in capsys.readouterr().err
    assert _bank_files(bank) == []


def test_an_import_failing_after_the_bank_opened_never_removes_an_existing_bank(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    bank = _existing_bank(tmp_path / "school.qbank")

    assert main(["import", str(_quiz_of_a_missing_item(tmp_path)), "--bank", str(bank)]) == 2

    assert "not in the file" in capsys.readouterr().err
    with ItemBank(bank) as opened:
        assert opened.count() == 1
        assert opened.integrity_problems() == []


def test_a_jsonl_of_passages_only_still_imports(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """An export of a bank that holds passages but no items yet is a real backup."""
    source = tmp_path / "passages.jsonl"
    record = {"record": "passage", "title": "Leaves", "text": "Leaves hold chlorophyll."}
    source.write_text(json.dumps(record) + "\n", encoding="utf-8")
    bank = tmp_path / "new.qbank"

    assert main(["import", str(source), "--bank", str(bank)]) == 0

    assert "1 passages" in capsys.readouterr().out
    with ItemBank(bank, read_only=True) as opened:
        assert len(opened.passages()) == 1
