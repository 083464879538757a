from __future__ import annotations

import pytest

from quizsmith.bank.errors import BankError
from quizsmith.bank.store import ItemBank
from quizsmith.operations.reviews import record_review


def test_a_decision_sets_the_status_and_is_kept(bank: ItemBank, sample: dict[str, int]) -> None:
    ids = [sample["where"], sample["release"]]
    changes = record_review(bank, ids, "reject", "Two options are correct", "check later")
    assert changes.reviews and changes.items == set(ids) and not changes.scores
    for item_id in ids:
        assert bank.get_item(item_id).status == "rejected"
        review = bank.reviews(item_id)[-1]
        assert (review.decision, review.reason, review.note) == (
            "reject",
            "Two options are correct",
            "check later",
        )
    record_review(bank, [sample["where"]], "accept")
    assert bank.get_item(sample["where"]).status == "accepted"
    assert [r.decision for r in bank.reviews(sample["where"])] == ["reject", "accept"]


def test_a_batch_with_an_unknown_item_records_nothing(
    bank: ItemBank, sample: dict[str, int]
) -> None:
    with pytest.raises(BankError):
        record_review(bank, [sample["where"], 999], "accept")
    assert bank.reviews(sample["where"]) == []
    assert bank.get_item(sample["where"]).status == "draft"
    with pytest.raises(BankError):
        record_review(bank, [sample["where"]], "maybe")
