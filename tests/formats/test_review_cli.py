"""`quizsmith review` and `quizsmith quiz create/add/list` (issue 15, item 10)."""

from __future__ import annotations

from pathlib import Path

import pytest

from quizsmith.bank import ItemBank
from quizsmith.cli import main

from .helpers import mcq, short, stored


@pytest.fixture
def bank_file(tmp_path: Path) -> Path:
    path = tmp_path / "b.qbank"
    with ItemBank(path) as bank:
        stored(bank, [mcq("One?", "a", ["b"]), short("Two?", "x"), short("Three?", "y")], "draft")
    return path


def test_review_sets_status_and_keeps_the_reason(
    bank_file: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["review", "1", "2", "--accept", "--bank", str(bank_file)]) == 0
    assert main(["review", "3", "--reject", "--reason", "too easy", "--bank", str(bank_file)]) == 0
    assert "1 item(s) now rejected: 3." in capsys.readouterr().out
    with ItemBank(bank_file) as bank:
        assert [i.status for i in bank.get_items([1, 2, 3])] == ["accepted", "accepted", "rejected"]
        assert bank.reviews(3)[-1].reason == "too easy"


def test_review_of_an_unknown_id_changes_nothing(
    bank_file: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["review", "1", "99", "--needs-review", "--bank", str(bank_file)]) == 2
    assert "No item with id 99" in capsys.readouterr().err
    with ItemBank(bank_file) as bank:
        assert bank.get_item(1).status == "draft"


def test_quiz_create_add_list_and_export(
    bank_file: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    bank = str(bank_file)
    assert main(["quiz", "create", "Week 1", "3", "1", "--bank", bank]) == 0
    assert main(["quiz", "add", "Week 1", "2", "1", "--bank", bank]) == 0
    assert "Added 1 item(s) to 'Week 1' (1 already in it); it now has 3." in (
        capsys.readouterr().out
    )
    assert main(["quiz", "list", "--bank", bank]) == 0
    assert "Week 1\t3 item(s)" in capsys.readouterr().out
    assert main(["quiz", "list", "Week 1", "--bank", bank]) == 0
    listed = capsys.readouterr().out.splitlines()
    assert [line.split("\t")[1] for line in listed] == ["#3", "#1", "#2"]
    assert main(["quiz", "create", "week 1", "--bank", bank]) == 2
    assert "already exists" in capsys.readouterr().err
    out = tmp_path / "w1.gift"
    assert main(["export", "--bank", bank, "--quiz", "Week 1", "--format", "gift",
                 "--out", str(out)]) == 0  # fmt: skip
    assert "Exported 3 items" in capsys.readouterr().out


def test_export_names_what_a_format_left_out(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from quizsmith.domain import Accepted

    path = tmp_path / "c.qbank"
    with ItemBank(path) as bank:
        stored(bank, [short("Who?", "Ulysses S. Grant", accepted=[Accepted("Grant", 50.0)])])
    out = tmp_path / "q.zip"
    assert main(["export", "--bank", str(path), "--format", "qti", "--out", str(out)]) == 0
    printed = capsys.readouterr().out
    assert "Simplified 1 item(s)" in printed
    assert "item 1: accepted answer 'Grant' (50%) left out" in printed
