"""Expected reasoning-step count per subject, for NACo's complexity score."""

from __future__ import annotations

from quizsmith.bank import NACO_METRIC, STEPS_KEY, ItemBank
from quizsmith.domain import ScoreResult

from .helpers import mcq


def _add(bank: ItemBank, subject: str, steps: list, status: str = "accepted") -> None:
    for n, count in enumerate(steps):
        item_id = bank.add_item(mcq(stem=f"{subject} question {n} {count}?", subject=subject))
        bank.add_score(
            item_id, ScoreResult(metric=NACO_METRIC, value=0.5, values={STEPS_KEY: count})
        )
        if status != "draft":
            bank.review(item_id, {"accepted": "accept", "rejected": "reject"}[status])


def test_mode_of_accepted_items_of_the_subject(bank: ItemBank) -> None:
    _add(bank, "Physics", [3, 3, 3, 3, 2, 2, 4, 1, 3, 5, 3])
    _add(bank, "Physics", [1] * 20, status="rejected")  # not accepted: ignored
    _add(bank, "Physics", [1] * 20, status="draft")
    _add(bank, "History", [1] * 12)
    assert bank.expected_complexity("Physics") == 3
    assert bank.expected_complexity("physics") == 3  # subject names ignore case
    assert bank.expected_complexity("History") == 1
    assert bank.complexity_histogram("Physics") == {1: 1, 2: 2, 3: 6, 4: 1, 5: 1}


def test_too_few_items_give_the_default(bank: ItemBank) -> None:
    _add(bank, "Chemistry", [4] * 9)
    assert bank.expected_complexity("Chemistry") == 2
    assert bank.expected_complexity("Chemistry", default=3) == 3
    assert bank.expected_complexity("Chemistry", min_items=9) == 4
    assert bank.expected_complexity("Unknown subject") == 2


def test_ties_go_to_the_smaller_count_and_odd_values_are_handled(bank: ItemBank) -> None:
    _add(bank, "Maths", [2, 2, 2, 2, 2, 4, 4, 4, 4, 4])
    assert bank.expected_complexity("Maths") == 2
    # averaged over samples (rounded), not numbers, zero: only 3.4 -> 3 and 2.6 -> 3 count
    _add(bank, "Art", [3.4, 2.6, "many", None, 0, 3, 3, 3, 3, 3, 3, 3])
    assert bank.complexity_histogram("Art") == {3: 9}
    assert bank.expected_complexity("Art", min_items=9) == 3


def test_only_the_latest_naco_score_counts(bank: ItemBank) -> None:
    _add(bank, "Music", [1] * 10)
    for item in bank.search(subject="Music", limit=None):
        assert item.id is not None
        bank.add_score(item.id, ScoreResult(metric=NACO_METRIC, value=0.9, values={STEPS_KEY: 4}))
    assert bank.expected_complexity("Music") == 4
    assert bank.expected_complexity(None) == 4  # whole bank
