"""Deleting items and passages (issue 27): what goes, in one transaction, named first."""

from __future__ import annotations

import pytest

from quizsmith.bank.errors import BankError
from quizsmith.bank.store import ItemBank
from quizsmith.domain import Flag, Passage, ScoreResult
from quizsmith.operations.deletion import delete, describe_deletion

from .conftest import mcq


def test_an_item_goes_with_its_scores_flags_reviews_draft_and_quiz_place(
    bank: ItemBank, sample: dict[str, int]
) -> None:
    gone, kept = sample["where"], sample["release"]
    bank.save_score(gone, ScoreResult(metric="naco", value=0.4), [Flag("x", "X.", "naco")])
    bank.review(gone, "accept")
    bank.save_draft(gone, {"stem": "half typed"})
    quiz = bank.create_quiz("Week 1", [gone, kept])

    plan = describe_deletion(bank, [gone])
    assert plan.item_ids == (gone,) and plan.accepted == 1 and plan.quizzes == ("Week 1",)
    assert plan.sentence().startswith("Delete 1 item (1 accepted), with their scores")
    assert "“Week 1”" in plan.sentence() and "cannot be undone" in plan.sentence()

    changes = delete(bank, [gone])
    assert changes.deleted == {gone} and changes.items == {gone}
    assert bank.get_items([gone]) == []
    assert bank.get_quiz(quiz).item_ids == [kept]
    with bank.reading() as conn:
        for table in ("scores", "flags", "reviews", "item_drafts", "options"):
            count = conn.execute(f"SELECT count(*) FROM {table} WHERE item_id = ?", (gone,))
            assert count.fetchone()[0] == 0, table
        found = conn.execute("SELECT count(*) FROM items_fts WHERE rowid = ?", (gone,))
        assert found.fetchone()[0] == 0  # nor found by search
    assert bank.integrity_problems() == []


def test_a_passage_goes_with_every_item_written_about_it(
    bank: ItemBank, sample: dict[str, int]
) -> None:
    other = bank.add_passage(Passage(text="Rivers carry water to the sea.", title="Rivers"))
    river = mcq("Where do rivers carry water?", "To the sea", ["To the sky", "Uphill"])
    river.passage_id = other
    river_id = bank.add_item(river)

    plan = describe_deletion(bank, passage_ids=[sample["passage"]])
    assert len(plan.item_ids) == 3 and plan.passages == ("Photosynthesis",)
    assert plan.sentence().startswith("Delete the passage “Photosynthesis” and the 3 items")

    changes = delete(bank, passage_ids=[sample["passage"]])
    assert changes.passages == {sample["passage"]} and len(changes.deleted) == 3
    assert [p.id for p in bank.passages()] == [other]
    assert [i.id for i in bank.search(limit=None)] == [river_id]
    assert bank.search("photosynthesis", limit=None) == []


def test_an_unknown_id_deletes_nothing(bank: ItemBank, sample: dict[str, int]) -> None:
    with pytest.raises(BankError, match="No item with id 999"):
        delete(bank, [sample["where"], 999])
    assert len(bank.search(limit=None)) == 3
    with pytest.raises(BankError):
        delete(bank, passage_ids=[999])
    assert len(bank.passages()) == 1


class _Terminal:
    """A stdin that says it is a terminal and answers `reply`."""

    def __init__(self, reply: str) -> None:
        self.reply = reply

    def isatty(self) -> bool:
        return True

    def readline(self) -> str:
        return self.reply + "\n"


def test_quizsmith_delete_asks_then_deletes(
    bank: ItemBank,
    sample: dict[str, int],
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    from quizsmith.cli import main

    path = str(bank.path)
    bank.close()
    # Not a terminal and no --yes: refused, with the fix, nothing deleted.
    assert main(["delete", str(sample["where"]), "--bank", path]) == 2
    err = capsys.readouterr().err
    assert "Delete 1 item" in err and "--yes" in err
    monkeypatch.setattr("sys.stdin", _Terminal("n"))
    assert main(["delete", str(sample["where"]), "--bank", path]) == 0
    assert "Nothing was deleted." in capsys.readouterr().out
    monkeypatch.setattr("sys.stdin", _Terminal("y"))
    assert main(["delete", str(sample["where"]), "--bank", path]) == 0
    assert "Deleted 1 item(s)" in capsys.readouterr().out
    assert main(["delete", "--passage", str(sample["passage"]), "--bank", path, "--yes"]) == 0
    assert "Deleted 1 passage(s) and 2 item(s)" in capsys.readouterr().out
    assert main(["delete", "--bank", path, "--yes"]) == 2
    assert "Nothing to delete." in capsys.readouterr().err
    with ItemBank(path) as again:
        assert again.passages() == [] and again.search(limit=None) == []
