"""Round four (issue 48): values in a JSONL import that JSON allows but a bank cannot hold.
Each used to end in "Unexpected error" (exit 1) after the bank was opened; now the line is
refused by number before the bank is touched. A score too large for the fitted models no
longer ends `refit`, and a number JSON cannot write never reaches an export."""

from __future__ import annotations

import json
import random
import sqlite3
from contextlib import closing
from pathlib import Path

import pytest

from quizsmith.bank import BankError, ItemBank
from quizsmith.bank.jsonl import read_file
from quizsmith.cli import main
from quizsmith.domain import Item, Passage, ScoreResult

ITEM = '"type": "short", "question": "What does the river carry?", "answer": "silt"'
HOSTILE = {
    # JSON's own escape for half of a surrogate pair: no character (UnicodeEncodeError).
    "lone surrogate": (f'{{{ITEM}, "fact": "silt \\ud800 sand"}}', "lone surrogate"),
    "surrogate in a key": (f'{{{ITEM}, "provenance": {{"\\udfff": 1}}}}', "lone surrogate"),
    # Past SQLite's 8-byte integers (OverflowError).
    "id 2**70": (f'{{{ITEM}, "id": {2**70}}}', "too large to store"),
    "score 10**400": (
        f'{{{ITEM}, "scores": {{"naco": {{"value": {10**400}}}}}}}',
        "too large to store",
    ),
    # Past a float: Python reads it as infinity, which was stored and exported as Infinity.
    "seconds 1e999": (
        f'{{{ITEM}, "scores": {{"naco": {{"value": 0.5, "seconds": 1e999}}}}}}',
        "too large to store",
    ),
    "NaN": (f'{{{ITEM}, "scores": {{"naco": {{"value": NaN}}}}}}', "NaN"),
    "more than 4300 digits": (f'{{{ITEM}, "id": {"9" * 5000}}}', "not JSON Quizsmith can read"),
    "nested too deeply": (f'{{{ITEM}, "x": {"[" * 100_000}{"]" * 100_000}}}', "nested too"),
    # Text fields holding a list or an object (ProgrammingError, AttributeError).
    "created list": (f'{{{ITEM}, "created": ["2024"]}}', "'created' must be text"),
    "created object": (f'{{{ITEM}, "created": {{"y": 2024}}}}', "'created' must be text"),
    "subject list": (f'{{{ITEM}, "subject": ["a"]}}', "'subject' must be text"),
    "passage subject": (
        f'{{{ITEM}, "passage": {{"text": "The river.", "subject": ["a"]}}}}',
        "'subject' must be text",
    ),
    "reference object": (f'{{{ITEM}, "reference": {{"a": 1}}}}', "'reference' must be text"),
    "score created": (
        f'{{{ITEM}, "scores": {{"naco": {{"value": 0.5, "created": [1]}}}}}}',
        "'created' must be text",
    ),
    "review created": (
        f'{{{ITEM}, "reviews": [{{"decision": "accept", "created": {{"a": 1}}}}]}}',
        "'created' must be text",
    ),
}


@pytest.mark.parametrize("name", list(HOSTILE))
def test_a_hostile_value_is_refused_by_line_before_the_bank_is_opened(
    name: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    line, expected = HOSTILE[name]
    source = tmp_path / "items.jsonl"
    good = json.dumps({"type": "short", "question": "What is silt?", "answer": "mud"})
    source.write_text(f"{good}\n{line}\n", encoding="utf-8")
    bank = tmp_path / "school.qbank"
    assert main(["import", str(source), "--bank", str(bank)]) == 2
    err = capsys.readouterr().err
    assert "Line 2 of items.jsonl is not a valid item: " in err and expected in err, err
    assert "fix:" in err and "Unexpected error" not in err
    assert not bank.exists()  # nothing half-written: not even a new empty bank


def test_refused_lines_leave_an_existing_bank_as_it_was(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    bank = tmp_path / "school.qbank"
    with ItemBank(bank) as opened:
        opened.add_item(Item(type="short", stem="What is silt?", key="mud"))
    for line, _ in HOSTILE.values():
        source = tmp_path / "items.jsonl"
        source.write_text(line + "\n", encoding="utf-8")
        assert main(["import", str(source), "--bank", str(bank)]) == 2
    with ItemBank(bank) as opened:
        assert opened.count() == 1
    assert "Unexpected error" not in capsys.readouterr().err


def test_every_reader_of_item_files_refuses_them(tmp_path: Path) -> None:
    """`score` and `generate` read ITEMS.jsonl through the same reader as import."""
    source = tmp_path / "items.jsonl"
    for line, expected in HOSTILE.values():
        source.write_text(line + "\n", encoding="utf-8")
        with pytest.raises(BankError, match=r"Line 1 of items\.jsonl") as caught:
            read_file(source)
        assert expected in caught.value.message and caught.value.fix


def test_an_infinite_number_already_in_a_bank_is_exported_as_valid_json(tmp_path: Path) -> None:
    """A bank filled before the import refused it: the export wrote `Infinity`, which no
    JSON reader (our own import included) accepts."""
    bank = tmp_path / "school.qbank"
    with ItemBank(bank) as opened:
        item_id = opened.add_item(Item(type="short", stem="What is silt?", key="mud"))
        opened.add_score(item_id, ScoreResult(metric="naco", value=0.5, seconds=2.0))
    with closing(sqlite3.connect(bank)) as conn:
        conn.execute("UPDATE scores SET seconds = 9e999")
        conn.commit()
    out = tmp_path / "all.jsonl"
    assert main(["export", "--bank", str(bank), "--out", str(out)]) == 0

    def refuse(name: str) -> None:
        raise AssertionError(f"{name} in the export")

    lines = [json.loads(t, parse_constant=refuse) for t in out.read_text().splitlines()]
    assert lines[0]["scores"]["naco"]["seconds"] is None
    again = tmp_path / "again.qbank"
    assert main(["import", str(out), "--bank", str(again)]) == 0


def _refit_bank(path: Path, *, huge: float, in_values: bool) -> None:
    rng = random.Random(3)
    with ItemBank(path) as bank:
        for i in range(40):
            pid = bank.add_passage(Passage(text=f"Passage {i % 8} text."))
            item_id = bank.add_item(
                Item(type="short", stem=f"Question {i}?", key="answer", passage_id=pid)
            )
            v = rng.random()
            value, a = (v, huge) if in_values and i == 7 else (huge if i == 7 else v, v)
            naco = ScoreResult(metric="naco", value=value, values={"n": 1, "a": a, "c": 1.0})
            bank.add_score(item_id, naco)
            # Decisions the scores explain, so that the refit measures better than chance.
            bank.review(item_id, "accept" if v > 0.5 else "reject")


@pytest.mark.parametrize("in_values", [False, True], ids=["score", "component"])
def test_refit_with_a_score_too_large_for_the_model(
    in_values: bool, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Before: rc 1, sklearn's "Input X contains infinity or a value too large for
    dtype('float32')". A NACo value outside NACo's 0-1 is no NACo score; a component the
    model cannot read is missing."""
    bank = tmp_path / "school.qbank"
    _refit_bank(bank, huge=1e308, in_values=in_values)
    assert main(["refit", "--bank", str(bank)]) == 0, capsys.readouterr().err
    assert "Refitted the overall score" in capsys.readouterr().out
