"""Quizzes: named, ordered sets of items."""

from __future__ import annotations

import pytest

from quizsmith.bank import BankError, ItemBank

from .helpers import mcq


@pytest.fixture
def ids(bank: ItemBank) -> list[int]:
    return bank.add_items([mcq(stem=f"Question {n}?") for n in range(5)])


def test_create_rename_delete(bank: ItemBank, ids: list[int]) -> None:
    quiz = bank.create_quiz("  Week 1  ", ids[:3])
    assert bank.get_quiz(quiz).name == "Week 1"
    assert bank.get_quiz(quiz).item_ids == ids[:3]
    with pytest.raises(BankError, match="already exists"):
        bank.create_quiz("week 1")
    bank.rename_quiz(quiz, "Week 1 (revised)")
    bank.rename_quiz(quiz, "Week 1 (revised)")  # renaming to itself is fine
    other = bank.create_quiz("Week 2")
    with pytest.raises(BankError, match="already exists"):
        bank.rename_quiz(other, "WEEK 1 (REVISED)")
    with pytest.raises(BankError, match="needs a name"):
        bank.create_quiz("   ")
    assert [q.name for q in bank.quizzes()] == ["Week 1 (revised)", "Week 2"]
    bank.delete_quiz(quiz)
    assert [q.name for q in bank.quizzes()] == ["Week 2"]
    assert bank.count() == 5  # the items stay
    with pytest.raises(BankError, match="not in the bank"):
        bank.get_quiz(quiz)


def test_add_remove_and_reorder(bank: ItemBank, ids: list[int]) -> None:
    a, b, c, d, e = ids
    quiz = bank.create_quiz("Mixed", [a, b])
    bank.add_to_quiz(quiz, [c])
    bank.add_to_quiz(quiz, [d], position=0)
    bank.add_to_quiz(quiz, [e, a], position=2)  # a moves
    assert bank.get_quiz(quiz).item_ids == [d, b, e, a, c]
    bank.remove_from_quiz(quiz, [b, 999])
    assert bank.get_quiz(quiz).item_ids == [d, e, a, c]
    bank.reorder_quiz(quiz, [c, a, e, d])
    assert bank.get_quiz(quiz).item_ids == [c, a, e, d]
    with pytest.raises(BankError, match="exactly the quiz's items"):
        bank.reorder_quiz(quiz, [c, a, e])
    with pytest.raises(BankError, match="not in the bank"):
        bank.add_to_quiz(quiz, [12345])
    assert bank.get_quiz(quiz).item_ids == [c, a, e, d]


def test_missing_quiz(bank: ItemBank) -> None:
    for action in (
        lambda: bank.rename_quiz(7, "x"),
        lambda: bank.delete_quiz(7),
        lambda: bank.add_to_quiz(7, []),
        lambda: bank.reorder_quiz(7, []),
    ):
        with pytest.raises(BankError, match="Quiz 7"):
            action()
