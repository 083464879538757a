"""The EXAM handout check both front ends run (`quizsmith exam`, Tools → Check a handout)."""

from __future__ import annotations

import pytest

from quizsmith.bank.store import ItemBank
from quizsmith.errors import QuizsmithError
from quizsmith.jobs import CancelToken, run_to_end
from quizsmith.operations.handout import HandoutCheck, check_handout
from quizsmith.settings import DEFAULT_ROLES, Settings

HANDOUT = (
    "Plants make their food by photosynthesis in the chloroplasts, using light, water and "
    "carbon dioxide. They release oxygen."
)


def test_without_a_qa_model_the_check_stops_before_answering(
    bank: ItemBank, sample: dict[str, int]
) -> None:
    roles = {**DEFAULT_ROLES, "solvers": ["no-such-model"], "embeddings": "no-such-embedder"}
    items = bank.get_items([sample["where"]])
    job = check_handout(HANDOUT, items, Settings(roles=roles), CancelToken())
    with pytest.raises(QuizsmithError, match="No Q/A model is available"):
        next(job)


@pytest.mark.slow
def test_a_handout_is_graded_against_the_items_passages_and_a_gold_text(
    bank: ItemBank, sample: dict[str, int]
) -> None:
    items = bank.get_items([sample["where"], sample["release"]])
    settings = Settings(n_threads=1)
    events, check = run_to_end(
        check_handout(HANDOUT, items, settings, CancelToken(), source="handout.txt")
    )
    assert isinstance(check, HandoutCheck)
    assert [e.message for e in events] == ["Answering 2 questions from handout.txt", "Done"]
    report, n_exam, gold = check
    assert report.n == 2 and 0 <= report.n_correct <= 2 and 0.0 <= report.exam <= 1.0
    assert report.exam == report.n_correct / report.n
    assert len(report.failed) == report.n - report.n_correct
    assert 0.0 <= gold <= 1.0
    assert n_exam is None if gold == 0 else n_exam == pytest.approx(report.exam / gold)
    # The handout as its own gold text: n-EXAM is 1 whenever it answers anything.
    _, same = run_to_end(check_handout(HANDOUT, items, settings, CancelToken(), gold_text=HANDOUT))
    assert same.gold_exam == same.report.exam
    assert same.n_exam == (None if same.report.exam == 0 else pytest.approx(1.0))
